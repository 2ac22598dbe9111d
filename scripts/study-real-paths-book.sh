#!/usr/bin/env bash
# study-real-paths-book.sh [REPS]: the numbers of docs/src/study-real-paths.md (issue
# 41), from `spikelab reproduce real-paths --reps REPS` (default 100, the default of
# `spikelab reproduce`) by scripts/study-book.sh, which writes the report's section
# between the page's markers. SPIKELAB names the binary (default: a release build of
# this checkout).
set -euo pipefail
exec bash "$(dirname "$0")/study-book.sh" real-paths "The five papers' fixes on the real-path library" "${1:-100}"
