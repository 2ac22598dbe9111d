#!/usr/bin/env python3
"""The BBR freeze study (docs/src/study-bbr-freeze.md).

Runs scenarios/studies/bbr-freeze.toml with `spikelab run --trace` for each host
(linux profile with bbr, cubic, reno) and freeze length (1-15 s, one freeze at 10 s
of both directions), reads the traces and writes:

* docs/src/study-bbr-freeze/results.csv: one row per host and freeze length;
* docs/src/study-bbr-freeze/table.md: the page's table (included by the page);
* docs/src/study-bbr-freeze/plots/: `spikelab plot` of the BBR runs named in PLOTTED.

Every number on the page comes from these files. Usage:
    scripts/study_bbr_freeze.py --bin target/release/spikelab
"""

import argparse
import csv
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios/studies/bbr-freeze.toml"
OUT = ROOT / "docs/src/study-bbr-freeze"
HOSTS = ["bbr", "cubic", "reno"]
FREEZES = [1, 2, 3, 5, 8, 10, 12, 15]
PLOTTED = [("bbr", 5), ("bbr", 12), ("cubic", 5)]
START = 10.0  # the freeze's start (s), as in the scenario
MSS = 1448


def run(binary, host, freeze, out):
    sets = [
        f'flow.0.tcp.linux.tcp_congestion_control="{host}"',
        f'link.0.spikes.0.at=[{{ start = "10s", duration = "{freeze}s" }}]',
    ]
    cmd = [str(binary), "run", str(SCENARIO), "--trace", "--jobs", "1", "--out", str(out)]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def events(out):
    with open(out / "trace/rep0.csv") as f:
        for row in csv.DictReader(f):
            yield float(row["time_s"]), row["event"], row["a"], row["b"], row["c"]


def last_before(series, t):
    """The last value recorded at or before time t (None if none)."""
    value = None
    for when, v in series:
        if when > t:
            break
        value = v
    return value


def measure(out, freeze):
    bbr, cwnd, una, timeouts = [], [], [], []
    for t, ev, a, b, c in events(out):
        if ev == "bbr":
            bbr.append((t, (int(a), float(b) if b else None, int(c))))
        elif ev == "cwnd":
            cwnd.append((t, int(a)))
        elif ev == "snd":
            una.append((t, int(a)))
        elif ev == "timeout":
            timeouts.append((t, b == "1"))
    end = START + freeze
    row = {}
    for name, t in [("before", START - 0.001), ("after1s", end + 1.0)]:
        m = last_before(bbr, t)
        row[f"bw_mbps_{name}"] = f"{m[0] * 8 / 1e6:.3f}" if m else ""
        row[f"min_rtt_ms_{name}"] = f"{m[1] * 1e3:.1f}" if m and m[1] is not None else ""
        row[f"pacing_mbps_{name}"] = f"{m[2] * 8 / 1e6:.3f}" if m else ""
        c = last_before(cwnd, t)
        row[f"cwnd_seg_{name}"] = f"{c / MSS:.1f}" if c is not None else ""
    # The peaks in the 2 s after the freeze: a post-freeze RTT taken as min_rtt, and
    # the cwnd and pacing rate that follow from it.
    window = lambda series: [v for t, v in series if end < t <= end + 2.0]
    rtts = [m[1] for m in window(bbr) if m[1] is not None]
    row["min_rtt_ms_peak"] = f"{max(rtts) * 1e3:.1f}" if rtts else ""
    paces = [m[2] for m in window(bbr)]
    row["pacing_mbps_peak"] = f"{max(paces) * 8 / 1e6:.3f}" if paces else ""
    cw = window(cwnd)
    row["cwnd_seg_peak"] = f"{max(cw) / MSS:.1f}" if cw else ""
    row["rtos"] = sum(1 for t, _ in timeouts if START <= t <= end + 1.0)
    row["spurious_rtos"] = sum(1 for t, s in timeouts if START <= t <= end + 1.0 and s)
    una0, una5 = last_before(una, end), last_before(una, end + 5.0)
    row["mbps_5s_after"] = f"{(una5 - una0) * 8 / 5.0 / 1e6:.3f}" if una0 is not None else ""
    return row


COLUMNS = [
    "host", "freeze_s", "rtos", "spurious_rtos",
    "cwnd_seg_before", "cwnd_seg_peak", "cwnd_seg_after1s", "mbps_5s_after",
    "bw_mbps_before", "bw_mbps_after1s",
    "min_rtt_ms_before", "min_rtt_ms_peak", "min_rtt_ms_after1s",
    "pacing_mbps_before", "pacing_mbps_peak", "pacing_mbps_after1s",
]


def table(rows):
    head = ["host", "freeze (s)", "RTOs (spurious)", "cwnd before / peak / +1 s (seg)",
            "Mbit/s in the 5 s after", "BBR bw before / +1 s (Mbit/s)",
            "BBR min_rtt before / peak / +1 s (ms)", "pacing before / peak / +1 s (Mbit/s)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        three = lambda k: " / ".join(r[f"{k}_{w}"] or "–" for w in ["before", "peak", "after1s"])
        two = lambda k: " / ".join(r[f"{k}_{w}"] or "–" for w in ["before", "after1s"])
        bbr = r["host"] == "bbr"
        cells = [r["host"], str(r["freeze_s"]), f'{r["rtos"]} ({r["spurious_rtos"]})',
                 three("cwnd_seg"), r["mbps_5s_after"],
                 two("bw_mbps") if bbr else "–", three("min_rtt_ms") if bbr else "–",
                 three("pacing_mbps") if bbr else "–"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=str(ROOT / "target/release/spikelab"))
    args = p.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(OUT / "plots", ignore_errors=True)
    (OUT / "plots").mkdir()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for host in HOSTS:
            for freeze in FREEZES:
                out = Path(tmp) / f"{host}-{freeze}"
                run(args.bin, host, freeze, out)
                rows.append({"host": host, "freeze_s": freeze, **measure(out, freeze)})
                if (host, freeze) in PLOTTED:
                    subprocess.run([args.bin, "plot", str(out)], check=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    # The estimates and the window panels as PNG (the SVGs and the
                    # time-sequence plots are megabytes each).
                    for f in sorted((out / "plots").glob("*.png")):
                        if "-tseq" in f.name:
                            continue
                        shutil.copy(f, OUT / "plots" / f"{host}-{freeze}s-{f.name}")
    with open(OUT / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    (OUT / "table.md").write_text(table(rows))


if __name__ == "__main__":
    main()
