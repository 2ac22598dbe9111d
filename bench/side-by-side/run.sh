#!/bin/bash
# Side-by-side speed of spikelab, htsim and (optionally) ns-3 on the same dumbbell
# (dumbbell.toml, htsim_dumbbell.cpp, ns3_dumbbell.cc), alternating the tools within each
# round so that a shared machine's load hits them alike; prints per-run lines, then the
# medians of wall time, CPU time (user + system) and maximum RSS, and the ratios. Each run
# is timed by measure.py (microsecond resolution; GNU time's 10 ms steps were 3 to 4 % of
# a 100-flow run).
# spikelab runs in two builds of the same sources: "spikelab", the PGO build of
# scripts/build-pgo.sh (trained on the papers' reproductions, never on this dumbbell),
# and "spikelab-plain", `cargo build --release`; htsim likewise in two: "htsim", built
# with its own Makefile's flags (the htsim the goals name), and "htsim-pgo", with
# link-time and profile-guided optimisation (build-htsim.sh). Every ratio is printed
# against each spikelab build. With PGO=0 only the plain builds run (no PGO build of
# either tool: quicker to build, half the runs).
# Besides times and memory it prints each tool's cost per delivered data packet (CPU time
# over the packets its run reports delivered: spikelab's meta.json, htsim's own line),
# the figure the scale table compares across flow counts.
# CI does not run this.
#
#   usage: run.sh HTSIM [ROUNDS] [CASES]
#     HTSIM:  a checkout of github Broadcom/csg-htsim, or its git directory (commit 841d9e7)
#     ROUNDS: rounds per case (default 3)
#     CASES:  any of "1 10 100 1000 10000" (default "100 1000"): N flows over N Mbit/s
#             with a 5N-packet queue (50 at 1 and 10 flows), for 60 s at 1, 10 and 100 flows,
#             10 s at 1000 and 1 s at 10 000 (as scale.sh; the 10 000-flow case's
#             bottleneck is 10 Gbit/s)
#   environment: PGO (default 1; 0: plain builds only, SPIKELAB unused),
#                SPIKELAB (default: the binary scripts/build-pgo.sh builds or finds),
#                SPIKELAB_PLAIN (default target/release/spikelab, built when missing),
#                NS3VENV (a venv holding ns3==3.44.post0: adds ns-3 to the 100-flow case),
#                NS3_ROUNDS (ns-3 runs only in the first NS3_ROUNDS rounds: it takes ~40 s),
#                REPRODUCE (in the first REPRODUCE rounds of the 100-flow case, also times
#                  `reproduce` of the five papers at 100 repetitions on 2 threads with the
#                  plain build, the README's main job, at the end of the round, and
#                  prints it as a multiple of the wall time of that round's htsim
#                  100-flow run: a figure the machine's speed mostly divides out of),
#                WORK (scratch folder, default a new mktemp -d)
set -euo pipefail
HTSIM=${1:?usage: run.sh HTSIM [ROUNDS] [CASES]}
ROUNDS=${2:-3}
CASES=${3:-"100 1000"}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PGO=${PGO:-1}
if [ "$PGO" = 1 ]; then
    SPIKELAB=${SPIKELAB:-$("$ROOT/scripts/build-pgo.sh")}
    BUILDS="spikelab spikelab-plain"
else
    BUILDS="spikelab-plain"
fi
SPIKELAB_PLAIN=${SPIKELAB_PLAIN:-$ROOT/target/release/spikelab}
if [ ! -x "$SPIKELAB_PLAIN" ]; then
    (cd "$ROOT" && cargo build --release --locked -q -p spikelab-cli)
fi
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"

HTSIM_PGO=$PGO "$HERE/build-htsim.sh" "$HTSIM" "$WORK/htsim" >/dev/null
NS3=""
if [ -n "${NS3VENV:-}" ]; then
    NS3VENV=$NS3VENV "$HERE/build-ns3.sh" "$WORK/ns3" >/dev/null
    NS3=$WORK/ns3/ns3_dumbbell
fi

# measure NAME CMD...: one run; appends "name wall cpu rss_kb delivered" to $WORK/times
# (delivered: the data packets the run reports delivered, "-" when it does not say) and
# prints the tool's own output line.
measure() {
    local name=$1
    shift
    local t="$WORK/time.txt"
    python3 "$HERE/measure.py" "$t" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" || {
        cat "$WORK/err.txt"
        exit 1
    }
    read -r wall user sys rss <"$t"
    local delivered
    delivered=$(grep -o 'delivered_packets=[0-9]*' "$WORK/out.txt" | tail -1 | cut -d= -f2 || true)
    echo "$name $wall $(echo "$user + $sys" | bc) $rss ${delivered:--}" >>"$WORK/times"
    printf '%-10s wall %7.3f s  cpu %7.3f s  rss %7d KiB  %s\n' "$name" "$wall" \
        "$(echo "$user + $sys" | bc)" "$rss" "$(tail -1 "$WORK/out.txt")"
}

# spikelab NAME BINARY FLOWS MBPS QUEUE SECS
spikelab() {
    local name=$1 bin=$2 flows=$3 mbps=$4 queue=$5 secs=$6
    rm -rf "$WORK/spikelab-out"
    measure "$name-$flows" "$bin" run "$HERE/dumbbell.toml" --jobs 1 \
        --set "topology.pairs=$flows" --set "flow.0.count=$flows" \
        --set "topology.bottleneck.rate=${mbps}Mbit/s" \
        --set "topology.bottleneck.queue.limit.packets=$queue" \
        --set "run.stop=${secs}s" --out "$WORK/spikelab-out"
    grep -E '"(events|data_packets_delivered)"' "$WORK/spikelab-out/meta.json" | tr -d ' \n'
    echo
    # The run's delivered packets, from its meta.json, into the line measure wrote.
    local delivered
    delivered=$(grep -o '"data_packets_delivered": [0-9]*' "$WORK/spikelab-out/meta.json" |
        grep -o '[0-9]*$')
    sed -i '$ s/ -$/ '"$delivered"'/' "$WORK/times"
}

# median NAME COLUMN: the median of one column of $WORK/times over NAME's runs.
median() {
    awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$WORK/times" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

: >"$WORK/times"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in $CASES; do
    case $c in
    1) args=(1 1 50 60) ;;
    10) args=(10 10 50 60) ;;
    100) args=(100 100 500 60) ;;
    1000) args=(1000 1000 5000 10) ;;
    10000) args=(10000 10000 50000 1) ;;
    *) echo "unknown case $c" >&2 && exit 2 ;;
    esac
    for r in $(seq "$ROUNDS"); do
        echo "case $c round $r"
        [ "$PGO" = 1 ] && spikelab spikelab "$SPIKELAB" "${args[@]}"
        spikelab spikelab-plain "$SPIKELAB_PLAIN" "${args[@]}"
        measure "htsim-$c" "$WORK/htsim/htsim_dumbbell" "${args[@]}"
        [ "$PGO" = 1 ] && measure "htsim-pgo-$c" "$WORK/htsim/htsim_dumbbell_pgo" "${args[@]}"
        if [ -n "$NS3" ] && [ "$c" = 100 ] && [ "$r" -le "${NS3_ROUNDS:-$ROUNDS}" ]; then
            measure "ns3-$c" "$NS3" "${args[@]}"
        fi
        if [ "$c" = 100 ] && [ "$r" -le "${REPRODUCE:-0}" ]; then
            rm -rf "$WORK/reproduce-out"
            measure reproduce "$SPIKELAB_PLAIN" reproduce --jobs 2 --out "$WORK/reproduce-out"
            # Paired with this round's htsim run: "reproduce-x ratio - -".
            awk '$1 == "htsim-100" { h = $2 } $1 == "reproduce" { r = $2 }
                END { print "reproduce-x", r / h, "-", "-" }' "$WORK/times" >>"$WORK/times"
        fi
    done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
for base in $BUILDS; do
    echo "medians of $ROUNDS rounds (wall s, cpu s, max RSS KiB) and ratios other/$base"
    for c in $CASES; do
        for tool in spikelab spikelab-plain htsim htsim-pgo ns3; do
            n="$tool-$c"
            grep -q "^$n " "$WORK/times" || continue
            w=$(median "$n" 2)
            u=$(median "$n" 3)
            m=$(median "$n" 4)
            sw=$(median "$base-$c" 2)
            su=$(median "$base-$c" 3)
            sm=$(median "$base-$c" 4)
            printf '%-20s wall %7.3f  cpu %7.3f  rss %8.0f   wall ratio %6.2f  cpu ratio %6.2f  rss ratio %5.2f\n' \
                "$n" "$w" "$u" "$m" "$(echo "$w / $sw" | bc -l)" "$(echo "$u / $su" | bc -l)" "$(echo "$m / $sm" | bc -l)"
        done
    done
    echo
done

# The scale table: per tool and flow count, the median CPU time per delivered data
# packet (each run's own count) and the median maximum RSS.
echo "scale: median CPU us per delivered packet and max RSS MiB, $ROUNDS rounds"
printf '| tool |'
for c in $CASES; do printf ' %s flows: us/packet | MiB |' "$c"; done
echo
printf '|---|'
for c in $CASES; do printf -- '---|---|'; done
echo
for tool in $BUILDS htsim htsim-pgo; do
    grep -q "^$tool-[0-9]* " "$WORK/times" || continue
    printf '| %s |' "$tool"
    for c in $CASES; do
        n="$tool-$c"
        if grep -q "^$n " "$WORK/times"; then
            per=$(awk -v n="$n" '$1 == n && $5 != "-" { print $3 * 1e6 / $5 }' "$WORK/times" |
                sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
            printf ' %.3f | %.1f |' "$per" "$(echo "$(median "$n" 4) / 1024" | bc -l)"
        else
            printf ' | |'
        fi
    done
    echo
done
echo
if grep -q "^reproduce " "$WORK/times"; then
    printf 'reproduce (five papers x 100, plain build, 2 threads): median wall %.1f s, cpu %.1f s;\n' \
        "$(median reproduce 2)" "$(median reproduce 3)"
    printf '  per round %s x the round'"'"'s htsim-100 wall time, median %.0f x\n' \
        "$(awk '$1 == "reproduce-x" { printf "%s%.0f", s, $2; s = ", " }' "$WORK/times")" \
        "$(median reproduce-x 2)"
    echo "(issue 21 measured htsim-100 at 0.36 s: its 60 s goal was 167 x htsim-100 there)"
fi
