#!/usr/bin/env python3
"""The gain-cycle start phases a kernel run's BBR drew, read from its pacing gain.

Linux's BBR enters PROBE_BW at a random phase of its eight-phase gain cycle
(net/ipv4/tcp_bbr.c, `bbr_reset_probe_bw_mode`: `cycle_idx = CYCLE_LEN - 1 -
get_random_u32_below(bbr_cycle_rand)`, then `bbr_advance_cycle_phase`). A draw r
cruises through r phases at gain 1 before its first probing phase at gain 5/4
(r = 0 probes at once). Two runs of the kernel on one path thus differ by their
draws, and one run can only be held against the model given the draws it made: the
model replays them with `linux.bbr_cycle_draws`.

The kernel does not report its draw. `spikelab emulate --tcp-info` records the
pacing and cwnd gains (`TCP_CC_INFO`) each time they change; a PROBE_BW entry is a
change of the cwnd gain to 2 (`bbr_update_gains`). For each entry in order, the
model runs with each of the seven draws (the earlier entries' draws fixed) and the
draw whose first probing phase after the entry starts nearest the kernel's is kept;
ties go to the smaller draw. Only the gain timeline before the next entry is read,
never a retransmission or timeout count: this is a reading of an input the kernel
draws at random, checked against the kernel's own state, not a fit to the outcome
the tests compare. The model's gain is its pacing rate over its bandwidth estimate
in `run --trace` (`bbr` rows), less the kernel's 1 % pacing margin.

usage: scripts/bbr_draws.py SCENARIO.toml TCP_INFO.csv [--bin spikelab] [--seed N]
prints the draws separated by ';' (empty: the run never entered PROBE_BW).
"""

import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

BBR_UNIT = 256
PROBE_GAIN = 320  # 5/4 in 1/256
PROBE_BW_CWND_GAIN = 512
# The model's onsets are looked for from this long before the kernel's entry: the
# model's entry may come a few ACKs earlier, and no probing phase comes within it
# before an entry (STARTUP, DRAIN and PROBE_RTT pace at other gains, PROBE_RTT
# for at least 200 ms).
LEAD_S = 0.1


def kernel_series(path):
    """(time, pacing gain, cwnd gain) of each row with BBR's columns."""
    out = []
    for r in csv.DictReader(open(path)):
        if r.get("bbr_pacing_gain"):
            out.append((float(r["time_s"]), int(r["bbr_pacing_gain"]), int(r["bbr_cwnd_gain"])))
    return out


def entries(series):
    """The times the cwnd gain became PROBE_BW's (a PROBE_BW entry)."""
    out, prev = [], None
    for t, _, cwnd_gain in series:
        if cwnd_gain == PROBE_BW_CWND_GAIN and prev != PROBE_BW_CWND_GAIN:
            out.append(t)
        prev = cwnd_gain
    return out


def onsets(steps):
    """The times a (time, probing?) step function starts probing."""
    out, prev = [], False
    for t, probing in steps:
        if probing and not prev:
            out.append(t)
        prev = probing
    return out


def first_in(times, lo, hi):
    return next((t for t in times if lo <= t < hi), None)


def with_draws(scenario_text, draws):
    """The scenario with `draws` replayed by its flow's `linux` table."""
    listed = ", ".join(map(str, draws))
    return re.sub(r"linux = \{", f"linux = {{ bbr_cycle_draws = [{listed}],", scenario_text, count=1)


def model_onsets(spikelab, scenario_text, draws, work, seed=None):
    """The model's probing onsets with `draws` replayed: a probing phase paces at
    5/4 x 0.99 of the bandwidth estimate, cruising at 0.99, draining at 0.74."""
    text = with_draws(scenario_text, draws)
    scen = os.path.join(work, "draws.toml")
    with open(scen, "w") as f:
        f.write(text)
    out = os.path.join(work, "run")
    seed_args = [] if seed is None else ["--seed", str(seed)]
    subprocess.run([spikelab, "run", scen, "--reps", "1", "--trace", "--out", out] + seed_args,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    steps = []
    for r in csv.DictReader(open(os.path.join(out, "trace", "rep0.csv"))):
        if r["event"] == "bbr" and r["a"] not in ("", "0") and r["c"]:
            gain = float(r["c"]) / float(r["a"]) / 0.99
            steps.append((float(r["time_s"]), 1.15 < gain < 1.35))
    return onsets(steps)


def infer(spikelab, scenario, tcp_info, seed=None):
    """The draws of the kernel run whose series is `tcp_info`, on `scenario` (run at
    `seed` when the kernel's run was, `emulate --seed`)."""
    series = kernel_series(tcp_info)
    if not series:
        raise SystemExit(f"{tcp_info}: no BBR columns (record with `emulate --tcp-info`)")
    text = open(scenario).read()
    if not re.search(r"linux = \{", text):
        raise SystemExit(f"{scenario}: no `linux = {{ ... }}` table to add the draws to")
    ks = onsets((t, g == PROBE_GAIN) for t, g, _ in series)
    es = entries(series)
    end = series[-1][0] + 1.0
    draws = []
    with tempfile.TemporaryDirectory() as work:
        for i, e in enumerate(es):
            nxt = es[i + 1] if i + 1 < len(es) else end
            k = first_in(ks, e, nxt)
            k = nxt if k is None else k

            def miss(r):
                ms = model_onsets(spikelab, text, draws + [r], work, seed)
                m = first_in(ms, e - LEAD_S, nxt)
                return abs((nxt if m is None else m) - k)

            draws.append(min(range(7), key=lambda r: (miss(r), r)))
    return draws


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario")
    ap.add_argument("tcp_info")
    ap.add_argument("--bin", default="target/release/spikelab")
    ap.add_argument("--seed", type=int, default=None, help="the run's seed, as emulate --seed")
    a = ap.parse_args()
    print(";".join(map(str, infer(a.bin, a.scenario, a.tcp_info, a.seed))))


if __name__ == "__main__":
    sys.exit(main())
