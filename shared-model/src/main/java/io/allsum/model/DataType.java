package io.allsum.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/** Element types of collectives, named as nccl-tests names them (-d). */
public enum DataType implements WireEnum {
    INT8(1, "int8"), UINT8(1, "uint8"),
    INT32(4, "int32"), UINT32(4, "uint32"),
    INT64(8, "int64"), UINT64(8, "uint64"),
    FLOAT16(2, "half"), BFLOAT16(2, "bfloat16"),
    FLOAT32(4, "float"), FLOAT64(8, "double"),
    FLOAT8_E4M3(1, "f8e4m3"), FLOAT8_E5M2(1, "f8e5m2");

    private final int bytes;
    private final String ncclTestsName;

    DataType(int bytes, String ncclTestsName) {
        this.bytes = bytes;
        this.ncclTestsName = ncclTestsName;
    }

    public int bytes() {
        return bytes;
    }

    /** The short name nccl-tests prints in its "type" column. */
    public String ncclTestsName() {
        return ncclTestsName;
    }

    public boolean isFloatingPoint() {
        return ordinal() >= FLOAT16.ordinal();
    }

    /** Accepts the wire name ("float32") and nccl-tests' name ("float"). */
    @JsonCreator
    public static DataType fromWire(String value) {
        for (DataType t : values()) {
            if (t.ncclTestsName.equalsIgnoreCase(value)) {
                return t;
            }
        }
        return WireEnum.parse(DataType.class, value);
    }

    @Override
    public String toString() {
        return wireName();
    }
}
