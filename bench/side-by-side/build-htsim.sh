#!/bin/bash
# Builds htsim's library (sim/ of github Broadcom/csg-htsim, with its own Makefile and
# flags) and links htsim_dumbbell.cpp against it: OUTDIR/htsim_dumbbell, the htsim the
# goals are measured against.
# Then, for comparison with spikelab's PGO build (scripts/build-pgo.sh), the same sources
# with link-time and profile-guided optimisation: OUTDIR/htsim_dumbbell_pgo, built with
# -O3 -flto -fprofile-generate, trained on two other sizes of the dumbbell (10 flows over
# 10 Mbit/s for 60 s; 1000 flows over 1 Gbit/s for 1 s), rebuilt with -fprofile-use.
# htsim has no other workload to train on, so its training is closer to the measured
# case than spikelab's (the papers' reproductions).
#   usage: build-htsim.sh HTSIM OUTDIR
#     HTSIM:  a checkout of csg-htsim (holding sim/), or its git directory (then commit
#             841d9e7 is extracted; HTSIM_COMMIT overrides)
#     OUTDIR: scratch folder for the build
#   environment: HTSIM_PGO=0 builds the plain htsim only (no PGO build, no training)
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
[ "${HTSIM_PGO:-1}" = 0 ] && exit 0

# build_lib DIR CFLAGS: the library in DIR/sim with CFLAGS, and the dumbbell as DIR/bin.
build_lib() {
    make -C "$1/sim" clean >/dev/null
    make -C "$1/sim" -j"$(nproc)" CFLAGS="$2" libhtsim.a >"$1/libhtsim.log" 2>&1 || {
        tail -30 "$1/libhtsim.log"
        exit 1
    }
    # shellcheck disable=SC2086 # CFLAGS is a list of flags
    (cd "$1/sim" && g++ $2 -I. -c "$HERE/htsim_dumbbell.cpp" -o htsim_dumbbell.o &&
        g++ $2 htsim_dumbbell.o libhtsim.a -o "$1/bin") 2>>"$1/libhtsim.log"
}
PGO=$OUT/pgo
rm -rf "$PGO"
mkdir -p "$PGO"
cp -r "$OUT/sim" "$PGO/sim"
BASE="-std=c++11 -O3 -fPIE -flto=auto -fprofile-dir=$PGO/profile"
build_lib "$PGO" "$BASE -fprofile-generate"
"$PGO/bin" 10 10 50 60 >/dev/null
"$PGO/bin" 1000 1000 5000 1 >/dev/null
build_lib "$PGO" "$BASE -fprofile-use -fprofile-partial-training -Wno-missing-profile"
cp "$PGO/bin" "$OUT/htsim_dumbbell_pgo"
echo "built $OUT/htsim_dumbbell_pgo"
