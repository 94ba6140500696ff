package dev.troupe.spring.observation;

import dev.troupe.actor.ActorRef;
import dev.troupe.actor.spi.InternalActorRef;
import dev.troupe.actor.spi.instrumentation.MessageContext;
import dev.troupe.actor.spi.instrumentation.MessageInstrumentation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Troupe's messages as Micrometer observations ({@link TroupeObservationDocumentation}), installed
 * on the actor system by {@code troupe.observations.enabled=true}.
 *
 * <ul>
 *   <li>A tell made inside an observation (an HTTP request, an ask, the processing of a traced
 *       message, any {@code Observation} in scope on the sending thread) is a
 *       {@code troupe.message.send} producer observation, child of the current one; its tracer
 *       writes its propagation headers into the message's {@link MessageContext}. A tell made
 *       outside any observation is not observed: it costs one thread-local read and allocates
 *       nothing.</li>
 *   <li>The actor processes a traced message inside a {@code troupe.message.process} consumer
 *       observation, in scope (so Micrometer Tracing puts the trace and span ids in the MDC),
 *       child of the send: through the headers a tracer extracts (on this node or, through the
 *       transport's header block, on another one) and, on this node, as its parent observation.</li>
 *   <li>An ask is a {@code troupe.ask} observation, always, in scope while the request is told (so
 *       the request's send is its child), stopped when the reply, the timeout or another failure
 *       ends it.</li>
 * </ul>
 *
 * <p>Cost when on: a traced tell allocates its context, the send and process observations and
 * what the registry's handlers make (a tracer's spans and headers); see {@code docs/spring.md}.
 */
public final class ObservationMessageInstrumentation implements MessageInstrumentation {

    private final ObservationRegistry registry;
    private final String systemName;
    private final TroupeSendObservationConvention sendConvention;
    private final TroupeProcessObservationConvention processConvention;
    private final TroupeAskObservationConvention askConvention;

    /**
     * @param registry the registry
     * @param systemName the name of the actor system it is installed on, the observations' {@code system} tag
     * @param sendConvention a convention of the application's for sends, or null for the default (and any global one)
     * @param processConvention likewise for processing
     * @param askConvention likewise for asks
     */
    public ObservationMessageInstrumentation(ObservationRegistry registry, String systemName,
                                             TroupeSendObservationConvention sendConvention,
                                             TroupeProcessObservationConvention processConvention,
                                             TroupeAskObservationConvention askConvention) {
        this.registry = registry;
        this.systemName = systemName;
        this.sendConvention = sendConvention;
        this.processConvention = processConvention;
        this.askConvention = askConvention;
    }

    /**
     * The default conventions.
     *
     * @param registry the registry
     * @param systemName the name of the actor system it is installed on, the observations' {@code system} tag
     */
    public ObservationMessageInstrumentation(ObservationRegistry registry, String systemName) {
        this(registry, systemName, null, null, null);
    }

    @Override
    public MessageContext onSend(ActorRef<?> recipient, Object message) {
        // Outside any observation: not observed, nothing allocated (a thread-local read).
        final Observation parent = registry.getCurrentObservation();
        if (parent == null || parent.isNoop()) {
            return null;
        }
        final MessageContext carrier = new MessageContext();
        final TroupeSendContext context = new TroupeSendContext(systemName, carrier, recipient, message,
            recipient instanceof InternalActorRef && !((InternalActorRef<?>) recipient).isLocal());
        final Observation send = TroupeObservationDocumentation.MESSAGE_SEND.observation(sendConvention,
            DefaultTroupeSendObservationConvention.INSTANCE, () -> context, registry);
        if (send.isNoop()) {
            return null;
        }
        // the send is the moment the message is queued: started and stopped here, its headers injected at start
        send.parentObservation(parent).start();
        send.stop();
        carrier.local(send);
        return carrier;
    }

    @Override
    public Object beforeProcess(ActorRef<?> recipient, String behaviorClass, Object message, MessageContext context) {
        final Object local = context.local();
        final TroupeProcessContext c = new TroupeProcessContext(systemName, context, recipient, behaviorClass, message, local == null);
        final Observation process = TroupeObservationDocumentation.MESSAGE_PROCESS.observation(processConvention,
            DefaultTroupeProcessObservationConvention.INSTANCE, () -> c, registry);
        if (local instanceof Observation) {
            process.parentObservation((Observation) local);
        }
        return process.start().openScope();
    }

    @Override
    public void afterProcess(Object token, Throwable failure) {
        final Observation.Scope scope = (Observation.Scope) token;
        final Observation process = scope.getCurrentObservation();
        scope.close();
        if (failure != null) {
            process.error(failure);
        }
        process.stop();
    }

    @Override
    public Object beforeAsk(ActorRef<?> target, Object request) {
        final TroupeAskContext c = new TroupeAskContext(systemName, target, request);
        return TroupeObservationDocumentation.ASK.observation(askConvention, DefaultTroupeAskObservationConvention.INSTANCE, () -> c, registry)
            .start().openScope();
    }

    @Override
    public void afterAskSent(Object token) {
        ((Observation.Scope) token).close();
    }

    @Override
    public void askCompleted(Object token, Throwable failure) {
        final Observation ask = ((Observation.Scope) token).getCurrentObservation();
        if (failure != null) {
            ask.error(failure);
        }
        ask.stop();
    }
}
