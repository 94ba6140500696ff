package dev.troupe.actor.logfixture;

import dev.troupe.actor.AbstractBehavior;
import dev.troupe.actor.ActorContext;
import dev.troupe.actor.ActorRef;
import dev.troupe.actor.Behavior;
import dev.troupe.actor.Behaviors;
import dev.troupe.actor.Receive;

/**
 * Behaviors written in a package of their own, the way an application's {@code com.acme.orders}
 * would be, in each style the API offers: the logger of each is named after this class (or the
 * nested class for the class style).
 */
public final class Orders {

    private Orders() {
    }

    /** Asks the actor to log a line at INFO and one at DEBUG, then to report its logger's name. */
    public record Log(String text, ActorRef<String> loggerName) {
    }

    private static Behavior<Log> logging(ActorContext<Log> ctx, Log m) {
        ctx.log().info("info: {}", m.text());
        ctx.log().debug("debug: {}", m.text());
        m.loggerName().tell(ctx.log().getName());
        return Behaviors.same();
    }

    /** @return a builder behavior */
    public static Behavior<Log> built() {
        return Behaviors.setup(ctx -> Behaviors.receive(Log.class).onMessage(Log.class, m -> logging(ctx, m)).build());
    }

    /** @return a builder behavior without a setup around it, its handler a method reference */
    public static Behavior<Log> builtWithoutSetup() {
        return Behaviors.receive(Log.class).onAnyMessage(Orders::noContext).build();
    }

    private static Behavior<Log> noContext(Log m) {
        return Behaviors.same();
    }

    /** @return a functional behavior */
    public static Behavior<Log> functional() {
        return Behaviors.receive(Orders::logging);
    }

    /** @return a class-style behavior */
    public static Behavior<Log> classStyle() {
        return Behaviors.setup(OrderActor::new);
    }

    /** @return a functional behavior whose messages are logged */
    public static Behavior<Log> logged() {
        return Behaviors.logMessages(Behaviors.receive(Orders::logging));
    }

    /** The class style: its logger is named after this class. */
    public static final class OrderActor extends AbstractBehavior<Log> {
        OrderActor(ActorContext<Log> ctx) {
            super(ctx);
        }

        @Override
        public Receive<Log> createReceive() {
            return newReceiveBuilder().onMessage(Log.class, m -> logging(context(), m)).build();
        }
    }
}
