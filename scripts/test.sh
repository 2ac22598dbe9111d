#!/usr/bin/env bash
# Runs every check and test of spikelab: formatting, clippy with warnings as errors,
# and the whole workspace's tests. tshark (Wireshark's CLI) and ns2 (ns-2.35) are
# installed when missing and this machine can (root with apt): one test checks our pcap
# files with tshark, the differential suite compares the ns2-2002 profile with ns-2.
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
if ! command -v ns >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ns2 for the differential suite" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ns2 >/dev/null || echo "ns2 install failed: the ns-2 suite will skip" >&2
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
