#!/usr/bin/env bash
# Builds the spikelab command with profile-guided optimisation (PGO) and prints the
# binary's path, target/pgo/spikelab. The binary computes exactly what the plain
# `cargo build --release` binary computes, faster (docs/src/performance.md, "The PGO
# build"): it is the build for long studies and the one the side-by-side harness
# (bench/side-by-side/run.sh) measures beside the plain one.
#
# The steps, those of the rustc book's "Profile-guided Optimization" chapter:
#  1. build an instrumented binary (-Cprofile-generate) into target/pgo/gen;
#  2. train it on the main job: `reproduce` of the five papers at --reps 2, in two
#     processes of one simulation thread each (each writes its own profile);
#  3. merge the profiles with llvm-profdata (rustup component llvm-tools, installed
#     here when missing) into target/pgo/spikelab.profdata;
#  4. build with -Cprofile-use into target/pgo/use;
#  5. check: the trained binary runs the same reproductions and its output must be
#     byte for byte the instrumented binary's (diff -r; the script fails otherwise).
# A tree whose sources (crates/, experiments/, scenarios/, Cargo.toml, Cargo.lock) hash
# as they did for the binary in target/pgo, with the same rustc, is not built again: the profile's counts of
# the progress display depend on wall-clock ticks, so a new profile would rebuild.
# The training never runs the side-by-side dumbbell: the profile is the main job's.
# --target is given so that RUSTFLAGS reach spikelab's code only, not build scripts
# and procedural macros run during the build.
#
#   usage: scripts/build-pgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
ROOT=$(pwd)
WORK=$ROOT/target/pgo
HOST=$(rustc -vV | sed -n 's/^host: //p')
PROFDATA="$(rustc --print sysroot)/lib/rustlib/$HOST/bin/llvm-profdata"
if [ ! -x "$PROFDATA" ]; then
  echo "installing the rustup component llvm-tools (llvm-profdata)" >&2
  rustup component add llvm-tools >&2
fi
mkdir -p "$WORK"
KEY=$({
  rustc -vV
  find crates experiments scenarios Cargo.toml Cargo.lock -type f -not -path '*/target/*' \
    -not -name '*.pyc' | LC_ALL=C sort | xargs sha256sum
} | sha256sum | cut -d' ' -f1)
if [ -x "$WORK/spikelab" ] && [ "$(cat "$WORK/key" 2>/dev/null)" = "$KEY" ]; then
  echo "PGO build up to date (sources unchanged)" >&2
  echo "$WORK/spikelab"
  exit 0
fi
rm -f "$WORK/key"

build() { # build TARGET_DIR RUSTFLAGS
  RUSTFLAGS="$2" cargo build --release --locked -q -p spikelab-cli --target "$HOST" \
    --target-dir "$1" >&2
}

# train BINARY OUT: the five papers at --reps 2, two processes of one thread each.
train() {
  rm -rf "$2"
  "$1" reproduce std-proxy --reps 2 --jobs 1 --out "$2/a" >/dev/null &
  local a=$!
  "$1" reproduce eifel-response peak-hopper gprs-eifel delay-injection --reps 2 --jobs 1 \
    --out "$2/b" >/dev/null
  wait "$a"
}

echo "PGO 1/5: instrumented build" >&2
build "$WORK/gen" "-Cprofile-generate=$WORK/raw"
echo "PGO 2/5: training on reproduce --reps 2" >&2
rm -rf "$WORK/raw"
train "$WORK/gen/$HOST/release/spikelab" "$WORK/train"
echo "PGO 3/5: merging the profiles" >&2
"$PROFDATA" merge -o "$WORK/spikelab.profdata" "$WORK/raw"
echo "PGO 4/5: optimised build" >&2
build "$WORK/use" "-Cprofile-use=$WORK/spikelab.profdata"
echo "PGO 5/5: checking the outputs against the instrumented build's" >&2
train "$WORK/use/$HOST/release/spikelab" "$WORK/check"
if ! diff -r "$WORK/train" "$WORK/check" >&2; then
  echo "the PGO build's outputs differ from the instrumented build's (above)" >&2
  exit 1
fi
cp "$WORK/use/$HOST/release/spikelab" "$WORK/spikelab"
echo "$KEY" >"$WORK/key"
echo "$WORK/spikelab"
