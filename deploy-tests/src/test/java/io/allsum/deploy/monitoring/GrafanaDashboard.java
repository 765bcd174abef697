package io.allsum.deploy.monitoring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** docker/grafana/allsum-dashboard.json, read as Grafana reads it: panels (with those nested in rows) and variables. */
final class GrafanaDashboard {

    static final Path FILE = Path.of("..", "docker", "grafana", "allsum-dashboard.json");

    /** One PromQL text of the board and where it is, for messages. */
    record Query(String where, String promql, boolean variable) {

        PromQl.Reads reads() {
            return variable ? PromQl.variableQuery(promql) : PromQl.reads(promql);
        }
    }

    final JsonNode root;

    private GrafanaDashboard(JsonNode root) {
        this.root = root;
    }

    static GrafanaDashboard load() throws IOException {
        return new GrafanaDashboard(new ObjectMapper().readTree(FILE.toFile()));
    }

    /** Every panel, rows included, with the panels of collapsed rows. */
    List<JsonNode> panels() {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode panel : root.path("panels")) {
            all.add(panel);
            panel.path("panels").forEach(all::add);
        }
        return all;
    }

    /** The panels that draw data (not rows). */
    List<JsonNode> dataPanels() {
        return panels().stream().filter(p -> !"row".equals(p.path("type").asText())).toList();
    }

    List<JsonNode> variables() {
        List<JsonNode> all = new ArrayList<>();
        root.path("templating").path("list").forEach(all::add);
        return all;
    }

    /** Every target's expr and every query variable's query. */
    List<Query> queries() {
        List<Query> queries = new ArrayList<>();
        for (JsonNode panel : dataPanels()) {
            for (JsonNode target : panel.path("targets")) {
                queries.add(new Query("panel '" + panel.path("title").asText() + "' target "
                        + target.path("refId").asText(), target.path("expr").asText(), false));
            }
        }
        for (JsonNode variable : variables()) {
            if ("query".equals(variable.path("type").asText())) {
                JsonNode query = variable.path("query");
                queries.add(new Query("variable $" + variable.path("name").asText(),
                        query.isTextual() ? query.asText() : query.path("query").asText(), true));
            }
        }
        return queries;
    }
}
