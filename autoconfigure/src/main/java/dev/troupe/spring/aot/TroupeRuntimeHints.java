package dev.troupe.spring.aot;

import dev.troupe.spring.autoconfigure.TroupeProperties;
import dev.troupe.spring.autoconfigure.TroupeClusterProperties;
import dev.troupe.spring.autoconfigure.TroupePersistenceProperties;
import dev.troupe.spring.autoconfigure.TroupeRemoteProperties;
import dev.troupe.spring.endpoint.TroupeEndpoint;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * What the starter reflects on at run time, for a GraalVM native image: the {@code troupe.*}
 * properties classes (bound with a {@code Binder} before the beans exist, and read for the
 * unknown-key check), the failure analyzers Boot instantiates from {@code spring.factories}, and the
 * records the {@code troupe} endpoint answers with (serialized by Jackson). The message types of
 * actor and remote-ref beans are registered per application by {@link TroupeMessageTypesAotProcessor}.
 */
class TroupeRuntimeHints implements RuntimeHintsRegistrar {

    /** Instantiated reflectively from META-INF/spring.factories. */
    static final String[] FACTORIES = {
        "dev.troupe.spring.diagnostics.TroupeConfigurationFailureAnalyzer",
        "dev.troupe.spring.diagnostics.TroupePropertyFailureAnalyzer",
        "dev.troupe.spring.diagnostics.InvalidSettingFailureAnalyzer",
        "dev.troupe.spring.diagnostics.MissingJvmOptionFailureAnalyzer"
    };

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        BindableRuntimeHintsRegistrar.forTypes(TroupeProperties.class, TroupeRemoteProperties.class, TroupeClusterProperties.class,
                TroupePersistenceProperties.class)
            .registerHints(hints, classLoader);
        for (Class<?> c : new Class<?>[] {TroupeProperties.class, TroupeRemoteProperties.class, TroupeClusterProperties.class,
            TroupePersistenceProperties.class}) {
            introspect(hints, c);
        }
        for (String factory : FACTORIES) {
            hints.reflection().registerType(TypeReference.of(factory), MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
        }
        new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
            TroupeEndpoint.TroupeReport.class, TroupeEndpoint.ActorPage.class, TroupeEndpoint.MailboxEntry.class,
            TroupeEndpoint.DispatcherInfo.class, TroupeEndpoint.DeadLetterInfo.class);
        // the persistence section's records, named so that the hints load without troupe-persistence
        for (String record : new String[] {"PersistenceInfo", "BatchInfo", "RecoveriesInfo", "RecoveryInfo", "StashInfo", "StoreInfo"}) {
            hints.reflection().registerType(TypeReference.of("dev.troupe.spring.persistence.TroupePersistenceReport$" + record),
                MemberCategory.INVOKE_PUBLIC_METHODS, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
        }
    }

    /** The unknown-key check reads the getters of each properties class and its nested classes. */
    private static void introspect(RuntimeHints hints, Class<?> type) {
        hints.reflection().registerType(type, MemberCategory.INVOKE_PUBLIC_METHODS);
        for (Class<?> nested : type.getDeclaredClasses()) {
            introspect(hints, nested);
        }
    }
}
