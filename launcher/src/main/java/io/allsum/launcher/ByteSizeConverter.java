package io.allsum.launcher;

import io.allsum.model.format.ByteSize;
import picocli.CommandLine;

/** picocli converter for size options (-b, -e): shared-model's {@link ByteSize}, its message as the usage error. */
public final class ByteSizeConverter implements CommandLine.ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        try {
            return ByteSize.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
