#!/bin/bash
# Regenerates crates/cli/text-order.txt, the order in which the linker lays out the
# functions of the `spikelab` binary (crates/cli/build.rs passes it to rust-lld as
# --symbol-ordering-file). The functions a run executes come first, together, so the
# pages the kernel maps for them (64 KB around each page fault) hold little else:
# docs/src/performance.md, "Issue 44, memory round 3".
#
#   usage: scripts/text-order.sh [SPIKELAB]   (default target/release/spikelab)
#
# Needs valgrind (callgrind) and python3. The list is read from callgrind's records of
# a few short runs (the side-by-side dumbbell at 1, 100 and 1 000 flows; two scenarios
# with traces and captures on two threads; one paper reproduced), in that order of
# groups, each group's functions by their own instruction counts, hottest first. Names
# are mangled symbols: they stay the same across edits of the sources, and a name that
# no longer exists is skipped by the linker (the layout degrades, nothing breaks).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:-$ROOT/target/release/spikelab}")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
D=$ROOT/bench/side-by-side/dumbbell.toml

cg() { # cg GROUP ARGS...: one callgrind record of the binary's run, in group GROUP
    local group=$1
    shift
    local n
    n=$(find "$WORK" -maxdepth 1 -name "$group-*.cg" | wc -l)
    (cd "$WORK" && valgrind --tool=callgrind --demangle=no \
        --callgrind-out-file="$WORK/$group-$n.cg" "$BIN" "$@" >/dev/null 2>"$WORK/$group-$n.err") ||
        { cat "$WORK/$group-$n.err" >&2; exit 1; }
}
dumbbell() { # dumbbell FLOWS MBPS QUEUE STOP
    cg 1 run "$D" --jobs 1 --set "topology.pairs=$1" --set "flow.0.count=$1" \
        --set "topology.bottleneck.rate=$2Mbit/s" \
        --set "topology.bottleneck.queue.limit.packets=$3" --set "run.stop=$4" \
        --out "$WORK/out-$1"
}
dumbbell 1 1 50 60s
dumbbell 100 100 500 5s
dumbbell 1000 1000 5000 1s
cg 2 run "$ROOT/scenarios/quickstart.toml" --seed 7 --trace --pcap --out "$WORK/out-q"
cg 2 run "$ROOT/scenarios/std-proxy.toml" --reps 2 --jobs 2 --seed 7 --trace --pcap \
    --out "$WORK/out-s"
cg 3 reproduce gprs-eifel --reps 2 --jobs 2 --out "$WORK/out-r"

python3 - "$BIN" "$WORK" >"$ROOT/crates/cli/text-order.txt" <<'PY'
import glob, os, re, subprocess, sys
binary, work = sys.argv[1], sys.argv[2]
ours = os.path.basename(binary)
defined = set()
for line in subprocess.run(["nm", "--defined-only", binary], capture_output=True,
                           text=True, check=True).stdout.splitlines():
    f = line.split()
    if len(f) == 3 and f[1] in "tTwW":
        defined.add(f[2])

def self_costs(path):
    """Instructions each function of the binary executed itself (not in callees)."""
    obs, fns, cost = {}, {}, {}
    ob = fn = None
    skip = False
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
        if m:
            if m.group(3):
                obs[m.group(2)] = m.group(3)
            if m.group(1) == "ob":
                ob = obs[m.group(2)]
            continue
        m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
        if m:
            if m.group(3):
                fns[m.group(2)] = m.group(3)
            if m.group(1) == "fn":
                fn = fns[m.group(2)] if os.path.basename(ob or "") == ours else None
            continue
        if line.startswith("calls="):
            skip = True
            continue
        if fn and line[:1] in "0123456789+-*":
            if skip:
                skip = False
                continue
            parts = line.split()
            if len(parts) >= 2:
                cost[fn] = cost.get(fn, 0) + int(parts[1])
        elif line[:1] in "0123456789+-*":
            skip = False
    return cost

placed = set()
for group in ("1", "2", "3"):
    total = {}
    for path in sorted(glob.glob(os.path.join(work, group + "-*.cg"))):
        for f, c in self_costs(path).items():
            total[f] = total.get(f, 0) + c
    for f in sorted(total, key=lambda f: (-total[f], f)):
        if f in defined and f not in placed:
            placed.add(f)
            print(f)
PY
echo "wrote $(wc -l <"$ROOT/crates/cli/text-order.txt") functions to crates/cli/text-order.txt" >&2
