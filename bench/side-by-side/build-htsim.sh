#!/bin/bash
# Builds htsim's library (sim/ of github Broadcom/csg-htsim, with its own Makefile and
# flags) and links htsim_dumbbell.cpp against it.
#   usage: build-htsim.sh HTSIM OUTDIR
#     HTSIM:  a checkout of csg-htsim (holding sim/), or its git directory (then commit
#             841d9e7 is extracted; HTSIM_COMMIT overrides)
#     OUTDIR: scratch folder for the build; the binary is OUTDIR/htsim_dumbbell
set -euo pipefail
SRC=${1:?usage: build-htsim.sh HTSIM OUTDIR}
OUT=${2:?usage: build-htsim.sh HTSIM OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
COMMIT=${HTSIM_COMMIT:-841d9e7}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf "$OUT/sim"
if [ -f "$SRC/sim/Makefile" ]; then
    cp -r "$SRC/sim" "$OUT/sim"
else
    git --git-dir="$SRC" archive --prefix=sim/ "$COMMIT:sim" | tar -x -C "$OUT"
fi
make -C "$OUT/sim" -j"$(nproc)" libhtsim.a >"$OUT/libhtsim.log" 2>&1 || {
    tail -30 "$OUT/libhtsim.log"
    exit 1
}
g++ -std=c++11 -O3 -I"$OUT/sim" "$HERE/htsim_dumbbell.cpp" "$OUT/sim/libhtsim.a" -o "$OUT/htsim_dumbbell"
echo "built $OUT/htsim_dumbbell"
