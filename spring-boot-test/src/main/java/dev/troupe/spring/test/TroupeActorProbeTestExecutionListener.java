package dev.troupe.spring.test;

import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;
import org.springframework.util.ReflectionUtils;

/** Injects the probes into the {@link TroupeActorProbe} fields of each test instance. */
class TroupeActorProbeTestExecutionListener extends AbstractTestExecutionListener {

    /** Just before dependency injection (DependencyInjectionTestExecutionListener is 2000). */
    @Override
    public int getOrder() {
        return 1950;
    }

    @Override
    public void prepareTestInstance(TestContext testContext) {
        final Object test = testContext.getTestInstance();
        if (!hasProbeFields(test.getClass())) {
            return;
        }
        final ApplicationContext context = testContext.getApplicationContext();
        final ActorProbes probes = context.getBean(ActorProbes.BEAN_NAME, ActorProbes.class);
        ReflectionUtils.doWithFields(test.getClass(), field -> {
            final String key = field.getDeclaringClass().getName() + "." + field.getName();
            for (ActorProbes.ProbeDefinition d : probes.definitions()) {
                if (d.field.equals(key)) {
                    ReflectionUtils.makeAccessible(field);
                    ReflectionUtils.setField(field, test, probes.probe(d.resolvedBean));
                }
            }
        }, field -> field.isAnnotationPresent(TroupeActorProbe.class));
    }

    private static boolean hasProbeFields(Class<?> type) {
        final boolean[] found = new boolean[1];
        ReflectionUtils.doWithFields(type, field -> found[0] = true, field -> field.isAnnotationPresent(TroupeActorProbe.class));
        return found[0];
    }
}
