#!/usr/bin/env python3
"""Records the kernel on the real-path library (scenarios/paths/) as test data.

Runs `spikelab emulate` (root, /dev/net/tun) on each recorded cellular drive trace,
one 4 MB download per (trace, congestion control, tcp_frto, start offset), and
writes one CSV row per run with what the `linux` profile is held against by
crates/scenario/tests/linux_paths.rs: completion time, data segments sent,
retransmitted segments, timeouts, the seven undo counters of runs.csv (the kernel's
names), the forwarder's lateness and the machine's load average when the run ended
(a loaded machine makes the emulator late: check `lateness_p99_ms`).

Each run replaces two lines of the path's scenario: the flow's `start` (a fixed
offset into the trace instead of the scenario's random draw) and its `tcp` table
(`tcp_frto` and `tcp_congestion_control` added to `linux`); the trace paths are made
absolute. Offset k of N (k = 0..N-1) of a scenario whose start is drawn in
[0, max] is round(max * (k + 0.5) / N) seconds: the test rebuilds the same scenario
from the row.

usage: sudo scripts/record_kernel_paths.py [--traces att-lte-drive,...] [--offsets 10]
            [--first K] [--at 96,...] [--missing] [--repeat R] [--cc reno,cubic,bbr]
            [--frto 2,0] [--wait] [--lock FILE] [--pcap] [--bin PATH]
            [--work DIR] [--out CSV] [--append]

The defaults record everything (3 traces x 10 offsets x reno/cubic/bbr x frto 2/0: 180
runs). The emulator replays a trace from the run's start, so a download at offset T
needs the trace as it is T seconds in. By default each trace of the path (both
directions) is shifted instead: a copy holding the opportunities at T or later, moved
back by T, and the flow starts at 0 (column `trace_shift` = 1). The download meets the
same opportunities at the same times after its start as at offset T of the whole trace
(the link is idle before a download, and the offsets leave 90 s of trace: nothing wraps
during a download); crates/scenario/tests/linux_paths.rs checks that the model gives
the same run both ways. `--wait` records as first done (column 0): the whole trace, the
flow starting at T, the run waiting T seconds in real time (11 hours for the set).
`--first K` records only the first K offsets of each trace; `--at` records the listed
offsets (seconds) instead; `--missing` skips configurations `--out` already holds.
`--lock FILE` runs each emulation under `flock FILE` (one emulation at a time on a
machine shared with other recorders). The kernel
is not deterministic on a shared machine (the forwarder's timing against the sender's
bursts decides which packet a full queue drops): `--repeat R` records each run R
times more, numbered by the `recording` column after the highest already in `--out`
for the same configuration, and `--pcap` keeps each run's capture (`emulate --pcap`)
in its work folder, runs the model on the same scenario with `--pcap` beside it
(`<run>-model`) and writes the first diverging decision into the run's folder
(`spikelab diverge`: `divergence.txt`, `divergence.csv`; its first line is printed).
A BBR run is recorded with the sender's series (`emulate --tcp-info`, with BBR's gains)
and the gain-cycle start phases it drew at random are read from it into the
`bbr_draws` column (scripts/bbr_draws.py; `-` when BBR never entered PROBE_BW); the
model's run beside a BBR capture replays them.
"""

import argparse
import csv
import os
import platform
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bbr_draws  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PATHS = os.path.join(ROOT, "scenarios", "paths")
TRACES = ["att-lte-drive", "tmobile-lte-drive", "tmobile-umts-drive"]
UNDO = [
    "TcpExtTCPLossUndo", "TcpExtTCPSpuriousRTOs", "TcpExtTCPDSACKUndo", "TcpExtTCPFullUndo",
    "TcpExtTCPPartialUndo", "TcpExtTCPSackRecoveryFail", "TcpExtTCPRenoRecoveryFail",
]
FIELDS = [
    "trace", "cc", "tcp_frto", "offset_s", "recording", "kernel", "completion_s", "data_segments_sent",
    "retransmissions", "timeouts", *UNDO, "lateness_p99_ms", "loadavg", "trace_shift",
    "bbr_draws", "timer_stamps",
]
# How the emulator stamped the packets the kernel sent from its timers: "own-end" (since
# 3c0bfba: less the lag of the last write into the same end's device), "any-end"
# (before: the last write into either end, which moved a paced sender's segments early
# behind a burst of deliveries to the receiver). Rows recorded before the column existed
# are "any-end".
TIMER_STAMPS = "own-end"


def start_max(text):
    """The `max` of the flow's `start = { min = "0s", max = "Ns" }` line, seconds."""
    m = re.search(r'^start = \{ min = "0s", max = "(\d+)s" \}', text, re.M)
    if not m:
        sys.exit("no start range in the scenario")
    return int(m.group(1))


def offsets(text, n):
    top = start_max(text)
    return [round(top * (k + 0.5) / n) for k in range(n)]


def shifted_trace(text, offset):
    """A Mahimahi trace as seen from `offset` seconds in: the opportunities at or after
    it, moved back by it (crates/scenario/tests/linux_paths.rs builds the same)."""
    ms = offset * 1000
    out = [str(int(t) - ms) for t in text.split() if int(t) >= ms]
    if not out or out[-1] == "0":
        sys.exit(f"nothing of the trace is left at {offset} s")
    return "\n".join(out) + "\n"


def scenario_text(text, offset, cc, frto, shift_dir=None):
    """The path's scenario with a fixed start, the kernel's settings and absolute traces
    (the same substitutions as crates/scenario/tests/linux_paths.rs); with `shift_dir`,
    the traces shifted by the offset (written there) and the start at 0."""
    start = 0 if shift_dir else offset
    out = re.sub(r'^start = \{[^}]*\}$', f'start = "{start}s"', text, count=1, flags=re.M)
    out = out.replace(
        "linux = { so_rcvbuf = 1048576 }",
        f'linux = {{ tcp_frto = {frto}, tcp_congestion_control = "{cc}", so_rcvbuf = 1048576 }}',
    )
    if out.count(f'start = "{start}s"') != 1 or "tcp_frto" not in out:
        sys.exit("the scenario's start or tcp line is not the expected one")
    traces = os.path.abspath(os.path.join(PATHS, "traces"))
    if not shift_dir:
        return out.replace('trace = "traces/', f'trace = "{traces}/')
    for name in sorted(set(re.findall(r'trace = "traces/([^"]+)"', out))):
        shifted = os.path.join(shift_dir, f"{name}.from{offset}s")
        with open(shifted, "w") as f:
            f.write(shifted_trace(open(os.path.join(traces, name)).read(), offset))
        out = out.replace(f'trace = "traces/{name}"', f'trace = "{shifted}"')
    return out


def diverge(spikelab, scen, out):
    """The model's run of `scen` with captures beside the kernel's `out`, and where the
    two first part (`spikelab diverge`), into `out`."""
    model = out + "-model"
    subprocess.run([spikelab, "run", scen, "--reps", "1", "--pcap", "--out", model],
                   check=True, stdout=subprocess.DEVNULL)
    text = subprocess.run([spikelab, "diverge", out, model, "--csv",
                           os.path.join(out, "divergence.csv")],
                          check=True, capture_output=True, text=True).stdout
    with open(os.path.join(out, "divergence.txt"), "w") as f:
        f.write(text)
    print(text.splitlines()[0] if text else "", file=sys.stderr)


def one(a, trace, cc, frto, offset, recording=1):
    text = open(os.path.join(PATHS, f"{trace}.toml")).read()
    name = f"{trace}-{cc}-frto{frto}-{offset}-r{recording}"
    scen = os.path.join(a.work, f"{name}.toml")
    os.makedirs(a.work, exist_ok=True)
    with open(scen, "w") as f:
        f.write(scenario_text(text, offset, cc, frto, None if a.wait else a.work))
    out = os.path.join(a.work, name)
    cmd = [a.bin, "emulate", scen, "--reps", "1", "--out", out] + (["--pcap"] if a.pcap else [])
    # BBR's gains over time: the draws it made (scripts/bbr_draws.py).
    cmd += ["--tcp-info"] if cc == "bbr" else []
    if a.lock:
        cmd = ["flock", a.lock] + cmd
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    draws = []
    if cc == "bbr":
        series = os.path.join(out, "tcp_info", "rep0-download.csv")
        draws = bbr_draws.infer(a.bin, scen, series)
    if a.pcap:
        model = scen
        if draws:
            model = os.path.join(a.work, f"{name}-draws.toml")
            with open(model, "w") as f:
                f.write(bbr_draws.with_draws(open(scen).read(), draws))
        diverge(a.bin, model, out)
    row = next(csv.DictReader(open(os.path.join(out, "runs.csv"))))
    meta = open(os.path.join(out, "meta.json")).read()
    p99 = max(float(x) for x in re.findall(r'"p99_ms": ([0-9.]+)', meta))
    rec = {
        "trace": trace, "cc": cc, "tcp_frto": frto, "offset_s": offset,
        "recording": recording, "kernel": platform.release(),
        "completion_s": row["download_time_s"],
        "data_segments_sent": row["data_segments_sent"],
        "retransmissions": row["retransmissions"],
        "timeouts": row["timeouts"],
        "lateness_p99_ms": f"{p99:.3f}",
        "loadavg": f"{os.getloadavg()[0]:.1f}",
        "trace_shift": 0 if a.wait else 1,
        # Empty: no series read (not BBR); "-": read, BBR never entered PROBE_BW.
        "bbr_draws": ";".join(map(str, draws)) or ("-" if cc == "bbr" else ""),
        "timer_stamps": TIMER_STAMPS,
    }
    rec.update({k: row[k] for k in UNDO})
    return rec


def upgrade(path):
    """Rewrites a recording CSV written before a column existed with today's columns,
    a missing `timer_stamps` as "any-end" (how those rows were stamped)."""
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        if r.fieldnames == FIELDS:
            return
        rows = list(r)
    for row in rows:
        row.setdefault("timer_stamps", "any-end")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", default=",".join(TRACES))
    ap.add_argument("--offsets", type=int, default=10)
    ap.add_argument("--first", type=int, default=None)
    ap.add_argument("--at", default=None, help="offsets in seconds, comma-separated")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--missing", action="store_true")
    ap.add_argument("--wait", action="store_true")
    ap.add_argument("--lock", default=None)
    ap.add_argument("--pcap", action="store_true")
    ap.add_argument("--cc", default="reno,cubic,bbr")
    ap.add_argument("--frto", default="2,0")
    ap.add_argument("--bin", default="target/release/spikelab")
    ap.add_argument("--work", default="out/kernel-paths")
    ap.add_argument("--out", default="-")
    ap.add_argument("--append", action="store_true")
    a = ap.parse_args()
    exists = a.out != "-" and os.path.exists(a.out)
    if exists and a.append:
        upgrade(a.out)
    done = {}
    for r in csv.DictReader(open(a.out)) if exists and a.append else []:
        key = (r["trace"], r["cc"], r["tcp_frto"], r["offset_s"])
        done[key] = max(done.get(key, 0), int(r["recording"]))
    f = sys.stdout if a.out == "-" else open(a.out, "a" if a.append else "w", newline="")
    w = csv.DictWriter(f, FIELDS)
    if not (a.append and exists):
        w.writeheader()
    for trace in a.traces.split(","):
        text = open(os.path.join(PATHS, f"{trace}.toml")).read()
        for cc in a.cc.split(","):
            for frto in a.frto.split(","):
                at = [int(x) for x in a.at.split(",")] if a.at else None
                for offset in at or offsets(text, a.offsets)[: a.first]:
                    have = done.get((trace, cc, frto, str(offset)), 0)
                    if a.missing and have:
                        continue
                    for n in range(have + 1, have + 1 + a.repeat):
                        rec = one(a, trace, cc, int(frto), offset, n)
                        w.writerow(rec)
                        f.flush()
                        print(trace, cc, frto, offset, n, rec["completion_s"],
                              rec["retransmissions"], file=sys.stderr)


if __name__ == "__main__":
    main()
