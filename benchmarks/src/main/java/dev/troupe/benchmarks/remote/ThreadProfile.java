package dev.troupe.benchmarks.remote;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * CPU time, allocated bytes and context switches of this JVM's threads, grouped by thread name
 * without its trailing numbers ({@code troupe-ping-remote-2-1} is {@code troupe-ping-remote}).
 * Two snapshots around a run give what each group of threads spent on it: numbers that do not
 * depend on how fast a loaded machine happens to be, unlike throughput. CPU time and bytes come
 * from {@code com.sun.management.ThreadMXBean}; voluntary context switches (a thread blocked:
 * a park, a wait in {@code epoll_wait}, i.e. a hand-off that had to wake it) from
 * {@code /proc/self/task/<tid>/status}, grouped by the kernel's 15-character thread name.
 */
final class ThreadProfile {

    /** What one group of threads spent. */
    static final class Group {
        long cpuNanos;
        long allocatedBytes;
        long voluntarySwitches;
        long involuntarySwitches;
    }

    private final Map<String, Group> groups = new TreeMap<>();

    private ThreadProfile() {
    }

    /** Before a run: reads the allocation counters last, so reading /proc is not counted in the run. */
    static ThreadProfile before() {
        final ThreadProfile p = new ThreadProfile();
        p.readSwitches();
        p.readThreads();
        return p;
    }

    /** After a run: reads the allocation counters first. */
    static ThreadProfile after() {
        final ThreadProfile p = new ThreadProfile();
        p.readThreads();
        p.readSwitches();
        return p;
    }

    private void readThreads() {
        final ThreadProfile p = this;
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long[] ids = threads.getAllThreadIds();
        final long[] bytes = threads.getThreadAllocatedBytes(ids);
        final long[] cpu = threads.getThreadCpuTime(ids);
        final java.lang.management.ThreadInfo[] infos = threads.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            if (infos[i] == null) {
                continue;
            }
            final Group g = p.groups.computeIfAbsent(group(infos[i].getThreadName()), k -> new Group());
            g.cpuNanos += Math.max(0, cpu[i]);
            g.allocatedBytes += Math.max(0, bytes[i]);
        }
    }

    private void readSwitches() {
        final ThreadProfile p = this;
        // context switches by kernel thread name (the first 15 characters of the Java name)
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            tasks.forEach(t -> {
                try {
                    final String comm = Files.readString(t.resolve("comm")).trim();
                    long vol = 0;
                    long invol = 0;
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            vol = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            invol = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                    final Group g = p.groups.computeIfAbsent("~" + group(comm), k -> new Group());
                    g.voluntarySwitches += vol;
                    g.involuntarySwitches += invol;
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            });
        } catch (IOException | RuntimeException e) {
            // not Linux: no context switch counts
        }
    }

    /** @return the thread's name without trailing {@code -N} parts */
    static String group(String name) {
        String n = name;
        while (true) {
            final int dash = n.lastIndexOf('-');
            if (dash <= 0 || dash == n.length() - 1 || !n.substring(dash + 1).chars().allMatch(Character::isDigit)) {
                break;
            }
            n = n.substring(0, dash);
        }
        return n.isEmpty() ? name : n;
    }

    /**
     * @param before the snapshot taken before the run
     * @param messages messages of the run (both directions)
     * @return one line of totals per message, then one line per busy group
     */
    String report(ThreadProfile before, long messages) {
        long cpu = 0;
        long bytes = 0;
        long vol = 0;
        long invol = 0;
        final StringBuilder detail = new StringBuilder();
        for (Map.Entry<String, Group> e : groups.entrySet()) {
            final Group b = before.groups.getOrDefault(e.getKey(), new Group());
            final Group g = e.getValue();
            final long c = g.cpuNanos - b.cpuNanos;
            final long a = g.allocatedBytes - b.allocatedBytes;
            final long v = g.voluntarySwitches - b.voluntarySwitches;
            final long iv = g.involuntarySwitches - b.involuntarySwitches;
            cpu += c;
            bytes += a;
            vol += v;
            invol += iv;
            if (e.getKey().startsWith("~")) {
                if (v + iv > messages / 1000) {
                    detail.append(String.format(Locale.ROOT, "      %-24s switches/msg: voluntary %.4f, involuntary %.4f%n",
                        e.getKey().substring(1), v / (double) messages, iv / (double) messages));
                }
            } else if (c > 0 && (c / (double) messages > 5 || a > 0)) {
                detail.append(String.format(Locale.ROOT, "      %-24s cpu %7.0f ns/msg, alloc %8.2f B/msg%n",
                    e.getKey(), c / (double) messages, a / (double) messages));
            }
        }
        return String.format(Locale.ROOT, "    all threads: cpu %.0f ns/msg, alloc %.2f B/msg, context switches %.4f voluntary + %.4f involuntary per msg%n",
            cpu / (double) messages, bytes / (double) messages, vol / (double) messages, invol / (double) messages) + detail;
    }
}
