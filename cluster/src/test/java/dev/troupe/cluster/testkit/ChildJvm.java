package dev.troupe.cluster.testkit;

import dev.troupe.testsupport.Await;
import dev.troupe.testsupport.JavaCommand;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A node of a multi-JVM test: a child JVM running a main class from this JVM's class path, driven
 * by lines on its stdin and read by lines on its stdout, with the failures a cluster must survive —
 * {@link #kill9()} ({@code SIGKILL}), {@link #freeze()} ({@code SIGSTOP}) and {@link #thaw()}
 * ({@code SIGCONT}) — and a graceful {@link #close()}. Every wait is bounded; lines that do not
 * match what a test awaits are kept for its failure message.
 *
 * <p>The main class gets the JVM options every Troupe JVM needs ({@code --add-opens} for Agrona)
 * plus the given ones. Nodes bind distinct loopback addresses ({@link #loopback(int)}: 127.0.0.2,
 * .3, ...), which Linux routes to {@code lo} without configuration.
 */
public final class ChildJvm implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();

    private ChildJvm(String name, Process process) {
        this.name = name;
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        final Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    lines.add(l);
                }
            } catch (IOException e) {
                // the child is gone
            }
        }, "child-jvm-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts a child JVM.
     *
     * @param name a name for messages
     * @param mainClass the main class, on this JVM's class path
     * @param jvmOptions extra JVM options ({@code -Dkey=value}, {@code -Xmx64m})
     * @param args the main's arguments
     * @return the running child
     */
    public static ChildJvm start(String name, Class<?> mainClass, List<String> jvmOptions, String... args) {
        return start(name, List.of(), mainClass, jvmOptions, args);
    }

    /**
     * Starts a child JVM through a command that runs it somewhere else, such as
     * {@code ip netns exec <namespace>} (which execs, so the child's pid is the JVM's and the
     * signals reach it).
     *
     * @param name a name for messages
     * @param prefix the command and its arguments before {@code java}
     * @param mainClass the main class, on this JVM's class path
     * @param jvmOptions extra JVM options
     * @param args the main's arguments
     * @return the running child
     */
    public static ChildJvm start(String name, List<String> prefix, Class<?> mainClass, List<String> jvmOptions, String... args) {
        final List<String> options = new ArrayList<>();
        options.add("-Xmx128m");
        options.addAll(jvmOptions);
        final List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(JavaCommand.of(mainClass, options, args));
        try {
            return new ChildJvm(name, new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start());
        } catch (IOException e) {
            throw new IllegalStateException("could not start child JVM " + name, e);
        }
    }

    /**
     * @param node a node index, from 0
     * @return the loopback address of that node, {@code 127.0.0.(node+2)}
     */
    public static String loopback(int node) {
        if (node < 0 || node > 250) {
            throw new IllegalArgumentException("node index out of 0-250: " + node);
        }
        return "127.0.0." + (node + 2);
    }

    /**
     * @param host a loopback address
     * @return a port free on it now
     */
    public static int freePort(String host) {
        try {
            if (!InetAddress.getByName(host).isLoopbackAddress()) {
                throw new IllegalArgumentException("multi-JVM nodes bind loopback addresses only: " + host);
            }
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(host, 0));
                return s.getLocalPort();
            }
        } catch (IOException e) {
            throw new IllegalStateException("no free port on " + host, e);
        }
    }

    /**
     * @param line a command for the child, one line
     */
    public synchronized void send(String line) {
        try {
            stdin.write(line);
            stdin.write('\n');
            stdin.flush();
        } catch (IOException e) {
            throw new IllegalStateException("child " + name + " does not read its stdin (exited: " + !process.isAlive() + ")", e);
        }
    }

    /**
     * Waits for a line the child prints.
     *
     * @param match the line awaited
     * @param timeout the bound
     * @return the line
     */
    public String await(Predicate<String> match, Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            final long left = deadline - System.nanoTime();
            final String l;
            try {
                l = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for child " + name, e);
            }
            if (l == null) {
                throw new AssertionError("child " + name + " printed no awaited line within " + timeout
                    + " (alive: " + process.isAlive() + "); it printed: " + seen);
            }
            seen.add(l);
            if (match.test(l)) {
                return l;
            }
        }
    }

    /**
     * @param prefix the start of the line awaited
     * @param timeout the bound
     * @return the line
     */
    public String awaitLine(String prefix, Duration timeout) {
        return await(l -> l.startsWith(prefix), timeout);
    }

    /**
     * Asserts the child prints nothing matching within a window (a frozen child).
     *
     * @param match lines that must not come
     * @param window how long to watch; the only place a test waits for time itself, since it asserts absence
     */
    public void expectNoLine(Predicate<String> match, Duration window) {
        final long deadline = System.nanoTime() + window.toNanos();
        while (true) {
            final long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            final String l;
            try {
                l = lines.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            if (l != null) {
                seen.add(l);
                if (match.test(l)) {
                    throw new AssertionError("child " + name + " printed '" + l + "' within " + window);
                }
            }
        }
    }

    /** {@code kill -9}: the child dies at once, closing nothing gracefully. */
    public void kill9() {
        process.destroyForcibly();
        awaitExit();
    }

    /** {@code SIGSTOP}: the child stops running (its sockets stay open, nothing answers). Returns once it is stopped. */
    public void freeze() {
        signal("-STOP");
        awaitState(true);
    }

    /** {@code SIGCONT}: a frozen child runs again. Returns once it runs. */
    public void thaw() {
        signal("-CONT");
        awaitState(false);
    }

    /** Signals take effect asynchronously: wait until /proc shows the process stopped (T) or not. */
    private void awaitState(boolean stopped) {
        final Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
        Await.until(name + (stopped ? " stopped" : " running"), Duration.ofSeconds(10), () -> {
            try {
                final String text = java.nio.file.Files.readString(stat);
                // pid (comm) state ...: the state follows the closing parenthesis
                final char state = text.charAt(text.lastIndexOf(')') + 2);
                return (state == 'T' || state == 't') == stopped;
            } catch (IOException e) {
                return !process.isAlive();
            }
        });
    }

    /** @return the child's process id */
    public long pid() {
        return process.pid();
    }

    /** @return whether the child runs (a frozen child counts as alive) */
    public boolean isAlive() {
        return process.isAlive();
    }

    private void signal(String signal) {
        try {
            final Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void awaitExit() {
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                throw new AssertionError("child " + name + " did not exit");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Asks the child to exit (closes its stdin), then kills it if it has not exited within 20 s. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        thaw(); // a frozen child cannot exit
        try {
            stdin.close();
        } catch (IOException e) {
            // already gone
        }
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "ChildJvm(" + name + ", pid " + process.pid() + ")";
    }
}
