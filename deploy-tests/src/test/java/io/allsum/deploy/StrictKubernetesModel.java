package io.allsum.deploy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Turns rendered documents into fabric8 Kubernetes model objects, strictly: a wrong type fails in Jackson, and a
 * field the Kubernetes API does not know (which fabric8 would keep quietly in {@code additionalProperties}, and the
 * API server would drop or refuse) fails here, naming its path.
 */
final class StrictKubernetesModel {

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "apps/v1/Deployment", Deployment.class,
            "v1/Service", Service.class,
            "batch/v1/Job", Job.class,
            "v1/Secret", Secret.class,
            "v1/ConfigMap", ConfigMap.class);

    private StrictKubernetesModel() {
    }

    static HasMetadata parse(JsonNode doc) {
        String key = doc.path("apiVersion").asText() + "/" + doc.path("kind").asText();
        Class<? extends HasMetadata> type = KINDS.get(key);
        if (type == null) {
            throw new IllegalArgumentException("unexpected resource type " + key + " (known: " + KINDS.keySet() + ")");
        }
        HasMetadata parsed;
        try {
            parsed = JSON.treeToValue(doc, type);
        } catch (Exception e) {
            throw new IllegalArgumentException(key + " " + doc.path("metadata").path("name").asText() + ": "
                    + e.getMessage(), e);
        }
        List<String> unknown = new ArrayList<>();
        collectUnknown(parsed, key + "/" + parsed.getMetadata().getName(), unknown);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("fields unknown to the Kubernetes API: " + unknown);
        }
        return parsed;
    }

    static List<HasMetadata> parseAll(List<? extends JsonNode> docs) {
        return docs.stream().map(StrictKubernetesModel::parse).toList();
    }

    /** Every non-empty additionalProperties in the object graph, as "path.field". */
    private static void collectUnknown(Object node, String path, List<String> out) {
        if (node == null) {
            return;
        }
        if (node instanceof Collection<?> c) {
            int i = 0;
            for (Object e : c) {
                collectUnknown(e, path + "[" + i++ + "]", out);
            }
            return;
        }
        if (node instanceof Map<?, ?> m) {
            m.forEach((k, v) -> collectUnknown(v, path + "[" + k + "]", out));
            return;
        }
        if (!node.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        for (Method m : node.getClass().getMethods()) {
            if (m.getParameterCount() != 0 || Modifier.isStatic(m.getModifiers())
                    || !m.getName().startsWith("get") || m.getName().equals("getClass")) {
                continue;
            }
            Object value;
            try {
                value = m.invoke(node);
            } catch (IllegalAccessException | InvocationTargetException e) {
                continue;
            }
            if (m.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    extra.keySet().forEach(k -> out.add(path + "." + k));
                }
            } else {
                String field = Character.toLowerCase(m.getName().charAt(3)) + m.getName().substring(4);
                collectUnknown(value, path + "." + field, out);
            }
        }
    }
}
