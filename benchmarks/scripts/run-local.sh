#!/usr/bin/env bash
# Runs the local JMH suite, Troupe beside Pekko, in several sittings. Within a sitting each
# scenario runs on both systems back to back, and the order flips from one sitting to the next,
# so neither system always gets the quieter minutes of a shared machine. Then prints the table
# of medians (scripts/summarize.py).
#
# Usage (from the repository root, after building benchmarks/target/benchmarks.jar):
#   [JMH_OPTS="-f 2 -wi 3 -i 5 -w 1s -r 1s"] benchmarks/scripts/run-local.sh [sittings] [more JMH options...]
# Defaults: 3 sittings of JMH_OPTS as above, always with -prof gc; about 15-20 minutes on 2 cores.
set -euo pipefail

SITTINGS="${1:-3}"
shift || true
JAR="benchmarks/target/benchmarks.jar"
OUT="benchmarks/target/results/$(date -u +%Y%m%dT%H%M%SZ)"
JAVA="${JAVA:-java}"
read -r -a JMH_OPTS <<< "${JMH_OPTS:--f 2 -wi 3 -i 5 -w 1s -r 1s}"
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

# scenario name -> extra JMH parameters for the Pekko side (the throughput-64 run is labelled as such)
declare -A PEKKO_PARAMS=(
  [PingPong]="-p tuning=default,throughput64"
  [FanIn]="-p tuning=default,throughput64"
  [ReceiveTimeout]=""
  [BehaviorSwitch]=""
)

for ((s = 1; s <= SITTINGS; s++)); do
  if ((s % 2 == 1)); then order=(Troupe Pekko); else order=(Pekko Troupe); fi
  for scenario in PingPong FanIn ReceiveTimeout BehaviorSwitch; do
    for system in "${order[@]}"; do
      extra=()
      [[ "$system" == Pekko && -n "${PEKKO_PARAMS[$scenario]}" ]] && read -r -a extra <<< "${PEKKO_PARAMS[$scenario]}"
      echo "== sitting $s: $system$scenario (load: $(cut -d' ' -f1-3 /proc/loadavg))"
      echo "$s $system$scenario $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load.txt"
      "$JAVA" -jar "$JAR" "dev.troupe.benchmarks.local.$system$scenario.batch\$" "${JMH_OPTS[@]}" "${extra[@]}" \
        -rf json -rff "$OUT/s$s-$system$scenario.json" > "$OUT/s$s-$system$scenario.log" 2>&1 \
        || { echo "FAILED: see $OUT/s$s-$system$scenario.log" >&2; tail -20 "$OUT/s$s-$system$scenario.log" >&2; }
    done
  done
done

python3 "$(dirname "$0")/summarize.py" "$OUT" | tee "$OUT/summary.md"
