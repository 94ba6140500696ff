package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DeadLetterReason;
import dev.troupe.spring.TroupeActor;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** Messages in flight when the context closes are processed or counted as dead letters; none vanish. */
class GracefulShutdownTests {

    private static final int MESSAGES = 2_000;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(TroupeAutoConfiguration.class))
        .withUserConfiguration(SlowConfig.class)
        .withPropertyValues("troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true");

    @Test
    void closeWithShortDrainShouldProcessSomeAndDeadLetterTheRestAsShutdown() {
        runner.withPropertyValues("troupe.shutdown.timeout=100ms").run(context -> {
            final SlowConfig config = context.getBean(SlowConfig.class);
            final ActorSystem system = context.getBean(ActorSystem.class);
            @SuppressWarnings("unchecked")
            final ActorRef<Integer> slow = context.getBean("slowRef", ActorRef.class);
            // About 2 s of work (1 ms each) against a 100 ms drain.
            for (int i = 0; i < MESSAGES; i++) {
                slow.tell(i);
            }
            context.close();
            system.whenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
            // Told after the close: a dead letter too, never lost.
            slow.tell(-1);

            final long processed = config.processed.get();
            final long shutdownLetters = system.deadLetters().count(DeadLetterReason.SHUTDOWN);
            final long otherLetters = system.deadLetters().total() - shutdownLetters;
            assertThat(processed).isPositive().isLessThan(MESSAGES);
            assertThat(shutdownLetters).isPositive();
            assertThat(processed + system.deadLetters().total()).isEqualTo(MESSAGES + 1);
            assertThat(otherLetters).isLessThanOrEqualTo(1);
        });
    }

    @Test
    void closeWithLongEnoughDrainShouldProcessEverything() {
        runner.withPropertyValues("troupe.shutdown.timeout=20s").run(context -> {
            final SlowConfig config = context.getBean(SlowConfig.class);
            final ActorSystem system = context.getBean(ActorSystem.class);
            @SuppressWarnings("unchecked")
            final ActorRef<Integer> slow = context.getBean("slowRef", ActorRef.class);
            for (int i = 0; i < 200; i++) {
                slow.tell(i);
            }
            context.close();
            assertThat(system.isTerminated()).isTrue();
            assertThat(config.processed.get()).isEqualTo(200);
            assertThat(system.deadLetters().total()).isZero();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class SlowConfig {
        final AtomicInteger processed = new AtomicInteger();

        @Bean
        @TroupeActor
        Behavior<Integer> slow() {
            return Behaviors.receiveMessage(n -> {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                processed.incrementAndGet();
                return Behaviors.same();
            });
        }
    }
}
