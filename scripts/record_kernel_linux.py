#!/usr/bin/env python3
"""Records the kernel's per-seed results on the Table 1 freeze path as test data.

Runs only `spikelab emulate` (root, /dev/net/tun) on the scenarios of
scripts/validate_kernel.py -- [Gurtov & Ludwig 2003]'s Table 1 path, ten freeze schedules,
configurations (a) timestamps + F-RTO, (b) F-RTO only, (c) neither -- and writes one
CSV row per (configuration, seed) with what the `linux` profile is held against:
completion time, data segments sent, retransmitted segments, timeouts (and timeout
episodes), the sender namespace's undo counters, and the freeze schedule itself
(start/duration seconds) so that `cargo test` rebuilds the same scenario.

usage: sudo scripts/record_kernel_linux.py [--seeds 10] [--jobs 2] [--work DIR]
                                          [--bin PATH] [--configs abc] [--cc reno]
                                          [--out CSV]

`--cc cubic` runs the kernel's CUBIC (`spikelab emulate --cc`) instead of reno.
"""

import argparse
import concurrent.futures as cf
import csv
import os
import platform
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_kernel as vk  # noqa: E402

FIELDS = [
    "config", "seed", "kernel", "freezes", "completion_s", "data_segments_sent", "retransmissions",
    "timeouts", "timeout_episodes", "spurious_timeouts", "TCPSpuriousRTOs", "TCPLossUndo",
    "TCPDSACKUndo", "TCPFastRetrans", "lateness_p99_ms",
]


def one(bin_, work, cfg, seed, cc):
    import json
    path = os.path.join(work, f"{cfg}-{seed}.toml")
    with open(path, "w") as f:
        f.write(vk.scenario(cfg, seed))
    emu = os.path.join(work, f"emu-{cfg}-{seed}-{cc}")
    if not os.path.exists(os.path.join(emu, "runs.csv")):
        subprocess.run([bin_, "emulate", path, "--cc", cc, "--out", emu], check=True,
                       capture_output=True)
    run = vk.read_runs(emu)
    k = vk.kernel_counters(emu)
    late = json.load(open(os.path.join(emu, "meta.json")))["emulation"]["repetitions"][0]["lateness"]
    return {
        "config": cfg, "seed": seed, "kernel": platform.release(),
        # The schedule itself, so that tests need not re-derive Python's random stream.
        "freezes": " ".join(f"{s}/{d}" for s, d in vk.schedule(seed)),
        "completion_s": run["download_time_s"],
        "data_segments_sent": run["data_segments_sent"],
        "retransmissions": run["retransmissions"],
        "timeouts": run["timeouts"],
        "timeout_episodes": run.get("timeout_episodes", ""),
        "spurious_timeouts": run["spurious_timeouts"],
        "TCPSpuriousRTOs": k.get("TcpExt.TCPSpuriousRTOs", 0),
        "TCPLossUndo": k.get("TcpExt.TCPLossUndo", 0),
        "TCPDSACKUndo": k.get("TcpExt.TCPDSACKUndo", 0),
        "TCPFastRetrans": k.get("TcpExt.TCPFastRetrans", 0),
        "lateness_p99_ms": f"{late['p99_ms']:.3f}",
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work", default="out/kernel-linux")
    ap.add_argument("--bin", default="target/release/spikelab")
    ap.add_argument("--configs", default="abc")
    ap.add_argument("--cc", default="reno", choices=["reno", "cubic"])
    ap.add_argument("--out", default="-")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    jobs = [(c, s) for c in a.configs for s in range(1, a.seeds + 1)]
    rows = []
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        for f in cf.as_completed([ex.submit(one, a.bin, a.work, c, s, a.cc) for c, s in jobs]):
            r = f.result()
            rows.append(r)
            print(f"done {r['config']}-{r['seed']}: {r['completion_s']} s", file=sys.stderr)
    rows.sort(key=lambda r: (r["config"], r["seed"]))
    out = sys.stdout if a.out == "-" else open(a.out, "w", newline="")
    w = csv.DictWriter(out, FIELDS)
    w.writeheader()
    w.writerows(rows)


if __name__ == "__main__":
    main()
