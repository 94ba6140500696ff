package dev.troupe.spring.autoconfigure;

import dev.troupe.spring.diagnostics.TroupeConfigurationException;
import dev.troupe.spring.diagnostics.TroupePropertyKeys;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Fails startup on a {@code troupe.*} key that no Troupe property binds (a typo such as
 * {@code troupe.remote.port} is otherwise silently ignored), naming the key, where it was set and
 * the nearest valid key. The keys are read from the Troupe properties classes, and from any other
 * {@code @ConfigurationProperties} bean bound under {@code troupe}. Environment variables are not
 * checked (a variable such as {@code TROUPE_SECRET} often serves another purpose).
 * {@code troupe.fail-on-unknown-properties=false} turns the check off.
 */
class UnknownTroupePropertiesCheck implements BeanFactoryPostProcessor, EnvironmentAware, Ordered {

    /** The Troupe properties classes by prefix (a new one is one more line in {@link TroupePropertyKeys#TROUPE_PROPERTIES_CLASSES}). */
    static final Map<String, Class<?>> PROPERTIES_CLASSES = TroupePropertyKeys.troupePropertiesClasses();

    static final String OPT_OUT = "troupe.fail-on-unknown-properties";

    private static final ConfigurationPropertyName TROUPE = ConfigurationPropertyName.of("troupe");

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
        if (!(environment instanceof ConfigurableEnvironment env) || !env.getProperty(OPT_OUT, Boolean.class, true)) {
            return;
        }
        final Map<String, Class<?>> classes = new LinkedHashMap<>(PROPERTIES_CLASSES);
        classes.putAll(registeredTroupeProperties(beanFactory));
        final TroupePropertyKeys keys = TroupePropertyKeys.of(classes);
        final StringBuilder description = new StringBuilder();
        final StringBuilder action = new StringBuilder();
        final Map<String, Boolean> seen = new LinkedHashMap<>();
        for (PropertySource<?> ps : env.getPropertySources()) {
            if (!(ps instanceof EnumerablePropertySource<?>) || ps instanceof SystemEnvironmentPropertySource
                || StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME.equals(ps.getName())
                || "configurationProperties".equals(ps.getName())) {
                continue;
            }
            final ConfigurationPropertySource source = ConfigurationPropertySource.from(ps);
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            iterable.stream().filter(TROUPE::isAncestorOf).forEach(name -> {
                if (keys.isKnown(name) || seen.putIfAbsent(name.toString(), Boolean.TRUE) != null) {
                    return;
                }
                final ConfigurationProperty p = source.getConfigurationProperty(name);
                description.append(description.length() == 0 ? "" : "\n").append("    ").append(name);
                if (p != null && p.getOrigin() != null) {
                    description.append(" (").append(p.getOrigin()).append(')');
                }
                final String nearest = keys.nearest(name);
                action.append(action.length() == 0 ? "" : "\n").append("    ").append(name)
                    .append(nearest == null ? ": remove it" : ": did you mean " + nearest + "?");
            });
        }
        if (description.length() > 0) {
            throw new TroupeConfigurationException(
                "No Troupe property binds these keys, so they would be silently ignored:\n" + description,
                "Correct or remove each key:\n" + action
                    + "\nIf a key is meant for something other than Troupe, set " + OPT_OUT + "=false to turn this check off.");
        }
    }

    /** Other {@code @ConfigurationProperties} classes registered under {@code troupe} (by the application or another module). */
    private static Map<String, Class<?>> registeredTroupeProperties(ConfigurableListableBeanFactory beanFactory) {
        final Map<String, Class<?>> found = new LinkedHashMap<>();
        for (String name : beanFactory.getBeanDefinitionNames()) {
            final BeanDefinition definition = beanFactory.getBeanDefinition(name);
            if (!(definition instanceof AbstractBeanDefinition abd) || !abd.hasBeanClass()) {
                continue;
            }
            final MergedAnnotation<ConfigurationProperties> cp = MergedAnnotations.from(abd.getBeanClass())
                .get(ConfigurationProperties.class);
            if (cp.isPresent()) {
                final String prefix = cp.getString("prefix").isEmpty() ? cp.getString("value") : cp.getString("prefix");
                if (prefix.equals("troupe") || prefix.startsWith("troupe.")) {
                    found.putIfAbsent(prefix, abd.getBeanClass());
                }
            }
        }
        return found;
    }
}
