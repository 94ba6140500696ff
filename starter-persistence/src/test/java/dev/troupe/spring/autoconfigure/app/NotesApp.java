package dev.troupe.spring.autoconfigure.app;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** An application's configuration: its package is the auto-configuration package, as a {@code @SpringBootApplication}'s is. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class NotesApp {
}
