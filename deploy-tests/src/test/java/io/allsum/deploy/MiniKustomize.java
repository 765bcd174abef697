package io.allsum.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The part of kustomize that deploy/kubernetes uses, in Java, so that the test suite renders every overlay without
 * the kubectl or kustomize binaries: {@code resources} (files and directories), {@code images} and {@code patches}
 * given as JSON 6902 operations with a target. Any other kustomization field fails the rendering: an overlay that
 * needs more must grow this class (and its test) first, so what the tests check is what kubectl would apply.
 */
final class MiniKustomize {

    static final YAMLMapper YAML = new YAMLMapper();
    private static final Set<String> SUPPORTED = Set.of("apiVersion", "kind", "resources", "images", "patches");

    private MiniKustomize() {
    }

    /** The documents of the kustomization in {@code dir}, in resource order. */
    static List<ObjectNode> render(Path dir) throws IOException {
        Path file = dir.resolve("kustomization.yaml");
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no kustomization.yaml in " + dir);
        }
        JsonNode k = YAML.readTree(file.toFile());
        for (Iterator<String> names = k.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!SUPPORTED.contains(name)) {
                throw new IllegalArgumentException(file + ": field '" + name + "' is not supported by MiniKustomize"
                        + " (supported: " + SUPPORTED + ")");
            }
        }
        List<ObjectNode> docs = new ArrayList<>();
        for (JsonNode r : k.path("resources")) {
            Path p = dir.resolve(r.asText()).normalize();
            if (Files.isDirectory(p)) {
                docs.addAll(render(p));
            } else {
                docs.addAll(readDocuments(p));
            }
        }
        for (JsonNode patch : k.path("patches")) {
            applyPatch(dir, patch, docs);
        }
        for (JsonNode image : k.path("images")) {
            docs.forEach(doc -> setImage(doc, image));
        }
        return docs;
    }

    static List<ObjectNode> readDocuments(Path file) throws IOException {
        List<ObjectNode> docs = new ArrayList<>();
        try (var it = YAML.readerFor(JsonNode.class).<JsonNode>readValues(file.toFile())) {
            while (it.hasNext()) {
                JsonNode doc = it.next();
                if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
                    if (!doc.isObject()) {
                        throw new IllegalArgumentException(file + ": a document is not a mapping: " + doc);
                    }
                    docs.add((ObjectNode) doc);
                }
            }
        }
        return docs;
    }

    private static void applyPatch(Path dir, JsonNode patch, List<ObjectNode> docs) throws IOException {
        JsonNode target = patch.path("target");
        JsonNode ops = patch.has("path") ? YAML.readTree(dir.resolve(patch.get("path").asText()).toFile())
                : YAML.readTree(patch.path("patch").asText());
        if (!ops.isArray()) {
            throw new IllegalArgumentException(dir + ": only JSON 6902 patches (a list of operations) are supported,"
                    + " got " + ops);
        }
        int matched = 0;
        for (ObjectNode doc : docs) {
            if (matches(target, doc)) {
                matched++;
                for (JsonNode op : ops) {
                    JsonPatch.apply(doc, op);
                }
            }
        }
        if (matched == 0) {
            throw new IllegalArgumentException(dir + ": patch target " + target + " matches no resource");
        }
    }

    private static boolean matches(JsonNode target, ObjectNode doc) {
        String apiVersion = doc.path("apiVersion").asText();
        String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
        String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
        return field(target, "kind", doc.path("kind").asText())
                && field(target, "name", doc.path("metadata").path("name").asText())
                && field(target, "group", group)
                && field(target, "version", version);
    }

    private static boolean field(JsonNode target, String name, String actual) {
        return !target.has(name) || target.get(name).asText().equals(actual);
    }

    /** kustomize's images transformer: containers whose image name is {@code name} get newName/newTag/digest. */
    private static void setImage(ObjectNode doc, JsonNode image) {
        String name = image.path("name").asText();
        for (JsonNode podSpec : List.of(doc.path("spec").path("template").path("spec"),
                doc.path("spec").path("jobTemplate").path("spec").path("template").path("spec"))) {
            for (String list : List.of("containers", "initContainers")) {
                for (JsonNode c : podSpec.path(list)) {
                    String current = c.path("image").asText();
                    int colon = current.lastIndexOf(':');
                    boolean tagged = colon > current.lastIndexOf('/');
                    String currentName = tagged ? current.substring(0, colon) : current;
                    if (!currentName.equals(name)) {
                        continue;
                    }
                    String newName = image.has("newName") ? image.get("newName").asText() : currentName;
                    String suffix = image.has("digest") ? "@" + image.get("digest").asText()
                            : image.has("newTag") ? ":" + image.get("newTag").asText()
                            : tagged ? current.substring(colon) : "";
                    ((ObjectNode) c).put("image", newName + suffix);
                }
            }
        }
    }

    /** RFC 6902 add, replace and remove on a Jackson tree (what the overlays use). */
    static final class JsonPatch {

        private JsonPatch() {
        }

        static void apply(ObjectNode doc, JsonNode op) {
            String kind = op.path("op").asText();
            List<String> path = pointer(op.path("path").asText());
            JsonNode parent = doc;
            for (String token : path.subList(0, path.size() - 1)) {
                parent = parent.isArray() ? parent.path(Integer.parseInt(token)) : parent.path(token);
                if (parent.isMissingNode()) {
                    throw new IllegalArgumentException("patch path " + op.path("path").asText() + " does not exist");
                }
            }
            String last = path.getLast();
            switch (kind) {
                case "add" -> add(parent, last, op.get("value"), op);
                case "replace" -> {
                    requireExisting(parent, last, op);
                    remove(parent, last);
                    add(parent, last, op.get("value"), op);
                }
                case "remove" -> {
                    requireExisting(parent, last, op);
                    remove(parent, last);
                }
                default -> throw new IllegalArgumentException("unsupported patch op '" + kind + "' in " + op);
            }
        }

        static List<String> pointer(String p) {
            if (!p.startsWith("/")) {
                throw new IllegalArgumentException("a JSON pointer starts with '/': " + p);
            }
            List<String> tokens = new ArrayList<>();
            for (String t : p.substring(1).split("/", -1)) {
                tokens.add(t.replace("~1", "/").replace("~0", "~"));
            }
            return tokens;
        }

        private static void requireExisting(JsonNode parent, String token, JsonNode op) {
            boolean exists = parent.isArray() ? !token.equals("-") && Integer.parseInt(token) < parent.size()
                    : parent.has(token);
            if (!exists) {
                throw new IllegalArgumentException("patch " + op + ": nothing at that path");
            }
        }

        private static void add(JsonNode parent, String token, JsonNode value, JsonNode op) {
            if (value == null) {
                throw new IllegalArgumentException("patch " + op + " has no value");
            }
            if (parent instanceof ArrayNode a) {
                if (token.equals("-")) {
                    a.add(value.deepCopy());
                } else {
                    a.insert(Integer.parseInt(token), value.deepCopy());
                }
            } else if (parent instanceof ObjectNode o) {
                o.set(token, value.deepCopy());
            } else {
                throw new IllegalArgumentException("patch " + op + ": parent is not a container");
            }
        }

        private static void remove(JsonNode parent, String token) {
            if (parent instanceof ArrayNode a) {
                a.remove(Integer.parseInt(token));
            } else {
                ((ObjectNode) parent).remove(token);
            }
        }
    }
}
