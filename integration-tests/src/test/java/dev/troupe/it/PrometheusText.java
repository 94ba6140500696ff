package dev.troupe.it;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A parsed Prometheus text exposition (what {@code /actuator/prometheus} returns). */
final class PrometheusText {

    /** One sample: metric name, labels, value. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    final String text;
    final List<Sample> samples = new ArrayList<>();

    PrometheusText(String text) {
        this.text = text;
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            String name;
            Map<String, String> labels = new LinkedHashMap<>();
            if (brace >= 0 && brace < space) {
                name = line.substring(0, brace);
                int close = line.lastIndexOf('}');
                Matcher m = LABEL.matcher(line.substring(brace + 1, close));
                while (m.find()) {
                    labels.put(m.group(1), m.group(2));
                }
                space = line.indexOf(' ', close);
            } else {
                name = line.substring(0, line.indexOf(' '));
                space = line.indexOf(' ');
            }
            String rest = line.substring(space + 1).trim();
            int sp = rest.indexOf(' ');
            String value = sp < 0 ? rest : rest.substring(0, sp);
            samples.add(new Sample(name, labels, parse(value)));
        }
    }

    private static double parse(String v) {
        return switch (v) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(v);
        };
    }

    /**
     * @param name the sample name
     * @param labelPairs label name, value, name, value... every one must match
     * @return the sum of the matching samples, 0 when none match
     */
    double sum(String name, String... labelPairs) {
        double total = 0;
        for (Sample s : matching(name, labelPairs)) {
            total += s.value();
        }
        return total;
    }

    List<Sample> matching(String name, String... labelPairs) {
        List<Sample> out = new ArrayList<>();
        next:
        for (Sample s : samples) {
            if (!s.name().equals(name)) {
                continue;
            }
            for (int i = 0; i + 1 < labelPairs.length; i += 2) {
                if (!labelPairs[i + 1].equals(s.labels().get(labelPairs[i]))) {
                    continue next;
                }
            }
            out.add(s);
        }
        return out;
    }

    boolean has(String name) {
        for (Sample s : samples) {
            if (s.name().equals(name)) {
                return true;
            }
        }
        return false;
    }
}
