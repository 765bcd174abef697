package io.allsum.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/** Which communicator a group uses. Every member of a group must use the same one. */
public enum Backend implements WireEnum {
    /** NCCL through JavaCPP; rank 0 brings the 128-byte unique id. */
    NCCL,
    /** allsum's pure-Java CPU ring over TCP; members bring their listening endpoint. */
    RING;

    @JsonCreator
    public static Backend fromWire(String value) {
        return WireEnum.parse(Backend.class, value);
    }

    @Override
    public String toString() {
        return wireName();
    }
}
