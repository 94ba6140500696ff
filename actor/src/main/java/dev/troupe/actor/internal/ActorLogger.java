package dev.troupe.actor.internal;

import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.event.LoggingEvent;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.spi.LocationAwareLogger;
import org.slf4j.spi.LoggingEventAware;

import java.util.List;

/**
 * What {@code ctx.log()} returns: the actor's SLF4J logger, which puts the actor's MDC entries
 * ({@link ActorMdc}) before its first enabled call of a turn. A call whose level is off costs the
 * level check and nothing else, so an actor that logs at DEBUG with DEBUG off pays nothing for
 * the MDC either.
 *
 * <p>Everything goes to the logger named after the behavior's defining class. Calls reach it
 * through {@link LocationAwareLogger} (and the fluent API through {@link LoggingEventAware}) with
 * SLF4J's own caller boundary, so the caller a pattern's {@code %C}, {@code %M} or {@code %L}
 * shows is the actor's code, not this class.
 *
 * <p>Actor thread only, like the context that made it.
 */
final class ActorLogger extends AbstractLogger implements LoggingEventAware {

    private static final long serialVersionUID = 1L;

    /** The frames above the caller: the public methods this class inherits are declared there. */
    private static final String CALLER_BOUNDARY = AbstractLogger.class.getName();

    private final transient Logger delegate;
    private final transient ActorCell<?> cell;
    /** Null when the bound MDC adapter keeps nothing. */
    private final transient ActorMdc mdc;

    ActorLogger(Logger delegate, ActorCell<?> cell, ActorMdc mdc) {
        this.name = delegate.getName();
        this.delegate = delegate;
        this.cell = cell;
        this.mdc = mdc;
    }

    /** @return the logger this one writes to */
    Logger delegate() {
        return delegate;
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return CALLER_BOUNDARY;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern, Object[] arguments,
            Throwable throwable) {
        final ActorMdc.Previous previous = mdc == null ? null : mdc.beforeLog(cell);
        try {
            if (delegate instanceof LocationAwareLogger) {
                ((LocationAwareLogger) delegate).log(marker, CALLER_BOUNDARY, level.toInt(), messagePattern, arguments, throwable);
            } else {
                logPlainly(level, marker, messagePattern, arguments, throwable);
            }
        } finally {
            if (previous != null) {
                previous.restore();
            }
        }
    }

    /** The fluent API ({@code log.atInfo()...log()}): its builder hands the event here. */
    @Override
    public void log(LoggingEvent event) {
        final ActorMdc.Previous previous = mdc == null ? null : mdc.beforeLog(cell);
        try {
            if (delegate instanceof LoggingEventAware) {
                ((LoggingEventAware) delegate).log(event);
            } else {
                final List<Marker> markers = event.getMarkers();
                logPlainly(event.getLevel(), markers == null || markers.isEmpty() ? null : markers.get(0), event.getMessage(),
                    event.getArgumentArray(), event.getThrowable());
            }
        } finally {
            if (previous != null) {
                previous.restore();
            }
        }
    }

    private void logPlainly(Level level, Marker marker, String message, Object[] arguments, Throwable throwable) {
        final Object[] args = withThrowable(arguments, throwable);
        switch (level) {
            case TRACE:
                delegate.trace(marker, message, args);
                break;
            case DEBUG:
                delegate.debug(marker, message, args);
                break;
            case INFO:
                delegate.info(marker, message, args);
                break;
            case WARN:
                delegate.warn(marker, message, args);
                break;
            default:
                delegate.error(marker, message, args);
                break;
        }
    }

    private static Object[] withThrowable(Object[] arguments, Throwable throwable) {
        if (throwable == null) {
            return arguments == null ? new Object[0] : arguments;
        }
        final int n = arguments == null ? 0 : arguments.length;
        final Object[] all = new Object[n + 1];
        if (n != 0) {
            System.arraycopy(arguments, 0, all, 0, n);
        }
        all[n] = throwable;
        return all;
    }

    @Override
    public boolean isTraceEnabled() {
        return delegate.isTraceEnabled();
    }

    @Override
    public boolean isTraceEnabled(Marker marker) {
        return delegate.isTraceEnabled(marker);
    }

    @Override
    public boolean isDebugEnabled() {
        return delegate.isDebugEnabled();
    }

    @Override
    public boolean isDebugEnabled(Marker marker) {
        return delegate.isDebugEnabled(marker);
    }

    @Override
    public boolean isInfoEnabled() {
        return delegate.isInfoEnabled();
    }

    @Override
    public boolean isInfoEnabled(Marker marker) {
        return delegate.isInfoEnabled(marker);
    }

    @Override
    public boolean isWarnEnabled() {
        return delegate.isWarnEnabled();
    }

    @Override
    public boolean isWarnEnabled(Marker marker) {
        return delegate.isWarnEnabled(marker);
    }

    @Override
    public boolean isErrorEnabled() {
        return delegate.isErrorEnabled();
    }

    @Override
    public boolean isErrorEnabled(Marker marker) {
        return delegate.isErrorEnabled(marker);
    }

    @Override
    public String toString() {
        return "ActorLogger(" + name + ")";
    }
}
