package dev.troupe.spring.diagnostics;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.ResolvableType;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The keys that {@code @ConfigurationProperties} classes bind, read from the classes themselves
 * (JavaBean properties, nested classes of the same code base, maps by key), so that an unknown
 * key under {@code troupe.*} can be reported with the nearest known one.
 *
 * <p>A {@code Map<String, V>} property takes any key: {@code troupe.dispatchers.<name>.threads}.
 * Below a map of plain values ({@code troupe.remote.peers.*}) or a list anything goes, as Boot
 * binds it.
 */
public final class TroupePropertyKeys {

    /** One key: its elements in dashed form, {@code *} for a map key, open when anything below it binds. */
    record Key(List<String> elements, boolean open) {
        String display() {
            final StringBuilder b = new StringBuilder();
            for (String e : elements) {
                b.append(b.length() == 0 ? "" : ".").append("*".equals(e) ? "<name>" : e);
            }
            return b.toString();
        }
    }

    /**
     * The Troupe properties classes by prefix, by name (this package does not depend on the
     * auto-configuration's); a new properties class is one more line.
     */
    public static final Map<String, String> TROUPE_PROPERTIES_CLASSES = Map.of(
        "troupe", "dev.troupe.spring.autoconfigure.TroupeProperties",
        "troupe.remote", "dev.troupe.spring.autoconfigure.TroupeRemoteProperties",
        "troupe.cluster", "dev.troupe.spring.autoconfigure.TroupeClusterProperties",
        "troupe.persistence", "dev.troupe.spring.autoconfigure.TroupePersistenceProperties");

    private static volatile TroupePropertyKeys troupe;

    private final List<Key> keys = new ArrayList<>();

    private TroupePropertyKeys() {
    }

    /** @return the keys of the Troupe properties classes ({@link #TROUPE_PROPERTIES_CLASSES}) */
    public static TroupePropertyKeys troupe() {
        TroupePropertyKeys k = troupe;
        if (k == null) {
            k = of(troupePropertiesClasses());
            troupe = k;
        }
        return k;
    }

    /** @return {@link #TROUPE_PROPERTIES_CLASSES}, loaded */
    public static Map<String, Class<?>> troupePropertiesClasses() {
        final Map<String, Class<?>> classes = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, String> e : TROUPE_PROPERTIES_CLASSES.entrySet()) {
            try {
                classes.put(e.getKey(), Class.forName(e.getValue(), false, TroupePropertyKeys.class.getClassLoader()));
            } catch (ClassNotFoundException ex) {
                throw new IllegalStateException("missing properties class " + e.getValue(), ex);
            }
        }
        return classes;
    }

    /**
     * @param classes properties classes by their prefix, such as {@code troupe} and {@code troupe.remote}
     * @return the keys they bind
     */
    public static TroupePropertyKeys of(Map<String, Class<?>> classes) {
        final TroupePropertyKeys k = new TroupePropertyKeys();
        for (Map.Entry<String, Class<?>> e : classes.entrySet()) {
            k.walk(e.getValue(), List.of(e.getKey().split("\\.")), e.getValue().getPackageName(), 0);
        }
        return k;
    }

    /** @return every key, for tests and messages */
    public List<String> displayNames() {
        final List<String> names = new ArrayList<>();
        for (Key key : keys) {
            names.add(key.display());
        }
        return names;
    }

    private void walk(Class<?> type, List<String> prefix, String basePackage, int depth) {
        if (depth > 8) {
            keys.add(new Key(prefix, true));
            return;
        }
        for (PropertyDescriptor pd : BeanUtils.getPropertyDescriptors(type)) {
            if (pd.getReadMethod() == null || "class".equals(pd.getName())) {
                continue;
            }
            final List<String> path = append(prefix, TroupeSettingNames.kebab(pd.getName()));
            final ResolvableType rt = ResolvableType.forMethodReturnType(pd.getReadMethod());
            final Class<?> raw = rt.toClass();
            if (Map.class.isAssignableFrom(raw)) {
                final Class<?> value = rt.asMap().getGeneric(1).toClass();
                if (isNested(value, basePackage)) {
                    walk(value, append(path, "*"), basePackage, depth + 1);
                } else {
                    keys.add(new Key(append(path, "*"), true));
                }
            } else if (Collection.class.isAssignableFrom(raw) || raw.isArray()) {
                keys.add(new Key(path, true));
            } else if (isNested(raw, basePackage)) {
                walk(raw, path, basePackage, depth + 1);
            } else {
                keys.add(new Key(path, false));
            }
        }
    }

    /** Classes of the properties' own code base bind as groups; anything else (String, Duration, Class, ...) is a value. */
    private static boolean isNested(Class<?> type, String basePackage) {
        return !type.isEnum() && !type.isPrimitive() && type.getPackageName().startsWith(basePackage);
    }

    private static List<String> append(List<String> prefix, String element) {
        final List<String> l = new ArrayList<>(prefix.size() + 1);
        l.addAll(prefix);
        l.add(element);
        return l;
    }

    /**
     * @param name a property name from the environment
     * @return whether some key binds it
     */
    public boolean isKnown(ConfigurationPropertyName name) {
        for (Key key : keys) {
            if (matches(key, name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param property a full property name, such as {@code troupe.remote.reconnect}
     * @return whether it is a known key or a group of known keys
     */
    public boolean isKnownOrGroup(String property) {
        final ConfigurationPropertyName name = ConfigurationPropertyName.adapt(property, '.');
        if (isKnown(name)) {
            return true;
        }
        for (Key key : keys) {
            if (key.elements().size() > name.getNumberOfElements() && prefixMatches(key, name, name.getNumberOfElements())) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(Key key, ConfigurationPropertyName name) {
        final int n = key.elements().size();
        if (key.open() ? name.getNumberOfElements() < n : name.getNumberOfElements() != n) {
            return false;
        }
        return prefixMatches(key, name, n);
    }

    private static boolean prefixMatches(Key key, ConfigurationPropertyName name, int n) {
        for (int i = 0; i < n; i++) {
            final String k = key.elements().get(i);
            if (!"*".equals(k) && !uniform(k).equals(name.getElement(i, ConfigurationPropertyName.Form.UNIFORM))) {
                return false;
            }
        }
        return true;
    }

    private static String uniform(String dashed) {
        return dashed.replace("-", "").toLowerCase(Locale.ROOT);
    }

    /**
     * @param name an unknown property name
     * @return the known key nearest to it (edit distance, map keys filled in from the name), or null
     */
    public String nearest(ConfigurationPropertyName name) {
        final String dashed = name.toString();
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        int bestSizeGap = Integer.MAX_VALUE;
        for (Key key : keys) {
            final StringBuilder b = new StringBuilder();
            for (int i = 0; i < key.elements().size(); i++) {
                final String e = key.elements().get(i);
                final String filled = "*".equals(e)
                    ? (i < name.getNumberOfElements() ? name.getElement(i, ConfigurationPropertyName.Form.DASHED) : "<name>")
                    : e;
                b.append(i == 0 ? "" : ".").append(filled);
            }
            final String candidate = b.toString();
            // A shared word of the last element ("port" in bind-port) counts for more than its letters.
            final int d = distance(dashed, candidate) - 3 * sharedWords(name.getLastElement(ConfigurationPropertyName.Form.DASHED),
                key.elements().get(key.elements().size() - 1));
            final int gap = Math.abs(key.elements().size() - name.getNumberOfElements());
            if (d < bestDistance || (d == bestDistance && gap < bestSizeGap)) {
                best = candidate;
                bestDistance = d;
                bestSizeGap = gap;
            }
        }
        return best;
    }

    private static int sharedWords(String a, String b) {
        int shared = 0;
        for (String word : a.split("-")) {
            for (String other : b.split("-")) {
                if (!word.isEmpty() && word.equals(other)) {
                    shared++;
                    break;
                }
            }
        }
        return shared;
    }

    /** Levenshtein distance; startup only, names are short. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                final int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            final int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
