package io.allsum.model.validate;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.allsum.model.WireEnum;

/**
 * A rank, link or host that validation found out of line with its group, with the evidence. A link suspect names
 * one end in {@code rank}/{@code host}/{@code device} and the other in {@code peerRank} (-1 otherwise); a group
 * suspect has rank -1 and no host or device. {@code confirmation}: how it was measured again before it was named
 * (null while not decided).
 */
public record Suspect(int rank, String host, String device, Kind kind, int peerRank, String reason,
                      String confirmation) {

    public Suspect(int rank, String host, String device, Kind kind, int peerRank, String reason) {
        this(rank, host, device, kind, peerRank, reason, null);
    }

    public Suspect withConfirmation(String how) {
        return new Suspect(rank, host, device, kind, peerRank, reason, how);
    }

    /** The same member of the same kind, whatever the evidence: how worker and server match their findings. */
    public String key() {
        return key(kind, rank, peerRank);
    }

    public static String key(Kind kind, int rank, int peerRank) {
        return kind + "/" + rank + "/" + peerRank;
    }

    public enum Kind implements WireEnum {
        /** One rank is slow on its own, with every peer, or arrives late. */
        RANK,
        /** One pair of ranks is slow while both ends are fine with others. */
        LINK,
        /** Every rank of one host is slow with peers on other hosts: its network link. */
        HOST,
        /** The whole group falls short of an expected figure (rank -1): nothing singles out a member. */
        GROUP,
        /** The others wait for this rank: it stalls (runs, then stops), though its figures while it runs are fine. */
        STRAGGLER,
        /** The rank went silent past the server's heartbeat timeout during the validation. */
        UNRESPONSIVE;

        @JsonCreator
        public static Kind fromWire(String value) {
            return WireEnum.parse(Kind.class, value);
        }

        @Override
        public String toString() {
            return wireName();
        }
    }
}
