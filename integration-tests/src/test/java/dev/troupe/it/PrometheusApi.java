package dev.troupe.it;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** The few calls of Prometheus's HTTP API the tests need. */
final class PrometheusApi {

    private final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    PrometheusApi(String host, int port) {
        this.base = "http://" + host + ":" + port;
    }

    /** An instant query: the {@code data} object (resultType, result), or an error naming the expression. */
    JsonNode query(String expr) {
        JsonNode body = get("/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8));
        if (!"success".equals(body.path("status").asString(""))) {
            throw new AssertionError("Prometheus rejected `" + expr + "`: " + body.path("errorType").asString("")
                    + " " + body.path("error").asString(""));
        }
        return body.path("data");
    }

    /** The number of series in an instant vector result that hold a finite value. */
    static int finiteSeries(JsonNode data) {
        int n = 0;
        if ("vector".equals(data.path("resultType").asString(""))) {
            for (JsonNode series : data.path("result")) {
                double v = parse(series.path("value").path(1).asString("NaN"));
                if (Double.isFinite(v)) {
                    n++;
                }
            }
        } else if ("scalar".equals(data.path("resultType").asString(""))) {
            n = Double.isFinite(parse(data.path("result").path(1).asString("NaN"))) ? 1 : 0;
        }
        return n;
    }

    /** Sum of the values of an instant vector result (NaN ignored). */
    static double sum(JsonNode data) {
        double total = 0;
        for (JsonNode series : data.path("result")) {
            double v = parse(series.path("value").path(1).asString("NaN"));
            if (Double.isFinite(v)) {
                total += v;
            }
        }
        return total;
    }

    /** The scrape targets' health: the {@code activeTargets} array. */
    JsonNode activeTargets() {
        return get("/api/v1/targets?state=active").path("data").path("activeTargets");
    }

    private static double parse(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private JsonNode get(String pathAndQuery) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return json.readTree(r.body());
        } catch (IOException e) {
            throw new AssertionError("GET " + base + pathAndQuery + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
