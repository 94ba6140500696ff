#!/usr/bin/env bash
# Builds the troupe-actor jar of a commit into benchmarks/reference/, as the local speed guard's
# reference build (see docs/benchmarks.md, "The local speed guard"). Usage: build-reference.sh <commit>
set -euo pipefail
commit=$(git rev-parse --short "${1:?usage: build-reference.sh <commit>}")
top=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$top" worktree remove --force "$work/src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$top" worktree add --detach "$work/src" "$commit" >/dev/null
(cd "$work/src" && ./mvnw -q -B -ntp -pl actor package -Dmaven.test.skip=true)
mkdir -p "$top/benchmarks/reference"
cp "$work/src/actor/target/troupe-actor-0.1.0-SNAPSHOT.jar" "$top/benchmarks/reference/troupe-actor-$commit.jar"
echo "benchmarks/reference/troupe-actor-$commit.jar"
