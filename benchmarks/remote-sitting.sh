#!/usr/bin/env bash
# One sitting of the remote benchmarks, one row per goal of the remote performance work, from
# benchmarks/target/benchmarks.jar. Three rounds; in each round Troupe, Pekko 1.7.0 Artery TCP
# and the raw Netty rig run one after the other, each in its own JVM, and the order rotates from
# round to round so that none always gets the quieter minutes of a shared machine. Then the
# allocation benchmark (JMH -prof gc, short) and the idle node, once each (neither depends on
# speed). Prints /proc/loadavg at start and end and a table per goal row.
#
# Usage (from the repository root, after ./mvnw -q -pl benchmarks -am package -DskipTests):
#   benchmarks/remote-sitting.sh            # the full sitting, estimated 10 to 15 minutes on 2 cores
#   QUICK=1 benchmarks/remote-sitting.sh    # tiny counts, to check that every step runs (2.5 min)
# Options by environment: JAVA (default java), ROUNDS (default 3), OUT (default
# benchmarks/target/remote-sitting/<UTC time>). Every step is bounded by `timeout`.
set -euo pipefail

JAR="benchmarks/target/benchmarks.jar"
JAVA="${JAVA:-java}"
ROUNDS="${ROUNDS:-3}"
OUT="${OUT:-benchmarks/target/remote-sitting/$(date -u +%Y%m%dT%H%M%SZ)}"
JVM=(--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED -Xms1g -Xmx1g -cp "$JAR")

if [[ "${QUICK:-0}" == 1 ]]; then
  ROUND_TRIPS=2000; LAT_SECONDS=1; ONE_WAY_MESSAGES=20000; IDLE_SECONDS=3; WARMUP_SECONDS=1
  JMH_OPTS=(-f 1 -wi 1 -i 1 -w 1s -r 1s -p clients=1)
  STEP_LIMIT=240
else
  ROUND_TRIPS=50000; LAT_SECONDS=5; ONE_WAY_MESSAGES=${ONE_WAY_MESSAGES:-3000000}; IDLE_SECONDS=30; WARMUP_SECONDS=5
  JMH_OPTS=(-f 1 -wi 3 -i 3 -w 1s -r 1s)
  STEP_LIMIT=600
fi

[[ -f "$JAR" ]] || { echo "missing $JAR: build it with ./mvnw -q -pl benchmarks -am package -DskipTests" >&2; exit 1; }
mkdir -p "$OUT"
START=$(date +%s)
echo "remote sitting: $(date -u +%Y-%m-%dT%H:%M:%SZ), nproc $(nproc), $("$JAVA" -version 2>&1 | head -1), rounds $ROUNDS, quick ${QUICK:-0}"
# How an idle CPU sleeps decides what a hand-off to a sleeping thread costs, and so the 1-client rows
# (docs/remote-benchmarks.md, "The 1-client spread"): in a guest whose halt polling is off, every
# idle vCPU halts at once and each wake-up is a trip through the hypervisor.
echo "cpuidle: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo unknown) / $(cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null || cat /sys/devices/system/cpu/cpuidle/current_governor_ro 2>/dev/null || echo unknown), guest_halt_poll_ns $(cat /sys/module/haltpoll/parameters/guest_halt_poll_ns 2>/dev/null || echo n/a)"
echo "load average at start: $(cat /proc/loadavg)"
echo "output: $OUT"

# run NAME MAIN ARGS...: one benchmark JVM, bounded, its output kept in $OUT/NAME.txt
run() {
  local name="$1"; shift
  echo "  $(date -u +%H:%M:%S) $name (load $(cut -d' ' -f1-3 /proc/loadavg))"
  if ! timeout "$STEP_LIMIT" "$JAVA" "${JVM[@]}" "$@" > "$OUT/$name.txt" 2>&1; then
    echo "    FAILED or timed out after ${STEP_LIMIT}s: see $OUT/$name.txt" >&2
  fi
}

RIGS=(troupe pekko netty)
for ((r = 1; r <= ROUNDS; r++)); do
  echo "round $r"
  for ((k = 0; k < 3; k++)); do
    rig="${RIGS[$(((k + r - 1) % 3))]}"
    # Reply-ref ping-pong at 1, 4 and 16 clients (1 client three times: its spread); latency
    # (refs shape, 1 client) for Troupe and raw Netty only.
    lat=none
    [[ "$rig" != pekko ]] && lat=10000,1000
    run "r$r-pingpong-refs-$rig" dev.troupe.benchmarks.remote.RemotePingPong --rigs "$rig" \
      --clients 1,4,16,1,1 --round-trips "$ROUND_TRIPS" --shape refs --latency-rate "$lat" --latency-seconds "$LAT_SECONDS" \
      --warmup-seconds "$WARMUP_SECONDS"
    # The one-connection goal (10x Pekko, spread within 1.5x) holds in both shapes: the long shape
    # (plain Longs, no ref in a message) at 1 client, three times.
    run "r$r-pingpong-long-$rig" dev.troupe.benchmarks.remote.RemotePingPong --rigs "$rig" \
      --clients 1,1,1 --round-trips "$ROUND_TRIPS" --shape long --latency-rate none --warmup-seconds "$WARMUP_SECONDS"
    run "r$r-oneway-$rig" dev.troupe.benchmarks.remote.RemoteMaxThroughput --rigs "$rig" \
      --payloads 100,1000 --senders 1,4 --messages "$ONE_WAY_MESSAGES" --runs 1
  done
done

echo "allocation (JMH RemoteWindowedBenchmark -prof gc ${JMH_OPTS[*]})"
echo "  $(date -u +%H:%M:%S) (load $(cut -d' ' -f1-3 /proc/loadavg))"
timeout "$STEP_LIMIT" "$JAVA" -jar "$JAR" RemoteWindowedBenchmark -prof gc "${JMH_OPTS[@]}" \
  -rf json -rff "$OUT/windowed-gc.json" > "$OUT/windowed-gc.txt" 2>&1 || echo "    FAILED or timed out: see $OUT/windowed-gc.txt" >&2
echo "idle node (${IDLE_SECONDS} s)"
run idle-node dev.troupe.benchmarks.remote.IdleNode --seconds "$IDLE_SECONDS"

echo "load average at end: $(cat /proc/loadavg)"
echo "elapsed: $(( $(date +%s) - START )) s"
echo
python3 - "$OUT" <<'EOF'
import glob, json, os, re, statistics, sys

out = sys.argv[1]
RIG = {"troupe": "Troupe", "pekko": "Pekko", "netty": "raw Netty"}

def med(xs):
    return statistics.median(xs) if xs else None

def fmt(x, unit=""):
    return "-" if x is None else (f"{x:,.0f}{unit}" if x >= 100 else f"{x:.1f}{unit}")

def ratio(a, b):
    return "-" if a is None or not b else f"{a / b:.2f}x"

def spread(xs):
    return "-" if not xs or min(xs) <= 0 else f"{max(xs) / min(xs):.2f}"

# Ping-pong: the summary line "<rig name>: 1=123 4=456 ..." of each run, by shape, rig and clients.
pp = {}
lat = {}
for f in sorted(glob.glob(os.path.join(out, "r*-pingpong-*.txt"))):
    _, _, shape, rig = os.path.basename(f)[:-4].split("-", 3)
    text = open(f).read()
    for line in text.splitlines():
        m = re.match(r"^[^:=]+: ((?:\d+=\d+ ?)+)$", line.strip())
        if m and "medians" not in line:
            for pair in m.group(1).split():
                n, rate = pair.split("=")
                pp.setdefault((shape, rig, int(n)), []).append(int(rate))
        m = re.search(r"latency at (\d+) msg/s: p50 ([\d.]+) us, p99 ([\d.]+) us", line)
        if m:
            lat.setdefault((rig, int(m.group(1))), []).append((float(m.group(2)), float(m.group(3))))

print("Messages carrying a reply ref (Ping(seq, replyTo), window 64): msgs/s, median of all runs (goal: Troupe >= 10x Pekko)")
print(f"{'clients':>8} {'Troupe':>12} {'Pekko':>12} {'raw Netty':>12} {'Troupe/Pekko':>13} {'Troupe/Netty':>13} {'runs':>5}")
for n in (1, 4, 16):
    t, p, y = (med(pp.get(("refs", r, n), [])) for r in ("troupe", "pekko", "netty"))
    print(f"{n:>8} {fmt(t):>12} {fmt(p):>12} {fmt(y):>12} {ratio(t, p):>13} {ratio(t, y):>13} {len(pp.get(('refs', 'troupe', n), [])):>5}")
print()
print("One connection (1 client): msgs/s median, spread max/min of the runs (goal: 10x Pekko, Troupe spread <= 1.5)")
print(f"{'shape':>6} {'Troupe':>12} {'spread':>7} {'Pekko':>12} {'spread':>7} {'raw Netty':>12} {'Troupe/Pekko':>13} {'runs':>5}")
for shape in ("refs", "long"):
    xs = {r: pp.get((shape, r, 1), []) for r in ("troupe", "pekko", "netty")}
    print(f"{shape:>6} {fmt(med(xs['troupe'])):>12} {spread(xs['troupe']):>7} {fmt(med(xs['pekko'])):>12} {spread(xs['pekko']):>7} "
          f"{fmt(med(xs['netty'])):>12} {ratio(med(xs['troupe']), med(xs['pekko'])):>13} {len(xs['troupe']):>5}")
print()
print("Round-trip latency, 1 client, from the intended send time: us, median of the runs (goal at 10,000/s: p50 <= 1.5x, p99 <= 1x raw Netty)")
print(f"{'rate':>8} {'Troupe p50':>11} {'p99':>9} {'Netty p50':>10} {'p99':>9} {'p50 ratio':>10} {'p99 ratio':>10}")
for rate in (10000, 1000):
    t = lat.get(("troupe", rate), [])
    y = lat.get(("netty", rate), [])
    t50, t99 = med([a for a, _ in t]), med([b for _, b in t])
    y50, y99 = med([a for a, _ in y]), med([b for _, b in y])
    print(f"{rate:>8} {fmt(t50):>11} {fmt(t99):>9} {fmt(y50):>10} {fmt(y99):>9} {ratio(t50, y50):>10} {ratio(t99, y99):>10}")
print()

# One-way: "<rig name> senders=N payload=P: M msgs/s, X MB/s payload, Y MB/s on the wire"
ow = {}
for f in sorted(glob.glob(os.path.join(out, "r*-oneway-*.txt"))):
    rig = os.path.basename(f)[:-4].split("-", 2)[2]
    for line in open(f):
        m = re.search(r"senders=(\d+) payload=(\d+): (\d+) msgs/s, ([\d.]+) MB/s payload", line)
        if m:
            ow.setdefault((rig, int(m.group(1)), int(m.group(2))), []).append((int(m.group(3)), float(m.group(4))))
print("One-way throughput (MaxThroughputSpec shape): msgs/s and payload MB/s, median of the runs (goal: Troupe >= 10x Pekko; share of raw Netty)")
print(f"{'senders':>8} {'payload':>8} {'Troupe':>11} {'MB/s':>7} {'Pekko':>11} {'MB/s':>7} {'Netty':>11} {'MB/s':>7} {'T/Pekko':>8} {'T/Netty':>8}")
for payload in (100, 1000):
    for n in (1, 4):
        v = {r: ow.get((r, n, payload), []) for r in ("troupe", "pekko", "netty")}
        m = {r: (med([a for a, _ in v[r]]), med([b for _, b in v[r]])) for r in v}
        print(f"{n:>8} {payload:>8} {fmt(m['troupe'][0]):>11} {fmt(m['troupe'][1]):>7} {fmt(m['pekko'][0]):>11} {fmt(m['pekko'][1]):>7} "
              f"{fmt(m['netty'][0]):>11} {fmt(m['netty'][1]):>7} {ratio(m['troupe'][0], m['pekko'][0]):>8} {ratio(m['troupe'][1], m['netty'][1]):>8}")
print()

print("Allocation under windowed load (JMH RemoteWindowedBenchmark -prof gc): B per round trip, all threads (2 x 24 B are the deserialized Ping and Pong)")
try:
    for b in json.load(open(os.path.join(out, "windowed-gc.json"))):
        norm = b["secondaryMetrics"].get("gc.alloc.rate.norm", {}).get("score")
        print(f"  clients={b['params']['clients']}: {fmt(norm)} B/op, {b['primaryMetric']['score']:,.0f} round trips/s")
except (OSError, ValueError, KeyError) as e:
    print(f"  no result ({e})")
print()
print("Idle CPU (goal: an idle node under 2 % of one core)")
try:
    for line in open(os.path.join(out, "idle-node.txt")):
        if "%" in line or "core" in line:
            print("  " + line.rstrip())
except OSError as e:
    print(f"  no result ({e})")
EOF
