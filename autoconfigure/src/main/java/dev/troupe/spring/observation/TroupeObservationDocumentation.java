package dev.troupe.spring.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations Troupe makes when {@code troupe.observations.enabled=true}: a tell is a
 * producer/consumer pair ({@link #MESSAGE_SEND} on the sending thread, {@link #MESSAGE_PROCESS}
 * on the actor's thread, its child), also across nodes, and an ask is {@link #ASK}, the parent of
 * its request's send.
 */
public enum TroupeObservationDocumentation implements ObservationDocumentation {

    /** A user message told to a local actor or a remote ref, inside an observation. */
    MESSAGE_SEND {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultTroupeSendObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return new KeyName[] {LowCardinalityKeys.SYSTEM, LowCardinalityKeys.MESSAGE_TYPE, LowCardinalityKeys.REMOTE};
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return new KeyName[] {HighCardinalityKeys.ACTOR_PATH};
        }

        @Override
        public String getPrefix() {
            return "troupe.";
        }
    },

    /** An actor processing a message that was sent inside an observation (on this node or another). */
    MESSAGE_PROCESS {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultTroupeProcessObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return new KeyName[] {LowCardinalityKeys.SYSTEM, LowCardinalityKeys.ACTOR_CLASS, LowCardinalityKeys.MESSAGE_TYPE,
                LowCardinalityKeys.REMOTE};
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return new KeyName[] {HighCardinalityKeys.ACTOR_PATH};
        }

        @Override
        public String getPrefix() {
            return "troupe.";
        }
    },

    /** An ask, from its request to its reply or failure. */
    ASK {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultTroupeAskObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return new KeyName[] {LowCardinalityKeys.SYSTEM, LowCardinalityKeys.MESSAGE_TYPE, LowCardinalityKeys.REMOTE};
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return new KeyName[] {HighCardinalityKeys.ACTOR_PATH};
        }

        @Override
        public String getPrefix() {
            return "troupe.";
        }
    };

    /** Tags of the meters and spans, a bounded set of values each. */
    public enum LowCardinalityKeys implements KeyName {

        /** Name of the local actor system, as the {@code system} tag of every other Troupe meter. */
        SYSTEM {
            @Override
            public String asString() {
                return "system";
            }
        },

        /** Class that defined the behavior of the actor that processes the message. */
        ACTOR_CLASS {
            @Override
            public String asString() {
                return "troupe.actor.class";
            }
        },

        /** Class of the message (the request, for an ask). */
        MESSAGE_TYPE {
            @Override
            public String asString() {
                return "troupe.message.type";
            }
        },

        /** Whether the message crosses nodes: sent to a remote ref, or processed after arriving from another node. */
        REMOTE {
            @Override
            public String asString() {
                return "troupe.remote";
            }
        }
    }

    /** Span attributes only: one value per actor. */
    public enum HighCardinalityKeys implements KeyName {

        /** Path of the recipient (the actor asked, for an ask). */
        ACTOR_PATH {
            @Override
            public String asString() {
                return "troupe.actor.path";
            }
        }
    }
}
