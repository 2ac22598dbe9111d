#!/usr/bin/env python3
"""Records the kernel's per-seed results on the `linux` profile's validation paths as test data.

Runs only `spikelab emulate` (root, /dev/net/tun) on the scenarios of
scripts/validate_kernel.py -- [Gurtov & Ludwig 2003]'s Table 1 path, ten freeze schedules,
configurations (a) timestamps + F-RTO, (b) F-RTO only, (c) neither -- and writes one
CSV row per (configuration, seed) with what the `linux` profile is held against:
completion time, data segments sent, retransmitted segments, timeouts (and timeout
episodes), the sender namespace's undo counters, and the freeze schedule itself
(start/duration seconds) so that `cargo test` rebuilds the same scenario.

usage: sudo scripts/record_kernel_linux.py [--path table1] [--seeds 10] [--jobs 2]
                                          [--work DIR] [--bin PATH] [--configs abc]
                                          [--cc reno] [--pcap] [--tcp-info] [--out CSV]

`--cc cubic` (or `bbr`) runs the kernel's CUBIC (or BBR) (`spikelab emulate --cc`) instead of reno.

`--path outages` records scenarios/linux-outages.toml (100 Mbit/s, multi-second outages in
both directions) instead: seed s draws its outage schedule with `outages(s)` and the
scenario's `at = [...]` line is replaced by it (the `freezes` column holds it, so the
test replays it without Python's random stream). `--path trace` records
scenarios/linux-trace.toml (a replayed delivery trace with outages,
scenarios/traces/cell-outages.down from scripts/gen_outage_trace.py): seed s starts
the download `trace_offset(s)` seconds into the trace (the scenario's flow `start`
line replaced; column `start_s`). Both run with the scenario's own sysctls (the
kernel's defaults); `--configs` applies to table1 only. `--pcap` keeps both ends'
packet captures in the work directory (for diffing against `spikelab run --pcap`);
`--tcp-info` keeps the sender's TCP_INFO over time (`spikelab emulate --tcp-info`:
cwnd, ssthresh, ca_state, ... in tcp_info/rep0-tcp.csv of each run's folder); with
`--cc bbr` it also reads the gain-cycle start phases BBR drew at random from the
series (scripts/bbr_draws.py, against the model's scenario as
crates/scenario/tests/linux_kernel.rs builds it) into the `bbr_draws` column (empty:
not read; `-`: BBR never entered PROBE_BW), which the tests replay.

`--path table2` records the congested path of [Gurtov & Ludwig 2003] Tables 2-4
(scenarios/eifel-response-cbr.toml: the Table 1 path plus a competing 1 Mbit/s CBR flow
through the same bottleneck, hiccups of U[3,15] s every U[20,40] s) with the TCP flow a
`linux` host running `--cc`, as the experiment's grid `linux-table2` sets it: seed column
= the experiment's repetition seeds (repetition r of run seed 2003), one `emulate --seed
S --reps 1` each, so that spikes and CBR packets fall where `spikelab run` puts them.
The machine's 1-minute load average as each run ended is the `loadavg` column.
"""

import argparse
import concurrent.futures as cf
import csv
import os
import platform
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_kernel as vk  # noqa: E402
import bbr_draws  # noqa: E402

FIELDS = [
    "config", "seed", "kernel", "freezes", "start_s", "completion_s", "data_segments_sent", "retransmissions",
    "timeouts", "timeout_episodes", "spurious_timeouts", "TCPSpuriousRTOs", "TCPLossUndo",
    "TCPDSACKUndo", "TCPFastRetrans", "lateness_p99_ms", "loadavg", "bbr_draws",
]


SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenarios")


def outages(seed, horizon=60.0):
    """Outages (start, duration) of the 100 Mbit/s path: first U[1,3] s, lengths U[2,6] s,
    gaps U[3,8] s from one outage's end to the next start, until `horizon`."""
    rng = random.Random(seed)
    out, t = [], rng.uniform(1, 3)
    while t < horizon:
        d = rng.uniform(2, 6)
        out.append((round(t, 3), round(d, 3)))
        t += d + rng.uniform(3, 8)
    return out


def trace_offset(seed):
    """Where in the delivery trace seed s starts its download: 5 (s - 1) seconds."""
    return 5.0 * (seed - 1)


def splitmix64(x):
    """spikelab_core's splitmix64 (crates/core/src/rng.rs)."""
    m = (1 << 64) - 1
    x = (x + 0x9E3779B97F4A7C15) & m
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
    return x ^ (x >> 31)


def repetition_seed(base, rep):
    """`RngStreams::repetition_seed`: the seed of repetition `rep` of a run seeded `base`."""
    return base if rep == 0 else splitmix64(base ^ splitmix64(rep))


# The Table 2 path: scenarios/eifel-response-cbr.toml (the 2 Mbit/s path with a competing
# 1 Mbit/s CBR flow) with its TCP flow a `linux` host, as the experiment's grid
# `linux-table2` sets it (experiments/eifel-response.toml).
TABLE2_SEED = 2003
TABLE2_PROFILE = ('profile = "ns2-2002"', 'profile = "linux"')
TABLE2_TCP = 'tcp = { timestamps = true, mss = 1000, receiver_window = 150000, recovery = "reno-sack"'


def table2_text(cc):
    text = open(os.path.join(SCENARIOS, "eifel-response-cbr.toml")).read()
    assert text.count(TABLE2_PROFILE[0]) == 1 and text.count(TABLE2_TCP + " }") == 1
    text = text.replace(TABLE2_PROFILE[0], TABLE2_PROFILE[1])
    return text.replace(TABLE2_TCP + " }", TABLE2_TCP + f', linux = {{ tcp_congestion_control = "{cc}" }} }}')


def replace_line(text, prefix, new):
    """`text` with its one line starting with `prefix` replaced by `new`."""
    lines = text.split("\n")
    hits = [i for i, l in enumerate(lines) if l.startswith(prefix)]
    assert len(hits) == 1, f"expected one line starting with {prefix!r}, found {len(hits)}"
    lines[hits[0]] = new
    return "\n".join(lines)


def outages_line(sched):
    return "at = [" + ", ".join(f'{{ start = "{s}s", duration = "{d}s" }}' for s, d in sched) + "]"


def scenario_text(path_kind, cfg, seed, cc="reno"):
    """The scenario of one run, and (freezes, start) as recorded in the CSV."""
    if path_kind == "table2":
        return table2_text(cc), [], 0.0
    if path_kind == "table1":
        sched = vk.schedule(seed)
        return vk.scenario(cfg, seed), sched, 0.0
    if path_kind == "outages":
        text = open(os.path.join(SCENARIOS, "linux-outages.toml")).read()
        sched = outages(seed)
        return replace_line(text, "at = [", outages_line(sched)), sched, 0.0
    text = open(os.path.join(SCENARIOS, "linux-trace.toml")).read()
    start = trace_offset(seed)
    text = replace_line(text, "start = ", f'start = "{start}s"')
    # The trace is named relative to the scenario's folder.
    text = text.replace('trace = "traces/', f'trace = "{os.path.abspath(SCENARIOS)}/traces/')
    return text, [], start


def model_text(path_kind, text, cc):
    """The scenario the model runs for a recording (as crates/scenario/tests/
    linux_kernel.rs builds it): the outage and trace paths' host runs `cc` (the
    kernel's ran `emulate --cc`), Table 2's receiver locks the buffer the emulator
    gives the kernel's."""
    if path_kind == "table2":
        return text.replace(f'tcp_congestion_control = "{cc}" }}',
                            f'tcp_congestion_control = "{cc}", so_rcvbuf = 600000 }}')
    if path_kind in ("outages", "trace"):
        return text.replace("so_rcvbuf = 16000000 }", f'so_rcvbuf = 16000000, tcp_congestion_control = "{cc}" }}')
    # Table 1: the `linux` profile with the configuration's sysctls, the window the
    # kernel's receiver advertised after its first two ACKs (150000 B) and the
    # receive buffer the emulator sets, as linux_kernel.rs's `scenario`.
    cfg = re.search(r"configuration (\w)", text).group(1)
    tcp = re.search(r"^tcp = .*$", text, re.M).group(0)
    linux = f'linux = {{ {TABLE1_SYSCTLS[cfg]}, tcp_congestion_control = "{cc}", so_rcvbuf = 600000 }}'
    text = text.replace('profile = "ns2-2002"', 'profile = "linux"')
    return text.replace(tcp, f"tcp = {{ mss = 1000, receiver_window = 150000, {linux} }}")


# The sysctls of each Table 1 configuration in the `linux` profile (linux_kernel.rs's
# `sysctls`; validate_kernel.py sets the same on the kernel).
TABLE1_SYSCTLS = {
    "a": "tcp_timestamps = 1, tcp_frto = 2",
    "b": "tcp_timestamps = 0, tcp_frto = 2",
    "c": "tcp_timestamps = 0, tcp_frto = 0",
}


def draws_of(bin_, work, name, path_kind, text, cc, seed, emu):
    """BBR's draws in the run recorded in `emu` (scripts/bbr_draws.py)."""
    path = os.path.join(work, f"{name}-model.toml")
    with open(path, "w") as f:
        f.write(model_text(path_kind, text, cc))
    series = os.path.join(emu, "tcp_info", "rep0-tcp.csv")
    got = bbr_draws.infer(bin_, path, series, seed if path_kind == "table2" else None)
    return ";".join(map(str, got)) or "-"


def one(bin_, work, cfg, seed, cc, path_kind="table1", pcap=False, tcp_info=False):
    import json
    text, sched, start = scenario_text(path_kind, cfg, seed, cc)
    path = os.path.join(work, f"{path_kind}-{cfg}-{seed}.toml")
    with open(path, "w") as f:
        f.write(text)
    emu = os.path.join(work, f"emu-{path_kind}-{cfg}-{seed}-{cc}")
    if not os.path.exists(os.path.join(emu, "runs.csv")):
        cmd = [bin_, "emulate", path, "--cc", cc, "--out", emu] + (["--pcap"] if pcap else [])
        # Table 2's spikes and CBR come from the run's seed: one repetition at that seed.
        cmd += ["--seed", str(seed), "--reps", "1"] if path_kind == "table2" else []
        cmd += ["--tcp-info"] if tcp_info else []
        subprocess.run(cmd, check=True, capture_output=True)
    run = vk.read_runs(emu)
    k = vk.kernel_counters(emu)
    late = json.load(open(os.path.join(emu, "meta.json")))["emulation"]["repetitions"][0]["lateness"]
    return {
        "config": cfg, "seed": seed, "kernel": platform.release(),
        # The schedule itself, so that tests need not re-derive Python's random stream.
        "freezes": " ".join(f"{s}/{d}" for s, d in sched),
        "start_s": start,
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
        # The machine's 1-minute load average as the run ended (other jobs share it).
        "loadavg": f"{os.getloadavg()[0]:.1f}",
        # Empty: not read (no series, or not BBR); "-": BBR never entered PROBE_BW.
        "bbr_draws": draws_of(bin_, work, f"{path_kind}-{cfg}-{seed}", path_kind, text, cc, seed, emu)
        if cc == "bbr" and tcp_info else "",
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work", default="out/kernel-linux")
    ap.add_argument("--bin", default="target/release/spikelab")
    ap.add_argument("--configs", default="abc")
    ap.add_argument("--cc", default="reno", choices=["reno", "cubic", "bbr"])
    ap.add_argument("--path", default="table1", choices=["table1", "outages", "trace", "table2"])
    ap.add_argument("--pcap", action="store_true")
    ap.add_argument("--tcp-info", action="store_true")
    ap.add_argument("--out", default="-")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    # The outage and trace paths run the scenario's own (default) sysctls: one
    # configuration, named "d" (the kernel's defaults) in the CSV.
    configs = a.configs if a.path == "table1" else "d"
    seeds = range(1, a.seeds + 1)
    if a.path == "table2":
        # The experiment's repetitions 0 .. seeds-1, each recorded under its own seed.
        seeds = [repetition_seed(TABLE2_SEED, r) for r in range(a.seeds)]
    jobs = [(c, s) for c in configs for s in seeds]
    rows = []
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        for f in cf.as_completed([ex.submit(one, a.bin, a.work, c, s, a.cc, a.path, a.pcap, a.tcp_info) for c, s in jobs]):
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
