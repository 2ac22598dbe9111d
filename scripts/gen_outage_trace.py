#!/usr/bin/env python3
"""Writes a Mahimahi delivery trace of a cellular-like downlink with outages of several seconds.

The `linux` profile's third kernel-validation path (docs/src/validation-linux.md,
scenarios/linux-trace.toml) replays this trace; the file it ships,
scenarios/traces/cell-outages.down, is `gen_outage_trace.py --seed 1`. Deterministic:
the same seed writes the same bytes (Python's `random.Random(seed)`, one stream,
drawn in a fixed order).

The model, one millisecond at a time:
* the link's rate is piecewise constant: a level drawn U[2, 12] Mbit/s, held U[0.5, 2] s;
* an opportunity is one 1500-byte packet (Mahimahi's unit): each millisecond adds
  rate x 1 ms / 12000 bit of credit and writes one line per whole credit;
* outages: the first starts U[5, 10] s in, each lasts U[2, 6] s, the next starts
  U[8, 15] s after one ends; during an outage no opportunity is written and the
  credit is dropped (the radio is down, nothing is banked);
* the trace lasts `--seconds` (default 60 s): its last line is that instant, which is
  the period after which a replay repeats it.

usage: scripts/gen_outage_trace.py [--seed 1] [--seconds 60] [--out FILE]
"""

import argparse
import random
import sys

PACKET_BITS = 1500 * 8


def outages(rng, end_ms):
    """Outage intervals [start, end) in ms."""
    out, t = [], rng.uniform(5, 10)
    while t * 1000 < end_ms:
        d = rng.uniform(2, 6)
        out.append((int(t * 1000), int((t + d) * 1000)))
        t += d + rng.uniform(8, 15)
    return out


def rate_levels(rng, end_ms):
    """(from_ms, bit/s) steps of the piecewise-constant rate."""
    out, t = [], 0.0
    while t * 1000 < end_ms:
        out.append((int(t * 1000), rng.uniform(2e6, 12e6)))
        t += rng.uniform(0.5, 2.0)
    return out


def trace(seed, seconds):
    """The opportunity times in ms."""
    rng = random.Random(seed)
    end_ms = int(seconds * 1000)
    down = outages(rng, end_ms)
    levels = rate_levels(rng, end_ms)
    times, credit, li, oi = [], 0.0, 0, 0
    for ms in range(1, end_ms + 1):
        while li + 1 < len(levels) and levels[li + 1][0] <= ms:
            li += 1
        while oi < len(down) and down[oi][1] <= ms:
            oi += 1
        if oi < len(down) and down[oi][0] <= ms:
            credit = 0.0
            continue
        credit += levels[li][1] / 1000.0 / PACKET_BITS
        while credit >= 1.0:
            times.append(ms)
            credit -= 1.0
    # The period: the last line must be the trace's length.
    if not times or times[-1] != end_ms:
        times.append(end_ms)
    return times, down


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--out", default="-")
    a = ap.parse_args()
    times, down = trace(a.seed, a.seconds)
    out = sys.stdout if a.out == "-" else open(a.out, "w")
    out.write("".join(f"{t}\n" for t in times))
    for s, e in down:
        print(f"outage {s / 1000:.3f} s - {e / 1000:.3f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
