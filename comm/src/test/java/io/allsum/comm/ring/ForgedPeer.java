package io.allsum.comm.ring;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;

/** An attacker who can reach a ring port but does not hold the generation's unique id. */
final class ForgedPeer {

    private ForgedPeer() {
    }

    /** Connects, takes the challenge and answers with a hello proved with a key of its own making. */
    static Socket hello(String endpoint, Handshake h) throws IOException {
        Socket s = connect(endpoint);
        s.setSoTimeout(10_000);
        byte[] nonce = Handshake.readChallenge(s.getInputStream());
        RingKey guess = RingKey.derive(RingKey.newUniqueId(), h.group(), h.generation());
        ByteBuffer bytes = h.encode(guess, nonce, RingKey.nonce());
        OutputStream out = s.getOutputStream();
        out.write(bytes.array(), 0, bytes.limit());
        out.flush();
        return s;
    }

    static Socket connect(String endpoint) throws IOException {
        var address = Endpoints.parse(endpoint);
        return new Socket(address.getHostString(), address.getPort());
    }
}
