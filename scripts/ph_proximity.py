#!/usr/bin/env python3
"""The proximity P of [Ekström & Ludwig 2004] (IV.C.4) and the RTT dynamics behind it,
from the traces of `spikelab run SCENARIO --trace --out DIR`.

    python3 scripts/ph_proximity.py DIR [DIR ...] [--flow 0]

P_j = RTO_j / RTT_j, computed at every RTT sample: RTO_j is the RTO in force after the
sender processed the ACK that gave sample RTT_j (the trace's `rto` rows, written when the
armed RTO changes; a bulk sender re-arms its timer on every ACK of new data, RFC 6298
5.3, so this is the RTO the estimator just computed), RTT_j the sample (`rtt` rows).
This is what spikelab_experiments::timer_metrics::p_j does on the engine's own records;
the script exists so that P can be measured over any `--set` variation of a scenario
without new Rust (the reproduction's grid has no P metric).

Printed per folder, pooled over its repetitions (one line, `key=value`):
  n, mean and 50/95/99th percentiles of P (the 95th as the reproduction bins it: the
  upper edge of the 0.01-wide bin holding the 95 % point); the RTT samples' 5th / 50th /
  95th percentiles and their ratio p95/p5 (how far the RTT moves); `drops20`: the share
  of samples at least 20 % below the previous sample (the sharp RTT drops that the
  paper's "prediction flaw", II.E, needs); timeouts and data segments from runs.csv and
  bottleneck drops from links.csv.
"""

import csv
import glob
import math
import os
import sys
from collections import defaultdict


def p_values(trace_path, flow):
    """(P_j list, RTT sample list) of one trace file for one flow."""
    ps, rtts = [], []
    rto = None
    group_time, pending = None, []

    def flush():
        for r in pending:
            if rto is not None and r > 0:
                ps.append(rto / r)
        pending.clear()

    with open(trace_path, newline="") as f:
        for row in csv.DictReader(f):
            if int(row["flow"]) != flow:
                continue
            t = row["time_s"]
            if t != group_time:
                flush()
                group_time = t
            ev = row["event"]
            if ev == "rto":
                rto = float(row["a"])
            elif ev == "rtt":
                r = float(row["a"])
                rtts.append(r)
                pending.append(r)
    flush()
    return ps, rtts


def pct(sorted_xs, q):
    """The q-th percentile (0..100) as the value at rank ceil(q n / 100)."""
    if not sorted_xs:
        return math.nan
    k = max(0, math.ceil(q / 100.0 * len(sorted_xs)) - 1)
    return sorted_xs[k]


def binned(x, width=0.01):
    """Upper edge of the bin holding x (PHistogram::percentile's convention)."""
    return (math.floor(x / width) + 1) * width


def run_counts(folder, flow_name=None):
    out = defaultdict(int)
    path = os.path.join(folder, "runs.csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        for row in rows:
            if flow_name and row["flow"] != flow_name:
                continue
            for k in ("timeouts", "spurious_timeouts", "data_segments_sent", "fast_retransmits"):
                out[k] += int(row[k])
    path = os.path.join(folder, "links.csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        for row in rows:
            for k in row:
                if k.startswith("drop") and row[k] not in ("", "NaN"):
                    try:
                        out["link_" + k] += int(float(row[k]))
                    except ValueError:
                        pass
    return out


def summarize(folder, flow):
    ps, rtts, drops, pairs = [], [], 0, 0
    for path in sorted(glob.glob(os.path.join(folder, "trace", "rep*.csv"))):
        p, r = p_values(path, flow)
        ps += p
        rtts += r
        for a, b in zip(r, r[1:]):
            pairs += 1
            drops += b <= 0.8 * a
    ps.sort()
    rs = sorted(rtts)
    counts = run_counts(folder)
    fields = {
        "n": len(ps),
        "p_mean": sum(ps) / len(ps) if ps else math.nan,
        "p50": binned(pct(ps, 50)),
        "p95": binned(pct(ps, 95)),
        "p99": binned(pct(ps, 99)),
        "rtt_p5": pct(rs, 5),
        "rtt_p50": pct(rs, 50),
        "rtt_p95": pct(rs, 95),
        "rtt_spread": pct(rs, 95) / pct(rs, 5) if rs else math.nan,
        "drops20": drops / pairs if pairs else math.nan,
    }
    fields.update(counts)
    return fields


def main(argv):
    flow = 0
    if "--flow" in argv:
        i = argv.index("--flow")
        flow = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2 :]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    for folder in argv:
        s = summarize(folder, flow)
        line = " ".join(
            f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in s.items()
        )
        print(f"{os.path.basename(folder.rstrip('/'))}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
