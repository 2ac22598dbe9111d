#!/bin/bash
# spikelab's cost per delivered packet (CPU time, so that a shared machine's load does
# not inflate it) and maximum RSS across flow counts, queue sizes and simulated time,
# on dumbbell.toml with --set overrides. CI does not run this.
#   usage: scale.sh [SPIKELAB]   (default target/release/spikelab of this repository)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SPIKELAB=${1:-$HERE/../../target/release/spikelab}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# one LABEL FLOWS MBPS QUEUE STOP
one() {
    local label=$1 flows=$2 mbps=$3 queue=$4 stop=$5
    /usr/bin/time -f "%U %S %M" -o "$WORK/t" "$SPIKELAB" run "$HERE/dumbbell.toml" --jobs 1 \
        --set "topology.pairs=$flows" --set "flow.0.count=$flows" \
        --set "topology.bottleneck.rate=${mbps}Mbit/s" \
        --set "topology.bottleneck.queue.limit.packets=$queue" \
        --set "run.stop=$stop" --out "$WORK/out" >/dev/null
    read -r user sys rss <"$WORK/t"
    local pkts events
    pkts=$(grep -o '"data_packets_delivered": [0-9]*' "$WORK/out/meta.json" | grep -o '[0-9]*$')
    events=$(grep -o '"events": [0-9]*' "$WORK/out/meta.json" | grep -o '[0-9]*$')
    printf '| %s | %s | %s | %s | %s | %d | %d | %.2f | %.2f | %.1f |\n' "$label" "$flows" \
        "${mbps} Mbit/s" "$queue" "$stop" "$pkts" "$events" "$(echo "$user + $sys" | bc)" \
        "$(echo "($user + $sys) * 1000000 / $pkts" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
    rm -rf "$WORK/out"
}

echo "| case | flows | bottleneck | queue (packets) | simulated | delivered packets | events | CPU s | CPU us per packet | max RSS MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
one flows 10 10 50 60s
one flows 100 100 500 60s
one flows 1000 1000 5000 10s
one flows 10000 10000 50000 1s
one queue 100 100 50 60s
one queue 100 100 5000 60s
one time 1 1 50 60s
one time 1 1 50 1h
one time 1 1 50 24h
