// Throwaway probe (session 12), compiled into the client's package against shared-model's classes and Jackson 3:
// javac -d out -cp <shared-model classes>:<jackson jars> ColdProbe.java; java -cp ... io.allsum.client.ColdProbe [URL [ms]]
// As in the repo it runs JoinWire first in each pair (joinwire-first.txt); joinwire-probe.txt ran databind first.
package io.allsum.client;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.RankView;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

public class ColdProbe {
    static long t() { return System.nanoTime(); }
    static String us(long ns) { return String.format("%7.1f", ns / 1e3); }

    public static void main(String[] a) throws Exception {
        JsonMapper m = AllsumJson.mapper();
        String body = AnswerWarmUp.sample(RankView.class).replace("warm-up", "g1");
        byte[] head = ("HTTP/1.1 200 OK\r\nDate: Thu, 01 Jan 1970 00:00:00 GMT\r\nContent-Type: application/json\r\n"
                + "X-Allsum-Epoch: e\r\nContent-Length: " + body.length() + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] canned = new byte[head.length + body.length()];
        System.arraycopy(head, 0, canned, 0, head.length);
        System.arraycopy(body.getBytes(StandardCharsets.UTF_8), 0, canned, head.length, body.length());
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            JoinRequest r = new JoinRequest("group-" + i, 3, 64, UUID.randomUUID().toString(), Backend.NCCL, null,
                    "10.0.0.1:2900" + i, "host-" + i, "cuda:" + i, null);
            long s = t(); byte[] w2 = JoinWire.request(m, r); long wS = t() - s;
            s = t(); byte[] w = m.writeValueAsBytes(r); long wA = t() - s;
            s = t(); BlockingHttp.Answer ans = BlockingHttp.read("POST", canned); long h = t() - s;
            s = t(); RankView v2 = JoinWire.rankView(m, ans.body()); long rs = t() - s;
            s = t(); RankView v = m.readValue(ans.body(), RankView.class); long rd = t() - s;
            out.append("call ").append(i).append(": write databind ").append(us(wA)).append(" streaming ").append(us(wS))
               .append(" | http read ").append(us(h)).append(" | read databind ").append(us(rd)).append(" streaming ").append(us(rs))
               .append(" (").append(w.length).append("/").append(w2.length).append(" B, ").append(v.equals(v2)).append(")\n");
        }
        if (a.length > 1) Thread.sleep(Long.parseLong(a[1]));
        if (a.length > 0) {
            try (HttpAllsumClient c = HttpAllsumClient.builder(URI.create(a[0])).build()) {
                for (int i = 0; i < 5; i++) {
                    JoinRequest r = new JoinRequest("probe-" + UUID.randomUUID(), 0, 1, UUID.randomUUID().toString(), Backend.RING, null,
                            "127.0.0.1:1", "h", "cpu", null);
                    long s = t(); c.joinRank(r, Duration.ofSeconds(10)); long j = t() - s;
                    out.append("joinRank ").append(i).append(": ").append(us(j)).append(" us\n");
                }
            }
        }
        if (a.length > 0) {
            try (BlockingHttp b = new BlockingHttp(URI.create(a[0]), Duration.ofSeconds(5))) {
                for (int i = 0; i < 5; i++) {
                    JoinRequest r = new JoinRequest("raw-" + UUID.randomUUID(), 0, 1, UUID.randomUUID().toString(), Backend.RING, null,
                            "127.0.0.1:1", "h", "cpu", null);
                    byte[] w = m.writeValueAsBytes(r);
                    long s = t(); BlockingHttp.Answer ans = b.exchange("POST", "/rendezvous?wait=10&view=rank", java.util.List.of("Content-Type", "application/json", "Accept", "application/json"), w, Duration.ofSeconds(10)); long x = t() - s;
                    s = t(); RankView v = m.readValue(ans.body(), RankView.class); long rd = t() - s;
                    out.append("BlockingHttp.exchange ").append(i).append(": ").append(us(x)).append(" us, read ").append(us(rd)).append(" ").append(ans.status()).append("\n");
                }
            }
        }
        System.out.print(out);
    }
}
