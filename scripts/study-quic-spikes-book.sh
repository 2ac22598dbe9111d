#!/usr/bin/env bash
# study-quic-spikes-book.sh [REPS]: the numbers of docs/src/study-quic-spikes.md (issue
# 42), from `spikelab reproduce quic-spikes --reps REPS` (default 30) by
# scripts/study-book.sh, which writes the report's section between the page's markers.
# SPIKELAB names the binary (default: a release build of this checkout).
set -euo pipefail
exec bash "$(dirname "$0")/study-book.sh" quic-spikes "QUIC under delay spikes" "${1:-30}"
