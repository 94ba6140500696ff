package dev.troupe.spring.autoconfigure;

import dev.troupe.spring.health.TroupeHealthIndicator;
import dev.troupe.spring.health.TroupeReadinessGroups;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class TroupeHealthAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(TroupeAutoConfiguration.class, TroupeHealthAutoConfiguration.class))
        .withPropertyValues("troupe.default-dispatcher.threads=1", "troupe.daemon-threads=true");

    @Test
    void runShouldAddHealthIndicatorAndReadinessMembership() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(TroupeHealthIndicator.class).hasBean("troupeHealthIndicator")
                .hasSingleBean(TroupeReadinessGroups.class);
            assertThat(context.getBean(TroupeHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void runWhenHealthIndicatorDisabledShouldNotAddIt() {
        runner.withPropertyValues("management.health.troupe.enabled=false")
            .run(context -> assertThat(context).doesNotHaveBean(TroupeHealthIndicator.class));
    }

    @Test
    void runWhenReadinessDisabledShouldLeaveGroupsAlone() {
        runner.withPropertyValues("troupe.health.readiness=false").run(context ->
            assertThat(context).hasSingleBean(TroupeHealthIndicator.class).doesNotHaveBean(TroupeReadinessGroups.class));
    }

    @Test
    void runWithoutHealthOnClasspathShouldNotAddIt() {
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
            .run(context -> assertThat(context).doesNotHaveBean(TroupeHealthIndicator.class));
    }

    @Test
    void runWithUserIndicatorShouldBackOff() {
        runner.withBean("troupeHealthIndicator", HealthIndicator.class, () -> () -> Health.up().withDetail("mine", true).build())
            .run(context -> {
                assertThat(context).doesNotHaveBean(TroupeHealthIndicator.class);
                assertThat(context.getBean("troupeHealthIndicator", HealthIndicator.class).health().getDetails()).containsKey("mine");
            });
    }

    @Test
    void badBacklogRecoveryShouldFailNamingBothProperties() {
        runner.withPropertyValues("troupe.health.mailbox-backlog-threshold=100", "troupe.health.mailbox-backlog-recovery=100")
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(TroupeAutoConfigurationTests.messages(context.getStartupFailure()))
                    .contains("troupe.health.mailbox-backlog-recovery (100) must be below troupe.health.mailbox-backlog-threshold (100)");
            });
    }
}
