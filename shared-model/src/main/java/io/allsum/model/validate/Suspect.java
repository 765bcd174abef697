package io.allsum.model.validate;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.allsum.model.WireEnum;

/**
 * A rank, link or host that validation found out of line with its group, with the evidence. A link suspect names
 * one end in {@code rank}/{@code host}/{@code device} and the other in {@code peerRank} (-1 otherwise); a group
 * suspect has rank -1 and no host or device.
 */
public record Suspect(int rank, String host, String device, Kind kind, int peerRank, String reason) {

    public enum Kind implements WireEnum {
        /** One rank is slow on its own, with every peer, or arrives late. */
        RANK,
        /** One pair of ranks is slow while both ends are fine with others. */
        LINK,
        /** Every rank of one host is slow with peers on other hosts: its network link. */
        HOST,
        /** The whole group falls short of an expected figure (rank -1): nothing singles out a member. */
        GROUP;

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
