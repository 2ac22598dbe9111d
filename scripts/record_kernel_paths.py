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
            [--first K] [--at 96,...] [--repeat R] [--cc reno,cubic] [--frto 2,0]
            [--pcap] [--bin PATH] [--work DIR] [--out CSV] [--append]

The defaults record everything (3 traces x 10 offsets x reno/cubic x frto 2/0: 120
runs): run it on a quiet machine. Each run waits its offset in real time before the
download starts (the emulator replays the trace from the run's start), so the whole
set takes about 11 hours, mostly waiting. `--first K` records only the first K
offsets of each trace; `--at` records the listed offsets (seconds) instead. The kernel
is not deterministic on a shared machine (the forwarder's timing against the sender's
bursts decides which packet a full queue drops): `--repeat R` records each run R
times more, numbered by the `recording` column after the highest already in `--out`
for the same configuration, and `--pcap` keeps each run's capture (`emulate --pcap`)
in its work folder for the diff against `spikelab run --trace`.
"""

import argparse
import csv
import os
import platform
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PATHS = os.path.join(ROOT, "scenarios", "paths")
TRACES = ["att-lte-drive", "tmobile-lte-drive", "tmobile-umts-drive"]
UNDO = [
    "TcpExtTCPLossUndo", "TcpExtTCPSpuriousRTOs", "TcpExtTCPDSACKUndo", "TcpExtTCPFullUndo",
    "TcpExtTCPPartialUndo", "TcpExtTCPSackRecoveryFail", "TcpExtTCPRenoRecoveryFail",
]
FIELDS = [
    "trace", "cc", "tcp_frto", "offset_s", "recording", "kernel", "completion_s", "data_segments_sent",
    "retransmissions", "timeouts", *UNDO, "lateness_p99_ms", "loadavg",
]


def start_max(text):
    """The `max` of the flow's `start = { min = "0s", max = "Ns" }` line, seconds."""
    m = re.search(r'^start = \{ min = "0s", max = "(\d+)s" \}', text, re.M)
    if not m:
        sys.exit("no start range in the scenario")
    return int(m.group(1))


def offsets(text, n):
    top = start_max(text)
    return [round(top * (k + 0.5) / n) for k in range(n)]


def scenario_text(text, offset, cc, frto):
    """The path's scenario with a fixed start, the kernel's settings and absolute traces
    (the same substitutions as crates/scenario/tests/linux_paths.rs)."""
    out = re.sub(r'^start = \{[^}]*\}$', f'start = "{offset}s"', text, count=1, flags=re.M)
    out = out.replace(
        "linux = { so_rcvbuf = 1048576 }",
        f'linux = {{ tcp_frto = {frto}, tcp_congestion_control = "{cc}", so_rcvbuf = 1048576 }}',
    )
    out = out.replace('trace = "traces/', f'trace = "{os.path.abspath(PATHS)}/traces/')
    if out.count(f'start = "{offset}s"') != 1 or "tcp_frto" not in out:
        sys.exit("the scenario's start or tcp line is not the expected one")
    return out


def one(bin_, work, trace, cc, frto, offset, recording=1, pcap=False):
    text = open(os.path.join(PATHS, f"{trace}.toml")).read()
    name = f"{trace}-{cc}-frto{frto}-{offset}-r{recording}"
    scen = os.path.join(work, f"{name}.toml")
    os.makedirs(work, exist_ok=True)
    with open(scen, "w") as f:
        f.write(scenario_text(text, offset, cc, frto))
    out = os.path.join(work, name)
    cmd = [bin_, "emulate", scen, "--reps", "1", "--out", out] + (["--pcap"] if pcap else [])
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
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
    }
    rec.update({k: row[k] for k in UNDO})
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", default=",".join(TRACES))
    ap.add_argument("--offsets", type=int, default=10)
    ap.add_argument("--first", type=int, default=None)
    ap.add_argument("--at", default=None, help="offsets in seconds, comma-separated")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--pcap", action="store_true")
    ap.add_argument("--cc", default="reno,cubic")
    ap.add_argument("--frto", default="2,0")
    ap.add_argument("--bin", default="target/release/spikelab")
    ap.add_argument("--work", default="out/kernel-paths")
    ap.add_argument("--out", default="-")
    ap.add_argument("--append", action="store_true")
    a = ap.parse_args()
    exists = a.out != "-" and os.path.exists(a.out)
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
                    first = done.get((trace, cc, frto, str(offset)), 0) + 1
                    for n in range(first, first + a.repeat):
                        rec = one(a.bin, a.work, trace, cc, int(frto), offset, n, a.pcap)
                        w.writerow(rec)
                        f.flush()
                        print(trace, cc, frto, offset, n, rec["completion_s"],
                              rec["retransmissions"], file=sys.stderr)


if __name__ == "__main__":
    main()
