package dev.troupe.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Reads a Grafana dashboard's JSON model: every PromQL expression of its panels (rows included)
 * and of its query variables, and turns each into a query Prometheus can run by substituting the
 * dashboard's variables the way Grafana would for "all nodes, default choices".
 */
final class GrafanaDashboard {

    /** One PromQL expression and where it came from. */
    record Query(String where, String expr) {
        @Override
        public String toString() {
            return where + ": " + expr;
        }
    }

    private static final Pattern LABEL_VALUES = Pattern.compile("^\\s*label_values\\((.*),\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\)\\s*$");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)\\}?");

    final JsonNode root;

    private GrafanaDashboard(JsonNode root) {
        this.root = root;
    }

    static GrafanaDashboard read(Path file) throws IOException {
        return new GrafanaDashboard(new ObjectMapper().readTree(Files.readString(file)));
    }

    /** Every panel, rows' nested panels included, in file order. */
    List<JsonNode> panels() {
        List<JsonNode> out = new ArrayList<>();
        collectPanels(root.path("panels"), out);
        return out;
    }

    private static void collectPanels(JsonNode panels, List<JsonNode> out) {
        for (JsonNode p : panels) {
            out.add(p);
            collectPanels(p.path("panels"), out);
        }
    }

    /** The panels' target expressions, as written in the dashboard. */
    List<Query> panelQueries() {
        List<Query> out = new ArrayList<>();
        for (JsonNode p : panels()) {
            for (JsonNode t : p.path("targets")) {
                String expr = t.path("expr").asString("");
                out.add(new Query("panel '" + p.path("title").asString("") + "' target " + t.path("refId").asString("?"), expr));
            }
        }
        return out;
    }

    /**
     * The query variables' expressions: {@code label_values(expr, label)} becomes {@code expr}, which
     * must return series for the variable to offer any value.
     */
    List<Query> variableQueries() {
        List<Query> out = new ArrayList<>();
        for (JsonNode v : root.path("templating").path("list")) {
            if (!"query".equals(v.path("type").asString(""))) {
                continue;
            }
            JsonNode q = v.path("query");
            String text = q.isObject() ? q.path("query").asString("") : q.asString("");
            Matcher m = LABEL_VALUES.matcher(text);
            out.add(new Query("variable '" + v.path("name").asString("") + "'", m.matches() ? m.group(1) : text));
        }
        return out;
    }

    /**
     * Values for the dashboard's variables as Grafana substitutes them when "All" is chosen: a query
     * variable becomes the regex {@code .+} (the dashboard matches it with {@code =~}); a custom,
     * constant or interval variable becomes its current (default) value.
     */
    Map<String, String> defaultVariableValues() {
        Map<String, String> values = new LinkedHashMap<>();
        for (JsonNode v : root.path("templating").path("list")) {
            String name = v.path("name").asString("");
            String type = v.path("type").asString("");
            if ("query".equals(type)) {
                values.put(name, ".+");
            } else {
                JsonNode current = v.path("current").path("value");
                String value = current.isArray() ? current.path(0).asString("") : current.asString("");
                if (value.isEmpty()) {
                    value = v.path("query").asString("");
                }
                values.put(name, value);
            }
        }
        return values;
    }

    /**
     * The expression with Grafana's built-in and the dashboard's variables replaced, as Grafana would
     * send it for a 15-minute view of a 5 s scrape interval.
     *
     * @throws IllegalArgumentException if a variable is neither built in nor defined by the dashboard
     */
    String resolve(String expr) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("__rate_interval", "1m");
        values.put("__interval", "15s");
        values.put("__range", "15m");
        values.putAll(defaultVariableValues());
        Matcher m = VARIABLE.matcher(expr);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = values.get(m.group(1));
            if (value == null) {
                throw new IllegalArgumentException("unknown variable $" + m.group(1) + " in " + expr);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }
}
