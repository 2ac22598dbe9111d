#!/usr/bin/env bash
# The reports in a browser: writes a small reproduction report (gprs-eifel and
# eifel-response, 2 repetitions per cell) and an advise page (quickstart, 3
# repetitions), opens both in headless Chromium (Debian's `chromium`, installed with
# apt-get when missing and this machine can), checks the DOM the browser built
# (scripts/check_report_dom.py: tables, drawn figures, no raw Markdown, no NaN), drives
# the interactive figures (a hover, a legend click: scripts/report_probe.js) and
# saves screenshots as artifacts under target/browser-test/. No network: the pages load
# nothing but themselves, and Chromium's background services are switched off.
# About 40 s with a built debug binary.
set -euo pipefail
cd "$(dirname "$0")/.."
ART=target/browser-test

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium for the browser test" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "SKIPPED: chromium not found and cannot be installed here: the reports are NOT checked in a browser" >&2
    exit 0
  fi
fi

cargo build -q --locked -p spikelab-cli
bin=target/debug/spikelab
rm -rf "$ART"
mkdir -p "$ART"
"$bin" reproduce gprs-eifel eifel-response --reps 2 --jobs 2 --out "$ART/reproduce" 2>"$ART/reproduce.log"
"$bin" advise scenarios/quickstart.toml --reps 3 --jobs 2 --out "$ART/advise" >"$ART/advise.log" 2>&1

# Every run gets a new empty profile; the flags keep Chromium off the network.
browse() {
  local profile
  profile=$(mktemp -d)
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --user-data-dir="$profile" "$@" 2>>"$ART/chromium.log"
  rm -rf "$profile"
}

fail=0
check() { # page, name, min tables, min figures
  local page=$PWD/$ART/$1 name=$2
  browse --dump-dom "file://$page" >"$ART/$name.dom"
  browse --window-size=1280,2600 --screenshot="$PWD/$ART/$name.png" "file://$page" >/dev/null
  [ -s "$ART/$name.png" ] || { echo "no screenshot of $page" >&2; fail=1; }
  python3 scripts/check_report_dom.py "$ART/$name.dom" --page-dir "$(dirname "$page")" \
    --min-tables "$3" --min-figures "$4" || fail=1
}
check reproduce/report.html report 10 8
check advise/advise.html advise 2 2

# The interactive figures, driven: a copy of the report with scripts/report_probe.js
# appended hovers over a plotted point and clicks a legend entry, and records the result.
python3 - "$ART/reproduce/report.html" "$ART/reproduce/probe.html" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
probe = open("scripts/report_probe.js", encoding="utf-8").read()
open(sys.argv[2], "w", encoding="utf-8").write(
    page.replace("</body></html>", "<script>" + probe + "</script></body></html>"))
PY
browse --dump-dom "file://$PWD/$ART/reproduce/probe.html" >"$ART/probe.dom"
python3 scripts/check_report_dom.py "$ART/probe.dom" --page-dir "$ART/reproduce" --probe || fail=1
if [ "$fail" != 0 ]; then
  echo "browser test FAILED (artifacts in $ART)" >&2
  exit 1
fi
echo "browser test passed; screenshots: $ART/report.png $ART/advise.png"
