package io.allsum.launcher;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import picocli.CommandLine;

import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/** picocli converters that accept nccl-tests' names as well as allsum's wire names. */
final class WireConverters {

    /** Common spellings that neither nccl-tests nor the wire names use. */
    private static final Map<String, String> DATA_TYPE_ALIASES = Map.of(
            "fp16", "float16", "bf16", "bfloat16", "fp32", "float32", "fp64", "float64",
            "int", "int32", "char", "int8", "uint", "uint32");

    private WireConverters() {
    }

    private static <T> T convert(String value, Function<String, T> parser) {
        try {
            return parser.apply(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }

    static final class DataTypes implements CommandLine.ITypeConverter<DataType> {
        @Override
        public DataType convert(String value) {
            String key = value.toLowerCase(Locale.ROOT);
            return WireConverters.convert(DATA_TYPE_ALIASES.getOrDefault(key, key), DataType::fromWire);
        }
    }

    static final class ReduceOps implements CommandLine.ITypeConverter<ReduceOp> {
        @Override
        public ReduceOp convert(String value) {
            return WireConverters.convert(value, ReduceOp::fromWire);
        }
    }

    static final class Collectives implements CommandLine.ITypeConverter<CollectiveOp> {
        @Override
        public CollectiveOp convert(String value) {
            // nccl-tests names its binaries all_reduce_perf, sendrecv_perf: accept both spellings.
            String key = value.toLowerCase(Locale.ROOT).replace('-', '_').replaceFirst("_perf$", "");
            return WireConverters.convert(key.equals("sendrecv") ? "send_recv" : key, CollectiveOp::fromWire);
        }
    }
}
