#!/bin/bash
# Builds ns3_dumbbell.cc against the headers and shared libraries of the PyPI wheel
# ns3==3.44.post0 (install it with: python3 -m venv V && V/bin/pip install --no-deps
# ns3==3.44.post0; --no-deps skips cppyy, which only the Python bindings need).
#   usage: NS3VENV=V build-ns3.sh OUTDIR   (the binary is OUTDIR/ns3_dumbbell)
set -euo pipefail
OUT=${1:?usage: NS3VENV=V build-ns3.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
NS3=$(echo "${NS3VENV:?set NS3VENV}"/lib/python3*/site-packages/ns3)
mkdir -p "$OUT"
LIBS=()
for m in core network internet point-to-point point-to-point-layout applications traffic-control stats bridge mobility; do
    LIBS+=("-lns3.44-$m")
done
g++ -std=c++20 -O2 -DNS3_BUILD_PROFILE_RELEASE -I"$NS3/include" "$HERE/ns3_dumbbell.cc" \
    -o "$OUT/ns3_dumbbell" -L"$NS3/lib64" -Wl,-rpath,"$NS3/lib64" "${LIBS[@]}"
echo "built $OUT/ns3_dumbbell"
