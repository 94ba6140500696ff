package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorSystem;
import dev.troupe.spring.web.PeerStates;
import dev.troupe.spring.web.TroupeExceptionHandler;
import dev.troupe.spring.web.TroupeProblemDetails;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.http.ProblemDetail;

/**
 * Problem details for failed asks in Spring MVC and WebFlux applications: an ask timeout
 * answers {@code 504}, an ask to an actor on an unreachable node {@code 503}, each with an RFC
 * 9457 body naming the actor and the timeout. On with {@code troupe.web.problem-details.enabled},
 * which defaults to Boot's own switch ({@code spring.mvc.problemdetails.enabled} or
 * {@code spring.webflux.problemdetails.enabled}).
 */
@AutoConfiguration(after = {TroupeAutoConfiguration.class, TroupeRemoteAutoConfiguration.class})
@ConditionalOnClass({ProblemDetail.class, ActorSystem.class})
@ConditionalOnBean(ActorSystem.class)
public class TroupeWebAutoConfiguration {

    static final String PROPERTY = "troupe.web.problem-details.enabled";

    @Bean
    @ConditionalOnMissingBean
    TroupeProblemDetails troupeProblemDetails(ObjectProvider<PeerStates> peers) {
        return new TroupeProblemDetails(peers.getIfAvailable());
    }

    /** Spring MVC. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @Conditional(OnMvcProblemDetails.class)
    static class Mvc {

        @Bean
        @ConditionalOnMissingBean
        TroupeExceptionHandler troupeExceptionHandler(TroupeProblemDetails problems) {
            return new TroupeExceptionHandler(problems);
        }
    }

    /** WebFlux. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @Conditional(OnWebFluxProblemDetails.class)
    static class WebFlux {

        @Bean
        @ConditionalOnMissingBean
        TroupeExceptionHandler troupeExceptionHandler(TroupeProblemDetails problems) {
            return new TroupeExceptionHandler(problems);
        }
    }

    /** {@code troupe.web.problem-details.enabled} when set, else Boot's own problem-details switch. */
    abstract static class OnProblemDetails extends SpringBootCondition {

        private final String bootProperty;

        OnProblemDetails(String bootProperty) {
            this.bootProperty = bootProperty;
        }

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            final Boolean own = context.getEnvironment().getProperty(PROPERTY, Boolean.class);
            if (own != null) {
                return own ? ConditionOutcome.match(PROPERTY + " is true") : ConditionOutcome.noMatch(PROPERTY + " is false");
            }
            final boolean boot = context.getEnvironment().getProperty(bootProperty, Boolean.class, false);
            return boot ? ConditionOutcome.match(bootProperty + " is true") : ConditionOutcome.noMatch(bootProperty + " is not true");
        }
    }

    static final class OnMvcProblemDetails extends OnProblemDetails {
        OnMvcProblemDetails() {
            super("spring.mvc.problemdetails.enabled");
        }
    }

    static final class OnWebFluxProblemDetails extends OnProblemDetails {
        OnWebFluxProblemDetails() {
            super("spring.webflux.problemdetails.enabled");
        }
    }
}
