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
 * 9457 body naming the actor and the timeout. On unless {@code troupe.web.problem-details.enabled=false},
 * whatever Boot's own switch ({@code spring.mvc.problemdetails.enabled}) says: that switch changes the
 * body of every error Spring answers, while this handler answers only Troupe's failed asks, which
 * without it are a 500 with an ERROR and a stack trace although nothing failed on the server. The
 * status is the point, as for Spring's own {@code AsyncRequestTimeoutException} (a 503 with or without
 * problem details); a handler of the application's own for these exceptions still wins.
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

    /** {@code troupe.web.problem-details.enabled}, true unless set to false. */
    abstract static class OnProblemDetails extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            final Boolean own = context.getEnvironment().getProperty(PROPERTY, Boolean.class);
            if (own == null) {
                return ConditionOutcome.match(PROPERTY + " is not set (on by default)");
            }
            return own ? ConditionOutcome.match(PROPERTY + " is true") : ConditionOutcome.noMatch(PROPERTY + " is false");
        }
    }

    static final class OnMvcProblemDetails extends OnProblemDetails {
    }

    static final class OnWebFluxProblemDetails extends OnProblemDetails {
    }
}
