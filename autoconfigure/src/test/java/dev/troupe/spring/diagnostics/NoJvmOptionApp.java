package dev.troupe.spring.diagnostics;

import dev.troupe.actor.Behavior;
import dev.troupe.spring.Greeter;
import dev.troupe.spring.TroupeActor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A Boot application with an actor bean and the remote transport on, started by
 * {@link MissingJvmOptionReportTests} in a JVM without {@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED},
 * the way a user starts one: {@code SpringApplication.run} from {@code main}, properties as arguments.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class NoJvmOptionApp {

    @Bean
    @TroupeActor
    Behavior<Greeter.Greet> greeter() {
        return Greeter.create("hello ");
    }

    public static void main(String[] args) {
        SpringApplication.run(NoJvmOptionApp.class, args);
    }
}
