#!/usr/bin/env python3
"""Summarizes the JMH JSON files of scripts/run-local.sh into two Markdown tables.

For every benchmark and parameter set: the median of all measurement iterations of all forks
of all sittings (msgs/s and gc.alloc.rate.norm, which is bytes per message since one JMH
operation is one message), the range of the per-sitting medians, and for Troupe the ratio to
Pekko (default tuning) computed per sitting, then the median of those ratios; then the same
medians side by side, one row per scenario.

Usage: summarize.py RESULTS_DIR
"""
import glob
import json
import os
import re
import statistics
import sys
from collections import defaultdict

SCENARIOS = [
    ("PingPong", "1. ping-pong"),
    ("FanIn", "2. fan-in, 4 senders"),
    ("ReceiveTimeout", "3. receive timeout, reset per message"),
    ("BehaviorSwitch", "4. behavior switch per message"),
]


def load(results_dir):
    # (system, scenario, pairs, tuning) -> sitting -> {"score": [...], "norm": [...]}
    data = defaultdict(lambda: defaultdict(lambda: {"score": [], "norm": []}))
    for path in sorted(glob.glob(os.path.join(results_dir, "s*-*.json"))):
        sitting = int(re.match(r"s(\d+)-", os.path.basename(path)).group(1))
        with open(path) as f:
            try:
                runs = json.load(f)
            except json.JSONDecodeError:
                continue
        for run in runs:
            m = re.search(r"\.(Troupe|Pekko)(\w+)\.batch$", run["benchmark"])
            system, scenario = m.group(1), m.group(2)
            params = run.get("params", {})
            # Pekko's dispatcher tuning and Troupe's fan-in mailbox are the labelled variants.
            variant = params.get("tuning", params.get("mailbox", "default"))
            if variant == "unbounded":
                variant = "default"
            key = (system, scenario, params.get("pairs", "-"), variant)
            cell = data[key][sitting]
            for fork in run["primaryMetric"]["rawData"]:
                cell["score"].extend(fork)
            norm = run.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
            if norm:
                for fork in norm["rawData"]:
                    cell["norm"].extend(fork)
    return data


def median(values):
    return statistics.median(values) if values else float("nan")


def fmt_rate(v):
    return f"{v / 1e6:.2f}M"


def main():
    results_dir = sys.argv[1]
    data = load(results_dir)
    machine = os.path.join(results_dir, "machine.txt")
    if os.path.exists(machine):
        with open(machine) as f:
            for line in f:
                print(f"    {line.rstrip()}")
        print()
    print("| scenario | pairs | system | msgs/s (median) | per-sitting medians | B/msg (median) | Troupe / Pekko (median of per-sitting ratios) |")
    print("|---|---|---|---|---|---|---|")

    def sort_key(k):
        system, scenario, pairs, tuning = k
        order = [s for s, _ in SCENARIOS].index(scenario) if scenario in [s for s, _ in SCENARIOS] else 99
        pairs_n = int(pairs) if pairs.isdigit() else 0
        return (order, pairs_n, 0 if system == "Troupe" else 1, tuning != "default", tuning)

    for key in sorted(data, key=sort_key):
        system, scenario, pairs, tuning = key
        sittings = data[key]
        all_scores = [v for c in sittings.values() for v in c["score"]]
        all_norm = [v for c in sittings.values() for v in c["norm"]]
        per_sitting = [median(sittings[s]["score"]) for s in sorted(sittings)]
        label = system if tuning == "default" else f"{system} ({tuning})"
        ratio = ""
        if system == "Troupe" and tuning == "default":
            pekko = data.get(("Pekko", scenario, pairs, "default"))
            if pekko:
                ratios = [median(sittings[s]["score"]) / median(pekko[s]["score"])
                          for s in sorted(sittings) if s in pekko and pekko[s]["score"]]
                if ratios:
                    ratio = f"{median(ratios):.2f}x (per sitting: {', '.join(f'{r:.2f}' for r in ratios)})"
        name = dict(SCENARIOS).get(scenario, scenario)
        print(f"| {name} | {pairs} | {label} | {fmt_rate(median(all_scores))} | "
              f"{' / '.join(fmt_rate(v) for v in per_sitting)} | {median(all_norm):.1f} | {ratio} |")
    side_by_side(data)


def side_by_side(data):
    """One row per scenario: both systems' medians, the same-sitting ratio, bytes per message."""
    print()
    print("| scenario | Troupe msgs/s | Pekko msgs/s | Troupe / Pekko | Troupe B/msg | Pekko B/msg |")
    print("|---|---|---|---|---|---|")
    for scenario, name in SCENARIOS:
        pairs_list = sorted({k[2] for k in data if k[1] == scenario}, key=lambda p: int(p) if p.isdigit() else 0)
        for pairs in pairs_list:
            t = data.get(("Troupe", scenario, pairs, "default"))
            p = data.get(("Pekko", scenario, pairs, "default"))
            if not t or not p:
                continue
            t_all = [v for c in t.values() for v in c["score"]]
            p_all = [v for c in p.values() for v in c["score"]]
            t_norm = [v for c in t.values() for v in c["norm"]]
            p_norm = [v for c in p.values() for v in c["norm"]]
            ratios = [median(t[s]["score"]) / median(p[s]["score"]) for s in sorted(t) if s in p and p[s]["score"]]
            label = name if pairs == "-" else f"{name}, {pairs} pair{'s' if pairs != '1' else ''}"
            print(f"| {label} | {fmt_rate(median(t_all))} | {fmt_rate(median(p_all))} | "
                  f"{median(ratios):.2f}x | {median(t_norm):.1f} | {median(p_norm):.1f} |")


if __name__ == "__main__":
    main()
