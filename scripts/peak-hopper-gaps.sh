#!/usr/bin/env bash
# The measurements behind "Scenario B's P distribution" and "the W_95 gap" on
# docs/src/reproduction-peak-hopper.md (issue 15): `spikelab run` over the scenario files
# with one `--set` change per cell, analysed by scripts/ph_proximity.py (P, Scenario B)
# and scripts/ph_promptness.py (W, W_95, Scenario A).
#
#   bash scripts/peak-hopper-gaps.sh [b|a|a-loads|all] [OUT]      (default: all, /tmp/ph-gaps)
#
# Environment: SPIKELAB (default target/release/spikelab), REPS (default 3).
# Each cell's trace folder is deleted after its analysis (a Scenario A trace is ~30 MB
# per repetition). About 1 min of CPU per B cell pair and per A cell.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
out=${2:-/tmp/ph-gaps}
bin=${SPIKELAB:-target/release/spikelab}
reps=${REPS:-3}
mkdir -p "$out"

RFC2988='flow.0.tcp.rto={ kind = "rfc6298", initial_rto = "3s", min_rto_mode = "last_sample_plus_2g", init_mode = "modified", granularity = "10ms", max_rto = "60s" }'
NO_TS=(--set 'flow.0.tcp.spurious.observe=[]' --set flow.0.tcp.timestamps=false
    --set flow.0.tcp.mss=1460 --set flow.0.tcp.receiver_window=29200)

# `spikelab run` quietly; its output is shown only when it fails.
run_logged() {
    local dir=$1
    shift
    mkdir -p "$(dirname "$dir")"
    "$bin" run "$@" >"$dir.log" 2>&1 || {
        cat "$dir.log" >&2
        exit 2
    }
}

# Scenario B, one cell: the PH-RTO (the file's timer) and the paper's RFC2988-RTO.
b_cell() {
    local name=$1
    shift
    for timer in ph rfc; do
        local extra=()
        [ "$timer" = rfc ] && extra=(--set "$RFC2988")
        local dir="$out/b/$name-$timer"
        rm -rf "$dir"
        run_logged "$dir" scenarios/peak-hopper-b.toml --reps "$reps" --trace --out "$dir" "$@" "${extra[@]}"
        python3 scripts/ph_proximity.py "$dir"
        rm -rf "$dir/trace"
    done
}

# Scenario A: `--set` for all four flow groups.
all_flows() { for i in 0 1 2 3; do printf -- '--set\nflow.%s.%s\n' "$i" "$1"; done; }

a_cell() {
    local name=$1 trace=$2
    shift 2
    local dir="$out/a/$name"
    rm -rf "$dir"
    local flag=()
    [ "$trace" = trace ] && flag=(--trace)
    run_logged "$dir" scenarios/peak-hopper-a.toml --reps "$reps" "${flag[@]}" --out "$dir" "$@"
    python3 scripts/ph_promptness.py "$dir"
    rm -rf "$dir/trace"
}

if [ "$what" = b ] || [ "$what" = all ]; then
    b_cell base
    for w in 32 48 64 128; do b_cell "win$w" --set flow.0.tcp.receiver_window=$((w * 1448)); done
    for q in 4 8 32 64; do b_cell "queue$q" --set link.2.queue.limit.packets=$q; done
    for x in 0.0 0.05 0.2 0.3; do b_cell "bler$x" --set "link.2.service={ kind = \"wcdma\", bler = $x }"; done
    for x in 20 80 160 320; do b_cell "block$x" --set "link.2.service={ kind = \"wcdma\", block_bytes = \"${x}B\" }"; done
    for x in 0ms 50ms 200ms 400ms 800ms 1500ms; do
        b_cell "retx$x" --set "link.2.service={ kind = \"wcdma\", retx_delay = \"$x\" }"
    done
    r64=(--set link.2.rate=64kbit/s --set link.2.queue.limit.packets=4)
    b_cell rate64 "${r64[@]}"
    for q in 2 8 16; do b_cell "rate64-queue$q" "${r64[@]}" --set link.2.queue.limit.packets=$q; done
    b_cell rate64-win64 "${r64[@]}" --set flow.0.tcp.receiver_window=$((64 * 1448))
    b_cell rate64-retx400ms "${r64[@]}" --set 'link.2.service={ kind = "wcdma", retx_delay = "400ms" }'
    b_cell rate64-bler0.3 "${r64[@]}" --set 'link.2.service={ kind = "wcdma", bler = 0.3 }'
    for d in 0.5s 1s 2s; do
        b_cell "outage$d" --set "link.2.spikes=[{ kind = \"outage\", period = \"50s\", duration = \"$d\", dirs = \"forward\" }]"
    done
    b_cell no-ts-base "${NO_TS[@]}"
    for x in 400ms 800ms 1500ms; do
        b_cell "no-ts-retx$x" "${NO_TS[@]}" --set "link.2.service={ kind = \"wcdma\", retx_delay = \"$x\" }"
    done
    b_cell no-ts-win64 "${NO_TS[@]}" --set flow.0.tcp.receiver_window=$((64 * 1460))
    b_cell no-ts-rate64 "${NO_TS[@]}" --set link.2.rate=64kbit/s --set link.2.queue.limit.packets=4
fi

if [ "$what" = a ] || [ "$what" = all ]; then
    a_cell base trace
    for w in 4 8 12 16 32 64; do
        # shellcheck disable=SC2046
        a_cell "win$w" trace $(all_flows tcp.receiver_window=$((w * 1448)))
    done
    # shellcheck disable=SC2046
    a_cell no-ts trace $(all_flows 'tcp.spurious.observe=[]') $(all_flows tcp.timestamps=false) \
        $(all_flows tcp.mss=1460) $(all_flows tcp.receiver_window=29200)
    # shellcheck disable=SC2046
    a_cell delayed-ack trace $(all_flows tcp.delayed_ack.enabled=true)
    # shellcheck disable=SC2046
    a_cell granularity-1ms trace $(all_flows tcp.rto.granularity=1ms)
    # shellcheck disable=SC2046
    a_cell granularity-100ms trace $(all_flows tcp.rto.granularity=100ms)
    a_cell ping-100-bytes trace --set flow.2.workload.bytes=100B --set flow.3.workload.bytes=100B
fi

if [ "$what" = a-loads ] || [ "$what" = all ]; then
    # The reproduction's loads N = 940, 948, ..., 1036, one run each, windows 20 and 8:
    # W_95 per run as Fig. 14 plots it.
    for w in 20 8; do
        for n in $(seq 940 8 1036); do
            # shellcheck disable=SC2046
            reps=1 a_cell "load-w$w-n$n" none --set topology.pairs=$n $(all_flows count=$((n / 4))) \
                $(all_flows tcp.receiver_window=$((w * 1448)))
        done
    done
fi
