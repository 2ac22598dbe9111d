#!/usr/bin/env python3
"""Promptness W and predictability W_95 of [Ekström & Ludwig 2004] (IV.C.2-3), taken apart,
from `spikelab run scenarios/peak-hopper-a.toml --trace --out DIR` (any `--set`).

    python3 scripts/ph_promptness.py DIR [DIR ...]

Per flow group (the flow name before `#`, e.g. `ping-ph`), pooled over repetitions:
  * W_i = RTO_i / RTT_i over the necessary timeouts that start a recovery phase
    (timeouts.csv: backoff 0, not in fast recovery, not spurious by the ground truth),
    as spikelab_experiments::timer_metrics does; `w95` is the 95th percentile of the
    pooled W_i (linear interpolation, numpy's default), `w95_runs` the largest per-run
    value when a folder has several repetitions;
  * `first_seg`: how many of those timeouts hit the first data segment (snd_una <= 1):
    its RTO is 3 RTT_SYN and its last sample RTT_SYN (III.C, and V.A's modified RFC 2988
    initialisation), so W_i = 3 by construction; `w95_later` is W_95 without them;
  * `p95`: the 95th percentile of P_j = RTO_j / RTT_j over *every* RTT sample of the same
    flows (trace rows `rtt`, and the `rto` the sender re-armed with at that instant).
    W_i is P at the moment of a loss (a ping-pong sender's timer runs from the RTO it
    computed on the previous ACK), so w95 close to p95 says the losses are not special:
    the W_95 gap is the spread of RTO / RTT between any two consecutive samples;
  * `fell`: the share of W_i > 1.5 whose last RTT sample was below the one before it
    (the RTO was set on the higher one: Peak-Hopper's RTT_max and decay, RFC 2988's
    smoothing), and `q_med` the median ratio previous / last sample over those;
  * `rtt_step95`: the 95th percentile of previous / last over all consecutive samples.
"""

import csv
import glob
import json
import math
import os
import sys
from collections import defaultdict


def pct(xs, q):
    """Linear-interpolation percentile (Hyndman-Fan type 7)."""
    xs = sorted(xs)
    if not xs:
        return math.nan
    h = (len(xs) - 1) * q / 100.0
    lo = math.floor(h)
    return xs[lo] + (h - lo) * (xs[min(lo + 1, len(xs) - 1)] - xs[lo])


def group(name):
    return name.split("#")[0]


def traces(folder):
    """Per repetition: {flow index: [(time, rtt, rto_after)]}."""
    out = {}
    for path in sorted(glob.glob(os.path.join(folder, "trace", "rep*.csv"))):
        rep = int(os.path.basename(path)[3:-4])
        per = defaultdict(list)
        rto = {}
        pending = []  # (flow, time, rtt) awaiting the rto of the same instant
        cur_t = None
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                t = float(row["time_s"])
                if t != cur_t:
                    for fl, tt, r in pending:
                        per[fl].append((tt, r, rto.get(fl)))
                    pending, cur_t = [], t
                fl = int(row["flow"])
                if row["event"] == "rto":
                    rto[fl] = float(row["a"])
                elif row["event"] == "rtt":
                    pending.append((fl, t, float(row["a"])))
        for fl, tt, r in pending:
            per[fl].append((tt, r, rto.get(fl)))
        out[rep] = per
    return out


def analyse(folder):
    with open(os.path.join(folder, "meta.json")) as f:
        meta = json.load(f)
    names = [f["name"] for f in meta["scenario"]["flows"]]
    index = {n: i for i, n in enumerate(names)}
    tr = traces(folder)
    w = defaultdict(list)
    w_run = defaultdict(lambda: defaultdict(list))
    w_later = defaultdict(list)  # without the first data segment's timeouts
    fell = defaultdict(lambda: [0, 0])
    qs = defaultdict(list)
    with open(os.path.join(folder, "timeouts.csv"), newline="") as f:
        timeouts = list(csv.DictReader(f))
    for row in timeouts:
        if row["backoff"] != "0" or row["in_fast_recovery"] == "1" or row["spurious"] == "1":
            continue
        if not row["last_rtt_s"]:
            continue
        g = group(row["flow"])
        wi = float(row["rto_s"]) / float(row["last_rtt_s"])
        w[g].append(wi)
        w_run[g][row["rep"]].append(wi)
        if int(row["seq"]) > 1:
            w_later[g].append(wi)
        if wi > 1.5:
            t = float(row["time_s"])
            samples = [s for s in tr.get(int(row["rep"]), {}).get(index[row["flow"]], []) if s[0] <= t]
            if len(samples) >= 2:
                prev, last = samples[-2][1], samples[-1][1]
                fell[g][1] += 1
                if last < prev:
                    fell[g][0] += 1
                    qs[g].append(prev / last)
    p = defaultdict(list)
    steps = defaultdict(list)
    for per in tr.values():
        for fl, samples in per.items():
            g = group(names[fl])
            p[g] += [r_to / r for _, r, r_to in samples if r_to is not None and r > 0]
            steps[g] += [a[1] / b[1] for a, b in zip(samples, samples[1:]) if b[1] > 0]
    out = {}
    for g in sorted(w):
        runs = [pct(v, 95) for v in w_run[g].values()]
        f, n = fell[g]
        out[g] = {
            "necessary": len(w[g]),
            "w_mean": sum(w[g]) / len(w[g]),
            "w50": pct(w[g], 50),
            "w95": pct(w[g], 95),
            "w95_runs": max(runs),
            "first_seg": len(w[g]) - len(w_later[g]),
            "w95_later": pct(w_later[g], 95),
            "p95": pct(p[g], 95),
            "above1.5": sum(x > 1.5 for x in w[g]) / len(w[g]),
            "fell": f / n if n else math.nan,
            "q_med": pct(qs[g], 50),
            "rtt_step95": pct(steps[g], 95),
        }
    return out


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    for folder in argv:
        for g, fields in analyse(folder).items():
            line = " ".join(
                f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in fields.items()
            )
            print(f"{os.path.basename(folder.rstrip('/'))} {g}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
