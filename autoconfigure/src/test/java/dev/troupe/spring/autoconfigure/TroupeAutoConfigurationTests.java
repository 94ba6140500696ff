package dev.troupe.spring.autoconfigure;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.ActorSystem;
import dev.troupe.actor.ActorSystemSettings;
import dev.troupe.actor.AskPattern;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.DispatcherSettings;
import dev.troupe.spring.ActorSystemCustomizer;
import dev.troupe.spring.ActorSystemLifecycle;
import dev.troupe.spring.Counter;
import dev.troupe.spring.Greeter;
import dev.troupe.spring.TroupeActor;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.Order;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class TroupeAutoConfigurationTests {

    private static final Duration ASK = Duration.ofSeconds(5);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(TroupeAutoConfiguration.class))
        .withPropertyValues("troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true");

    @Test
    void runShouldCreateActorSystemFromProperties() {
        runner.withPropertyValues("troupe.system-name=shop", "troupe.default-dispatcher.throughput=16",
                "troupe.dispatchers.io.threads=2", "troupe.default-mailbox.capacity=100", "troupe.dead-letters.sample-size=8")
            .run(context -> {
                assertThat(context).hasSingleBean(ActorSystem.class).hasSingleBean(ActorSystemLifecycle.class);
                final ActorSystem system = context.getBean(ActorSystem.class);
                assertThat(system.name()).isEqualTo("shop");
                final ActorSystemSettings s = system.settings();
                assertThat(s.defaultDispatcher().threads()).isEqualTo(1);
                assertThat(s.defaultDispatcher().throughput()).isEqualTo(16);
                assertThat(s.dispatchers()).containsKey("io");
                assertThat(s.dispatchers().get("io").threads()).isEqualTo(2);
                assertThat(s.defaultMailbox().capacity()).isEqualTo(100);
                assertThat(s.deadLetterSampleSize()).isEqualTo(8);
            });
    }

    @Test
    void runWithMdcEveryTurnShouldAskTheRuntimeForTheMdcOnEveryTurn() {
        runner.run(context -> assertThat(context.getBean(ActorSystem.class).settings().mdcEveryTurn()).isFalse());
        runner.withPropertyValues("troupe.logging.mdc-every-turn=true")
            .run(context -> assertThat(context.getBean(ActorSystem.class).settings().mdcEveryTurn()).isTrue());
    }

    @Test
    void runWhenDisabledShouldNotCreateActorSystem() {
        runner.withPropertyValues("troupe.enabled=false")
            .run(context -> assertThat(context).doesNotHaveBean(ActorSystem.class).doesNotHaveBean(ActorSystemLifecycle.class));
    }

    @Test
    void runWithoutActorRuntimeShouldNotCreateActorSystem() {
        runner.withClassLoader(new FilteredClassLoader(ActorSystem.class))
            .run(context -> assertThat(context).doesNotHaveBean("troupeActorSystem"));
    }

    @Test
    void runWithUserActorSystemShouldBackOff() {
        runner.withUserConfiguration(UserSystemConfig.class).run(context -> {
            assertThat(context).hasSingleBean(ActorSystem.class);
            assertThat(context.getBean(ActorSystem.class).name()).isEqualTo("mine");
            // The rest of the starter works with the user's system.
            assertThat(context.getBean(ActorSystemLifecycle.class).system()).isSameAs(context.getBean(ActorSystem.class));
        });
    }

    @Test
    void runWithUserSettingsShouldBackOff() {
        runner.withBean(ActorSystemSettings.class, () -> ActorSystemSettings.builder()
                .defaultDispatcher(DispatcherSettings.of("default").withThreads(1).withThroughput(7)).daemonThreads(true).build())
            .run(context -> assertThat(context.getBean(ActorSystem.class).settings().defaultDispatcher().throughput()).isEqualTo(7));
    }

    @Test
    void customizersShouldBeAppliedInOrder() {
        runner.withUserConfiguration(CustomizerConfig.class).run(context -> {
            assertThat(context.getBean(CustomizerConfig.class).calls).containsExactly("first", "second");
            // "second" ran last, so its value wins.
            assertThat(context.getBean(ActorSystem.class).settings().defaultDispatcher().throughput()).isEqualTo(2);
        });
    }

    @Test
    void badDispatcherThreadsShouldFailNamingTheProperty() {
        runner.withPropertyValues("troupe.default-dispatcher.threads=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(refusedProperty(context.getStartupFailure())).isEqualTo("troupe.default-dispatcher.threads");
        });
    }

    @Test
    void badSystemNameShouldFailNamingTheProperty() {
        runner.withPropertyValues("troupe.system-name=my shop").run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure())).contains("troupe.system-name: invalid system name 'my shop'");
        });
    }

    @Test
    void badNamedDispatcherAndReservedNameShouldFailNamingEachProperty() {
        runner.withPropertyValues("troupe.dispatchers.io.throughput=-1").run(context -> {
            assertThat(context).hasFailed();
            assertThat(refusedProperty(context.getStartupFailure())).isEqualTo("troupe.dispatchers.io.throughput");
        });
        runner.withPropertyValues("troupe.dispatchers.pinned.threads=1").run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure()))
                .contains("troupe.dispatchers.pinned: the dispatcher name 'pinned' is reserved");
        });
    }

    @Test
    void unparsableDurationShouldFailNamingTheProperty() {
        runner.withPropertyValues("troupe.dispatchers.io.max-park=soon").run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure())).contains("troupe.dispatchers.io.max-park");
        });
    }

    @Test
    void shutdownTimeoutLongerThanShutdownPhaseShouldFailNamingBothProperties() {
        runner.withPropertyValues("troupe.shutdown.timeout=40s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining("troupe.shutdown.timeout")
                .hasMessageContaining("spring.lifecycle.timeout-per-shutdown-phase");
        });
        runner.withPropertyValues("troupe.shutdown.timeout=40s", "spring.lifecycle.timeout-per-shutdown-phase=60s")
            .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void actorBeanShouldBeInjectableByGenericTypeAndByName() {
        runner.withUserConfiguration(ActorsConfig.class, CounterUser.class).run(context -> {
            assertThat(context).hasNotFailed();
            final CounterUser user = context.getBean(CounterUser.class);
            assertThat(user.counter.path().toString()).isEqualTo("troupe://troupe/user/counter");
            assertThat(user.byName).isSameAs(user.counter);
            assertThat(context.getBean("counterRef")).isSameAs(user.counter);
            final ActorSystem system = context.getBean(ActorSystem.class);
            user.counter.tell(new Counter.Increment());
            user.counter.tell(new Counter.Increment());
            final long count = AskPattern.<Counter.Command, Long>ask(user.counter, Counter.Get::new, ASK, system)
                .toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(count).isEqualTo(2);
            assertThat(context.getBeanNamesForType(ResolvableType.forClassWithGenerics(ActorRef.class, Counter.Command.class)))
                .containsExactly("counterRef");
        });
    }

    @Test
    void twoActorsOfOneMessageTypeShouldBeToldApartByQualifier() {
        runner.withUserConfiguration(GreetersConfig.class, GreeterUser.class).run(context -> {
            assertThat(context).hasNotFailed();
            final GreeterUser user = context.getBean(GreeterUser.class);
            final ActorSystem system = context.getBean(ActorSystem.class);
            assertThat(ask(user.english, system)).isEqualTo("hello ann");
            assertThat(ask(user.french, system)).isEqualTo("bonjour ann");
            // The french greeter's actor has its own name, and that name is a qualifier too.
            assertThat(user.french.path().name()).isEqualTo("bonjour");
            assertThat(user.frenchByActorName).isSameAs(user.french);
        });
    }

    @Test
    void twoActorsWithOneNameShouldFailNamingTheBean() {
        runner.withUserConfiguration(DuplicateNamesConfig.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasMessageContaining("'second'")
                .hasMessageContaining("actor name 'shared'").hasMessageContaining("'first'");
        });
    }

    @Test
    void rawBehaviorShouldFailNamingTheBean() {
        runner.withUserConfiguration(RawConfig.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasMessageContaining("@TroupeActor bean 'raw'")
                .hasMessageContaining("without a message type");
        });
    }

    @Test
    void wildcardBehaviorShouldFailNamingTheBean() {
        runner.withUserConfiguration(WildcardConfig.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasMessageContaining("@TroupeActor bean 'anything'");
        });
    }

    @Test
    void contextCloseShouldTerminateTheSystem() {
        final ActorSystem[] system = new ActorSystem[1];
        runner.run(context -> system[0] = context.getBean(ActorSystem.class));
        system[0].whenTerminated().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
        assertThat(system[0].isTerminated()).isTrue();
    }

    /** @return every message of the cause chain, as a user sees them in the startup failure report */
    /** The property the failure report names for the runtime's refusal of a setting. */
    static String refusedProperty(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof dev.troupe.actor.InvalidSettingException e) {
                return dev.troupe.spring.diagnostics.TroupeSettingNames.property(e.setting(), e.element());
            }
        }
        throw new AssertionError("no InvalidSettingException in " + failure);
    }

    /** @return the messages of the failure's chain, and the Action of each Troupe failure in it, as the report shows them */
    static String messages(Throwable failure) {
        final StringBuilder sb = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            sb.append(t.getMessage()).append('\n');
            if (t instanceof dev.troupe.spring.diagnostics.TroupeConfigurationException c) {
                sb.append(c.action()).append('\n');
            } else if (t instanceof dev.troupe.spring.diagnostics.InvalidTroupePropertyException p && p.action() != null) {
                sb.append(p.action()).append('\n');
            }
        }
        return sb.toString();
    }

    private static String ask(ActorRef<Greeter.Greet> greeter, ActorSystem system) throws Exception {
        return AskPattern.<Greeter.Greet, String>ask(greeter, r -> new Greeter.Greet("ann", r), ASK, system)
            .toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Configuration(proxyBeanMethods = false)
    static class UserSystemConfig {
        @Bean(destroyMethod = "terminate")
        ActorSystem mySystem() {
            return ActorSystem.create("mine", ActorSystemSettings.builder()
                .defaultDispatcher(DispatcherSettings.of("default").withThreads(1)).daemonThreads(true).build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomizerConfig {
        final List<String> calls = new ArrayList<>();

        @Bean
        @Order(2)
        ActorSystemCustomizer second() {
            return b -> {
                calls.add("second");
                b.defaultDispatcher(DispatcherSettings.of("default").withThreads(1).withThroughput(2));
            };
        }

        @Bean
        @Order(1)
        ActorSystemCustomizer first() {
            return b -> {
                calls.add("first");
                b.defaultDispatcher(DispatcherSettings.of("default").withThreads(1).withThroughput(1));
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ActorsConfig {
        @Bean
        @TroupeActor
        Behavior<Counter.Command> counter() {
            return Counter.create();
        }
    }

    static class CounterUser {
        @Autowired
        ActorRef<Counter.Command> counter;

        @Autowired
        @Qualifier("counter")
        ActorRef<Counter.Command> byName;
    }

    @Configuration(proxyBeanMethods = false)
    static class GreetersConfig {
        @Bean
        @TroupeActor
        Behavior<Greeter.Greet> english() {
            return Greeter.create("hello ");
        }

        @Bean
        @TroupeActor(name = "bonjour")
        Behavior<Greeter.Greet> french() {
            return Greeter.create("bonjour ");
        }
    }

    static class GreeterUser {
        @Autowired
        @Qualifier("english")
        ActorRef<Greeter.Greet> english;

        @Autowired
        @Qualifier("french")
        ActorRef<Greeter.Greet> french;

        @Autowired
        @Qualifier("bonjour")
        ActorRef<Greeter.Greet> frenchByActorName;
    }

    @Configuration(proxyBeanMethods = false)
    static class DuplicateNamesConfig {
        @Bean
        @TroupeActor(name = "shared")
        Behavior<Counter.Command> first() {
            return Counter.create();
        }

        @Bean
        @TroupeActor(name = "shared")
        Behavior<Counter.Command> second() {
            return Counter.create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RawConfig {
        @Bean
        @TroupeActor
        @SuppressWarnings("rawtypes")
        Behavior raw() {
            return Behaviors.ignore();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class WildcardConfig {
        @Bean
        @TroupeActor
        Behavior<?> anything() {
            return Behaviors.ignore();
        }
    }
}
