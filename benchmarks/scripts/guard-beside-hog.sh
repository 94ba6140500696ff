#!/usr/bin/env bash
# Runs the local speed guard (LocalRatioGuardTest) once per letter of a sequence, each run beside a
# CPU hog (stress-ng --cpu 2, started before the run and stopped after it): g measures this build,
# a measures the troupe-actor jar given as the second argument. Prints a line per run: the build's
# exit code, the load average before and after, and the test's verdict lines. See docs/benchmarks.md,
# "The local speed guard". Usage: guard-beside-hog.sh <g|a letters> [troupe-actor jar]
set -uo pipefail
sequence=${1:?usage: guard-beside-hog.sh <g|a letters> [troupe-actor jar]}
jar=${2:-}
command -v stress-ng >/dev/null || { echo "stress-ng is not installed" >&2; exit 2; }
cd "$(git rev-parse --show-toplevel)"
logs=$(mktemp -d)
i=0
for side in $(echo "$sequence" | fold -w1); do
    i=$((i + 1))
    extra=()
    if [ "$side" = a ]; then
        [ -n "$jar" ] || { echo "a needs the jar as the second argument" >&2; exit 2; }
        extra=("-Dtroupe.guard.build=$jar")
    fi
    stress-ng --cpu 2 --timeout 300s >/dev/null 2>&1 &
    hog=$!
    sleep 1
    before=$(cut -d' ' -f1-3 /proc/loadavg)
    start=$(date -u +%T)
    timeout 400 ./mvnw -B -ntp -pl benchmarks -am test -Dtest=LocalRatioGuardTest \
        -Dsurefire.failIfNoSpecifiedTests=false "${extra[@]}" >"$logs/$i-$side.log" 2>&1
    rc=$?
    kill "$hog" 2>/dev/null
    wait "$hog" 2>/dev/null
    echo "$i $side exit=$rc $start load before [$before] after [$(cut -d' ' -f1-3 /proc/loadavg)]" \
        "$(grep -E '^run [0-9]: RATIO' "$logs/$i-$side.log" | sort -u | cut -d' ' -f1-4 | tr '\n' ' ')"
done
echo "logs: $logs"
