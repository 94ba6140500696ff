package dev.troupe.spring.test;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.testkit.TestProbe;
import dev.troupe.spring.autoconfigure.ActorBeanRegistrar;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.ResolvableType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The probes of one test context: after the actor beans' refs are registered, each ref bean a
 * {@link TroupeActorProbe} names is replaced by one that hands out the probe's ref, and the probes
 * are created (on the context's {@link ActorSystem}) when first needed.
 */
final class ActorProbes {

    /** Bean name of this holder in the test's context. */
    static final String BEAN_NAME = "troupeActorProbes";

    private final List<ProbeDefinition> definitions;
    private final Map<String, TestProbe<?>> probes = new ConcurrentHashMap<>();
    private ConfigurableListableBeanFactory beanFactory;

    ActorProbes(List<ProbeDefinition> definitions) {
        this.definitions = definitions;
    }

    /**
     * @return the post-processor that replaces the refs: added to the context, it runs after every
     *         registry post-processor (so the actor refs exist) and before any bean is made
     */
    BeanFactoryPostProcessor postProcessor() {
        return this::replaceRefs;
    }

    private void replaceRefs(ConfigurableListableBeanFactory beanFactory) throws BeansException {
        this.beanFactory = beanFactory;
        final BeanDefinitionRegistry registry = (BeanDefinitionRegistry) beanFactory;
        for (ProbeDefinition d : definitions) {
            final String actorBean = actorBean(beanFactory, d);
            final String refBean = actorBean + ActorBeanRegistrar.REF_SUFFIX;
            final RootBeanDefinition original = (RootBeanDefinition) beanFactory.getMergedBeanDefinition(refBean);
            final RootBeanDefinition replacement = new RootBeanDefinition(ActorRef.class);
            replacement.setTargetType(original.getResolvableType());
            replacement.setQualifiedElement(original.getQualifiedElement());
            replacement.setPrimary(original.isPrimary());
            replacement.setInstanceSupplier(() -> probe(actorBean).ref());
            replacement.setDescription("TestProbe replacing the actor of the @TroupeActor bean '" + actorBean + "'");
            replacement.setAttribute(ActorBeanRegistrar.ACTOR_BEAN_ATTRIBUTE, actorBean);
            registry.removeBeanDefinition(refBean);
            registry.registerBeanDefinition(refBean, replacement);
            d.resolvedBean = actorBean;
        }
    }

    /** @return the probe that replaces the actor of that bean */
    TestProbe<?> probe(String actorBean) {
        return probes.computeIfAbsent(actorBean, name -> TestProbe.create(beanFactory.getBean(ActorSystem.class)));
    }

    List<ProbeDefinition> definitions() {
        return definitions;
    }

    private static String actorBean(ConfigurableListableBeanFactory beanFactory, ProbeDefinition d) {
        if (!d.beanName.isEmpty()) {
            final String ref = d.beanName + ActorBeanRegistrar.REF_SUFFIX;
            if (!beanFactory.containsBeanDefinition(ref)
                || !d.beanName.equals(beanFactory.getMergedBeanDefinition(ref).getAttribute(ActorBeanRegistrar.ACTOR_BEAN_ATTRIBUTE))) {
                throw new IllegalStateException("@TroupeActorProbe(\"" + d.beanName + "\") on " + d.field
                    + ": there is no @TroupeActor bean named '" + d.beanName + "'");
            }
            return d.beanName;
        }
        final List<String> candidates = new ArrayList<>();
        for (String name : beanFactory.getBeanDefinitionNames()) {
            final BeanDefinition bd = beanFactory.getMergedBeanDefinition(name);
            if (bd instanceof RootBeanDefinition root && root.getAttribute(ActorBeanRegistrar.ACTOR_BEAN_ATTRIBUTE) instanceof String actorBean
                && root.getResolvableType().as(ActorRef.class).getGeneric(0).resolve() == d.messageType.resolve()) {
                candidates.add(actorBean);
            }
        }
        if (candidates.size() != 1) {
            throw new IllegalStateException("@TroupeActorProbe on " + d.field + ": " + (candidates.isEmpty()
                ? "no @TroupeActor bean takes " + d.messageType : "several @TroupeActor beans take " + d.messageType + ": "
                + candidates + "; name one, as in @TroupeActorProbe(\"" + candidates.get(0) + "\")"));
        }
        return candidates.get(0);
    }

    /** One annotated field. */
    static final class ProbeDefinition {
        final String field;
        final String beanName;
        final ResolvableType messageType;
        volatile String resolvedBean;

        ProbeDefinition(String field, String beanName, ResolvableType messageType) {
            this.field = field;
            this.beanName = beanName;
            this.messageType = messageType;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ProbeDefinition p && p.field.equals(field) && p.beanName.equals(beanName)
                && p.messageType.toString().equals(messageType.toString());
        }

        @Override
        public int hashCode() {
            return field.hashCode() * 31 + beanName.hashCode();
        }
    }
}
