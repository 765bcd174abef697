package io.allsum.launcher;

import io.allsum.client.AllsumJson;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The launcher's JSON files (--json, --save-baseline): indented, with a final newline, their folder created. */
final class JsonFiles {

    private JsonFiles() {
    }

    static void write(Path file, Object value) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, AllsumJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(value)
                + System.lineSeparator());
    }
}
