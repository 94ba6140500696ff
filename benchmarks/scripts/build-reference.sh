#!/usr/bin/env bash
# Builds the troupe-actor jar of a commit, by default into benchmarks/reference/ as the local speed
# guard's reference build (see docs/benchmarks.md, "The local speed guard"); with a directory as the
# second argument, into that directory instead (a jar to run the guard on with -Dtroupe.guard.build).
# Usage: build-reference.sh <commit> [directory]
set -euo pipefail
commit=$(git rev-parse --short "${1:?usage: build-reference.sh <commit> [directory]}")
top=$(git rev-parse --show-toplevel)
out=${2:-$top/benchmarks/reference}
work=$(mktemp -d)
trap 'git -C "$top" worktree remove --force "$work/src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$top" worktree add --detach "$work/src" "$commit" >/dev/null
(cd "$work/src" && ./mvnw -q -B -ntp -pl actor package -Dmaven.test.skip=true)
mkdir -p "$out"
cp "$work/src/actor/target/troupe-actor-0.1.0-SNAPSHOT.jar" "$out/troupe-actor-$commit.jar"
echo "$out/troupe-actor-$commit.jar"
