#!/usr/bin/env bash
# Runs the local JMH suite, Troupe beside Pekko, in several sittings. Within a sitting each
# scenario runs on both systems back to back, and the order flips from one sitting to the next,
# so neither system always gets the quieter minutes of a shared machine. Then prints the table
# of medians (scripts/summarize.py).
#
# Usage (from the repository root, after building benchmarks/target/benchmarks.jar):
#   [JMH_OPTS="-f 2 -wi 5 -i 5 -w 1s -r 1s"] benchmarks/scripts/run-local.sh [sittings] [more JMH options...]
# Defaults: 3 sittings of JMH_OPTS as above, always with -prof gc; about 27 minutes on 2 cores.
set -euo pipefail

SITTINGS="${1:-3}"
shift || true
JAR="benchmarks/target/benchmarks.jar"
OUT="benchmarks/target/results/$(date -u +%Y%m%dT%H%M%SZ)"
JAVA="${JAVA:-java}"
read -r -a JMH_OPTS <<< "${JMH_OPTS:--f 2 -wi 5 -i 5 -w 1s -r 1s}"
JMH_OPTS+=(-prof gc "$@")

[[ -f "$JAR" ]] || { echo "missing $JAR: build it with ./mvnw -q -pl benchmarks -am package -DskipTests" >&2; exit 1; }
mkdir -p "$OUT"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nproc: $(nproc)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "java: $("$JAVA" -version 2>&1 | head -2 | tail -1)"
  echo "jmh options: ${JMH_OPTS[*]}"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"

# scenario name -> extra JMH parameters per system, for the labelled variants (Pekko with the
# dispatcher throughput raised, Troupe's fan-in target with a bounded mailbox); they run in the
# first sitting only, to keep the suite short.
declare -A TROUPE_PARAMS=(
  [PingPong]=""
  [FanIn]="-p mailbox=unbounded,bounded65536"
  [ReceiveTimeout]=""
  [BehaviorSwitch]=""
)
declare -A PEKKO_PARAMS=(
  [PingPong]="-p tuning=default,throughput64"
  [FanIn]="-p tuning=default,throughput64"
  [ReceiveTimeout]=""
  [BehaviorSwitch]=""
)

# JMH refuses to start while another JMH run holds /tmp/jmh.lock. On a shared machine that is
# someone else's benchmark: wait up to LOCK_WAIT seconds for it, then run anyway and say so in
# the log (both results are then disturbed; see load.txt).
LOCK_WAIT="${LOCK_WAIT:-180}"
run_jmh() {
  local out="$1"; shift
  local waited=0
  while true; do
    "$JAVA" -jar "$JAR" "$@" -rf json -rff "$out.json" > "$out.log" 2>&1 && return 0
    grep -q "Unable to acquire the JMH lock" "$out.log" || return 1
    if ((waited >= LOCK_WAIT)); then
      echo "   another JMH run held the lock for ${LOCK_WAIT}s: running concurrently with it" | tee -a "$OUT/load.txt"
      "$JAVA" -Djmh.ignoreLock=true -jar "$JAR" "$@" -rf json -rff "$out.json" > "$out.log" 2>&1
      return
    fi
    sleep 10
    waited=$((waited + 10))
  done
}

for ((s = 1; s <= SITTINGS; s++)); do
  if ((s % 2 == 1)); then order=(Troupe Pekko); else order=(Pekko Troupe); fi
  for scenario in PingPong FanIn ReceiveTimeout BehaviorSwitch; do
    for system in "${order[@]}"; do
      extra=()
      if [[ "$system" == Pekko ]]; then params="${PEKKO_PARAMS[$scenario]}"; else params="${TROUPE_PARAMS[$scenario]}"; fi
      ((s == 1)) && [[ -n "$params" ]] && read -r -a extra <<< "$params"
      echo "== sitting $s: $system$scenario (load: $(cut -d' ' -f1-3 /proc/loadavg))"
      echo "$s $system$scenario $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load.txt"
      run_jmh "$OUT/s$s-$system$scenario" "dev.troupe.benchmarks.local.$system$scenario.batch\$" "${JMH_OPTS[@]}" "${extra[@]}" \
        || { echo "FAILED: see $OUT/s$s-$system$scenario.log" >&2; tail -20 "$OUT/s$s-$system$scenario.log" >&2; }
    done
  done
done

python3 "$(dirname "$0")/summarize.py" "$OUT" | tee "$OUT/summary.md"
