#!/usr/bin/env python3
"""Summarises a Mahimahi delivery trace: what a path of the library (scenarios/paths/) holds.

A Mahimahi trace has one line per delivery opportunity, the millisecond (from the start
of the trace) at which one packet of `opportunity_bytes` (1500 in Mahimahi) may leave
the bottleneck; a millisecond with k opportunities is written k times. The trace's last
line is its period: a replay repeats it from there.

Printed, per trace:
* duration: the period, in seconds;
* mean rate over the whole trace, in Mbit/s (opportunities x bytes x 8 / duration);
* the 10th, 50th and 90th percentile of the rate in whole one-second windows;
* outages: gaps of at least `--min-outage` (default 1 s) between consecutive
  opportunities (the link can deliver nothing for that long), their number, the
  longest, and the share of the trace they cover.

Percentiles are by the nearest-rank rule on the sorted per-second rates (no
interpolation), so every printed value is one of the trace's own windows.

usage: scripts/path_stats.py [--bytes 1500] [--min-outage 1.0] [--markdown] TRACE...
Python standard library only.
"""

import argparse
import math
import sys


def read_trace(path):
    """The opportunity times (ms) of a Mahimahi trace, in file order; checks the format."""
    times = []
    with open(path, encoding="ascii") as f:
        for lineno, line in enumerate(f, 1):
            text = line.strip()
            if not text:
                continue
            try:
                t = int(text)
            except ValueError:
                raise ValueError(f"{path}:{lineno}: not a whole number of milliseconds: {text!r}")
            if t < 0 or (times and t < times[-1]):
                raise ValueError(f"{path}:{lineno}: times must be non-negative and non-decreasing")
            times.append(t)
    if not times or times[-1] == 0:
        raise ValueError(f"{path}: empty trace, or one whose last line (its period) is 0 ms")
    return times


def nearest_rank(sorted_values, p):
    """The p-th percentile (0 < p <= 100) by the nearest-rank rule."""
    k = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[k - 1]


def outages(times, period_ms, min_gap_ms):
    """Gaps of at least min_gap_ms between consecutive opportunities, as (start, length) in ms.

    The gap from the last opportunity to the first of the next period (the trace repeats)
    counts too, so a trace that starts or ends inside an outage reports it once."""
    gaps = []
    for a, b in zip(times, times[1:]):
        if b - a >= min_gap_ms:
            gaps.append((a, b - a))
    wrap = period_ms - times[-1] + times[0]
    if wrap >= min_gap_ms:
        gaps.append((times[-1], wrap))
    return gaps


def summary(times, opportunity_bytes=1500, min_outage_s=1.0):
    """A dict of the trace's statistics (see the module doc)."""
    period = times[-1]
    per_second = [0] * max(1, period // 1000)
    for t in times:
        # The line at the period is the next repeat's first instant: window 0.
        w = (t % period) // 1000
        if w < len(per_second):
            per_second[w] += 1
    mbit = [n * opportunity_bytes * 8 / 1e6 for n in per_second]
    ordered = sorted(mbit)
    gaps = outages(times, period, round(min_outage_s * 1000))
    return {
        "duration_s": period / 1000,
        "mean_mbit_s": len(times) * opportunity_bytes * 8 / (period / 1000) / 1e6,
        "p10_mbit_s": nearest_rank(ordered, 10),
        "p50_mbit_s": nearest_rank(ordered, 50),
        "p90_mbit_s": nearest_rank(ordered, 90),
        "outages": len(gaps),
        "longest_outage_s": max((g for _, g in gaps), default=0) / 1000,
        "outage_share": sum(g for _, g in gaps) / period,
    }


def markdown_row(name, s):
    return (
        f"| {name} | {s['duration_s']:.0f} s | {s['mean_mbit_s']:.2f} | "
        f"{s['p10_mbit_s']:.2f} / {s['p50_mbit_s']:.2f} / {s['p90_mbit_s']:.2f} | "
        f"{s['outages']} | {s['longest_outage_s']:.1f} s | {100 * s['outage_share']:.1f} % |"
    )


MARKDOWN_HEADER = (
    "| trace | duration | mean Mbit/s | p10 / p50 / p90 Mbit/s (1 s windows) | outages | "
    "longest | time in outages |\n|---|---|---|---|---|---|---|"
)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="+")
    ap.add_argument("--bytes", type=int, default=1500, help="bytes per opportunity")
    ap.add_argument("--min-outage", type=float, default=1.0, help="shortest outage, seconds")
    ap.add_argument("--markdown", action="store_true", help="one table row per trace")
    args = ap.parse_args(argv)
    if args.bytes < 1 or args.min_outage <= 0:
        print("error: --bytes must be >= 1 and --min-outage > 0", file=sys.stderr)
        return 2
    if args.markdown:
        print(MARKDOWN_HEADER)
    for path in args.traces:
        try:
            s = summary(read_trace(path), args.bytes, args.min_outage)
        except (OSError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        if args.markdown:
            print(markdown_row(path.rsplit("/", 1)[-1], s))
        else:
            print(path, " ".join(f"{k}={v:.4g}" for k, v in s.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
