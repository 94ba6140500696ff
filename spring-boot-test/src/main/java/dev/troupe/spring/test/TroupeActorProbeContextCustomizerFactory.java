package dev.troupe.spring.test;

import dev.troupe.actor.testkit.TestProbe;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the {@link TroupeActorProbe} fields of a test class (and its enclosing classes) and
 * installs their {@link ActorProbes} in the test's context. Registered in
 * {@code META-INF/spring.factories}; contexts with the same probes are cached together.
 */
class TroupeActorProbeContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        final List<ActorProbes.ProbeDefinition> definitions = new ArrayList<>();
        for (Class<?> c = testClass; c != null; c = TestContextAnnotationUtils.searchEnclosingClass(c) ? c.getEnclosingClass() : null) {
            ReflectionUtils.doWithFields(c, field -> definitions.add(definition(field)),
                field -> field.isAnnotationPresent(TroupeActorProbe.class));
        }
        return definitions.isEmpty() ? null : new Customizer(definitions);
    }

    static ActorProbes.ProbeDefinition definition(Field field) {
        final ResolvableType type = ResolvableType.forField(field);
        if (type.toClass() != TestProbe.class || type.getGeneric(0).resolve() == null) {
            throw new IllegalStateException("@TroupeActorProbe field " + field + " must be a TestProbe<MessageType>");
        }
        return new ActorProbes.ProbeDefinition(field.getDeclaringClass().getName() + "." + field.getName(),
            field.getAnnotation(TroupeActorProbe.class).value(), type.getGeneric(0));
    }

    /** Adds the probes' post-processor and registers them for the field injection. */
    private record Customizer(List<ActorProbes.ProbeDefinition> definitions) implements ContextCustomizer {
        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
            final ActorProbes probes = new ActorProbes(definitions);
            context.addBeanFactoryPostProcessor(probes.postProcessor());
            context.getBeanFactory().registerSingleton(ActorProbes.BEAN_NAME, probes);
        }
    }
}
