package dev.troupe.spring.aot;

import dev.troupe.spring.autoconfigure.ActorBeanRegistrar;
import org.springframework.aot.generate.GenerationContext;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.aot.BeanRegistrationCode;
import org.springframework.beans.factory.aot.BeanRegistrationCodeFragmentsDecorator;
import org.springframework.beans.factory.aot.BeanRegistrationExcludeFilter;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.javapoet.ClassName;
import org.springframework.javapoet.CodeBlock;

import java.util.Set;
import java.util.function.Predicate;

/**
 * Makes the bean definitions Troupe registers in code fit for Spring AOT, which cannot generate
 * code for an instance supplier given as a lambda ("instance supplier is not supported"):
 *
 * <ul>
 *   <li>An actor ref bean ({@code @TroupeActor}) gets generated code that calls
 *       {@link ActorBeanRegistrar#aotInstanceSupplier} with the bean's, the actor's name and its
 *       props, keeps its qualifier ({@link ActorBeanRegistrar#aotQualifier}) and the attributes the
 *       remote transport and the cluster read at runtime (message class, service key). Its
 *       behavior bean is found at build time, from the {@code @Bean} method's metadata that the
 *       generated context no longer has.</li>
 *   <li>Definitions their registrar makes again at every start from the environment (remote refs
 *       {@code troupe.remote.refs.*}, group routers {@code troupe.cluster.routers.*}) are left out of
 *       the generated context: the registrar is in it and registers them at startup as without AOT,
 *       from the properties the application runs with.</li>
 * </ul>
 *
 * Registered in {@code META-INF/spring/aot.factories}.
 */
class TroupeRefBeansAotProcessor implements BeanRegistrationAotProcessor, BeanRegistrationExcludeFilter {

    /** Attributes the runtime reads from an actor ref's definition; Spring AOT keeps them. */
    private static final Set<String> RUNTIME_ATTRIBUTES = Set.of(ActorBeanRegistrar.ACTOR_BEAN_ATTRIBUTE,
        ActorBeanRegistrar.MESSAGE_CLASS_ATTRIBUTE, ActorBeanRegistrar.SERVICE_KEY_ATTRIBUTE);

    @Override
    public boolean isExcludedFromAotProcessing(RegisteredBean registeredBean) {
        return Boolean.TRUE.equals(registeredBean.getMergedBeanDefinition().getAttribute(ActorBeanRegistrar.REGISTERED_AT_STARTUP_ATTRIBUTE));
    }

    @Override
    public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        final RootBeanDefinition definition = registeredBean.getMergedBeanDefinition();
        if (!(definition.getAttribute(ActorBeanRegistrar.ACTOR_BEAN_ATTRIBUTE) instanceof String behaviorBean)
            || definition.getAttribute("dev.troupe.spring.actorName") == null) {
            return null;
        }
        final String actorName = (String) definition.getAttribute("dev.troupe.spring.actorName");
        final String dispatcher = (String) definition.getAttribute("dev.troupe.spring.dispatcher");
        final int mailboxCapacity = (Integer) definition.getAttribute("dev.troupe.spring.mailboxCapacity");
        final boolean metrics = (Boolean) definition.getAttribute("dev.troupe.spring.metrics");
        final Class<?> messageClass = (Class<?>) definition.getAttribute(ActorBeanRegistrar.MESSAGE_CLASS_ATTRIBUTE);
        return BeanRegistrationAotContribution.withCustomCodeFragments(fragments -> new BeanRegistrationCodeFragmentsDecorator(fragments) {

            @Override
            public ClassName getTarget(RegisteredBean bean) {
                // beside the message type, whose class the generated target type names (it may be package-private)
                Class<?> top = messageClass;
                while (top.getEnclosingClass() != null) {
                    top = top.getEnclosingClass();
                }
                return ClassName.get(top);
            }

            @Override
            public CodeBlock generateSetBeanDefinitionPropertiesCode(GenerationContext context, BeanRegistrationCode code,
                                                                     RootBeanDefinition beanDefinition, Predicate<String> attributeFilter) {
                return CodeBlock.builder()
                    .add(super.generateSetBeanDefinitionPropertiesCode(context, code, beanDefinition, attributeFilter.or(RUNTIME_ATTRIBUTES::contains)))
                    .addStatement("beanDefinition.setQualifiedElement($T.aotQualifier($S))", ActorBeanRegistrar.class, behaviorBean)
                    .build();
            }

            @Override
            public CodeBlock generateInstanceSupplierCode(GenerationContext context, BeanRegistrationCode code, boolean allowDirectSupplierShortcut) {
                return CodeBlock.of("$T.aotInstanceSupplier($S, $S, $S, $L, $L)", ActorBeanRegistrar.class, behaviorBean, actorName,
                    dispatcher, mailboxCapacity, metrics);
            }
        });
    }
}
