/**
 * The instrumentation SPI, for tracing and observation libraries (the Spring Boot starter's
 * Micrometer Observation support implements it): {@link dev.troupe.actor.spi.instrumentation.MessageInstrumentation},
 * the hooks the runtime calls around the messages of one system, and
 * {@link dev.troupe.actor.spi.instrumentation.MessageContext}, what a traced message carries beside it
 * (its propagation headers, which a transport sends along). Installed with
 * {@code ActorSystemSettings.Builder.instrumentation}; without one the runtime calls nothing and
 * allocates nothing more per message. Application code needs none of it.
 *
 * <p>The one package of the SPI that the API names (the settings that install it), as
 * {@code java.nio.file.FileSystem} names its {@code spi.FileSystemProvider}.
 */
package dev.troupe.actor.spi.instrumentation;
