package io.allsum.server.rendezvous;

import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * {@code allsum.rendezvous.connection.*}: Tomcat's per-connection socket buffers. Every waiting join is an open
 * connection holding them (8 KB each way by default); a join is a few hundred bytes each way, so small buffers
 * cut the memory of thousands of parked joins without costing the joins anything (docs/benchmarks.md, issue 15).
 *
 * @param readBuffer  the socket read buffer (Tomcat {@code socket.appReadBufSize}); also sizes the request buffer
 * @param writeBuffer the socket write buffer (Tomcat {@code socket.appWriteBufSize}); larger answers (a full view)
 *                    are written in several pieces
 */
@Validated
@ConfigurationProperties("allsum.rendezvous.connection")
public record ConnectionBufferProperties(
        @NotNull @DefaultValue("1KB") DataSize readBuffer,
        @NotNull @DefaultValue("2KB") DataSize writeBuffer) {

    public ConnectionBufferProperties {
        requireRange("read-buffer", readBuffer);
        requireRange("write-buffer", writeBuffer);
    }

    private static void requireRange(String name, DataSize size) {
        if (size != null && (size.toBytes() < 512 || size.toBytes() > 1 << 20)) {
            throw new IllegalArgumentException("allsum.rendezvous.connection." + name
                    + " must be between 512B and 1MB, got " + size);
        }
    }
}
