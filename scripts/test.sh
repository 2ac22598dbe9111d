#!/usr/bin/env bash
# Runs every check and test of spikelab: formatting, clippy with warnings as errors,
# and the whole workspace's tests. tshark (Wireshark's CLI) is installed when missing
# and this machine can (root with apt), because one test checks our pcap files with it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

if ! command -v tshark >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing tshark for the pcap cross-check" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null
  else
    echo "tshark not found and cannot be installed here: the pcap cross-check will skip" >&2
  fi
fi

# The emulator's tests (crates/emulate) create network namespaces with iproute2's `ip`.
if ! command -v ip >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing iproute2 for the emulator tests" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
