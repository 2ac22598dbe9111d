#!/usr/bin/env bash
# Runs every check and test of spikelab: formatting, clippy with warnings as errors,
# and the whole workspace's tests. tshark (Wireshark's CLI) and ns2 (ns-2.35) are
# installed when missing and this machine can (root with apt): one test checks our pcap
# files with tshark, the differential suite compares the ns2-2002 profile with ns-2.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# A CI checkout builds once from clean: incremental caches would only add gigabytes to its
# disk (6 GB for this workspace's debug tests), and a full disk stopped one CI run.
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi

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

# The emulator's tests (crates/emulate) create network namespaces with iproute2's `ip`.
if ! command -v ip >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing iproute2 for the emulator tests" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked

# ---- Documentation book (docs/) ---------------------------------------------------
# mdBook is not packaged in Debian 12: installed once with cargo at a pinned version (only
# the search feature, no server) into ~/.cargo/bin, which CI keeps between runs. The book
# goes to target/book; scripts/check_links.py then checks every link of its HTML: each
# relative link names a file of the book, each #anchor an id on its page, and nothing
# points outside the book but http(s) URLs (not fetched).
MDBOOK_VERSION=0.5.4
if [ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
  echo "installing mdbook $MDBOOK_VERSION" >&2
  cargo install mdbook --locked --quiet --version "$MDBOOK_VERSION" --no-default-features --features search
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIPPED: python3 not found: the book's links are not checked" >&2
  mdbook build docs
else
  python3 -m unittest -q scripts/test_check_links.py scripts/test_check_sources.py scripts/test_ph_scripts.py scripts/test_path_stats.py scripts/test_bbr_draws.py
  python3 scripts/check_sources.py
  # No import cycle between the modules of any crate (families import the trait, never each other).
  python3 -m unittest -q scripts/test_check_module_cycles.py
  python3 scripts/check_module_cycles.py >/dev/null
  mdbook build docs
  python3 scripts/check_links.py target/book
fi

# ---- Reports in a browser (helper report) -------------------------------------------
# A small reproduction report and an advise page opened in headless Chromium: DOM checks
# (tables, drawn figures, no raw Markdown, no NaN) and screenshots under
# target/browser-test/. Prints a SKIPPED line when Chromium is missing and cannot be installed.
python3 -m unittest -q scripts/test_check_report_dom.py
bash scripts/browser_test.sh

# ---- Python package (crates/python) ------------------------------------------------
# Builds the wheel with maturin, installs it into a venv of pinned test tools under
# target/pyenv (ignored, kept between runs so the tools install once), and into a fresh
# venv of its own, whose only other packages are the wheel's declared dependencies
# (from a wheelhouse under target/pywheels, downloaded once), to prove it installs
# alone; then runs pytest against the CLI binary `cargo test` built. pytest exit 5
# ("no tests collected") fails too: the Python tests must exist and run.
if ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv --help >/dev/null 2>&1; then
  echo "SKIPPED: python3 with venv not found: the Python package is not tested" >&2
else
  PYENV=target/pyenv
  PY_PINS="maturin==1.16.0 pytest==9.2.0 numpy==2.4.6 pandas==3.1.1 tqdm==4.70.1 ray==2.60.0"
  [ -x "$PYENV/bin/python" ] || python3 -m venv "$PYENV"
  "$PYENV/bin/pip" install -q --disable-pip-version-check $PY_PINS
  [ -d target/pywheels ] || "$PYENV/bin/pip" download -q --disable-pip-version-check \
    -d target/pywheels numpy==2.4.6 pandas==3.1.1 tqdm==4.70.1
  rm -rf target/wheels
  "$PYENV/bin/maturin" build --release --locked -q -m crates/python/Cargo.toml -o target/wheels
  wheel=$(ls target/wheels/spikelab-*.whl)
  "$PYENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"
  fresh=$(mktemp -d)
  python3 -m venv "$fresh/venv"
  "$fresh/venv/bin/pip" install -q --disable-pip-version-check --no-index \
    --find-links target/pywheels "$wheel"
  "$fresh/venv/bin/python" -c "import spikelab; r = spikelab.Scenario.from_toml('scenarios/quickstart.toml').run(reps=2, progress=False); assert len(r.runs) == 2 and len(r.summary) > 0; print('fresh venv: spikelab', spikelab.__version__, 'installs and runs')"
  rm -rf "$fresh"
  set +e
  SPIKELAB_BIN=target/debug/spikelab "$PYENV/bin/python" -m pytest -q -p no:cacheprovider crates/python/tests
  rc=$?
  set -e
  if [ "$rc" = 5 ]; then
    echo "pytest collected no tests in crates/python/tests" >&2
    exit 1
  fi
  [ "$rc" = 0 ] || exit "$rc"
fi

# ---- ns-3 comparison (docs/src/validation-ns3.md) ----------------------------------
# ns-3 3.44 from PyPI (ns3==3.44.post0: a 69 MB wheel, no compilation; --no-deps skips
# cppyy, which only its Python bindings need) into target/ns3venv, kept between runs;
# g++ builds bench/ns3-validation/ns3_paths.cc against it. The page's single transfers
# then run in both simulators (about a minute) and must agree. Without them: SKIPPED.
if ! command -v g++ >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing g++ for the ns-3 comparison" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ >/dev/null || echo "g++ install failed: the ns-3 comparison will skip" >&2
fi
if ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv --help >/dev/null 2>&1; then
  echo "SKIPPED: python3 with venv not found: the ns-3 comparison does not run" >&2
else
  # The stamp is written only after a complete install: a half-installed venv (a full disk
  # stopped one CI run mid-install) is removed and installed again, never tested.
  if [ ! -f target/ns3venv/.installed ]; then
    rm -rf target/ns3venv
    python3 -m venv target/ns3venv
    if target/ns3venv/bin/pip install -q --disable-pip-version-check --no-cache-dir --no-deps ns3==3.44.post0; then
      touch target/ns3venv/.installed
    else
      echo "ns-3 install failed (disk: $(df -h --output=avail . | tail -1) free)" >&2
      rm -rf target/ns3venv
    fi
  fi
  if [ -f target/ns3venv/.installed ]; then
    NS3VENV=target/ns3venv SPIKELAB=target/debug/spikelab python3 -m unittest -v scripts/test_validate_ns3.py
  else
    echo "SKIPPED: ns-3 3.44 could not be installed: the ns-3 comparison does not run" >&2
  fi
fi
