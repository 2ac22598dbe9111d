#!/usr/bin/env bash
# tools/ns2/build.sh: builds ns-2.35 with spikelab's link-freeze patch and caches
# the binary outside the repository. Prints the binary's path on its last stdout line.
#
#   cache:  ${SPIKELAB_CACHE:-$HOME/.cache/spikelab}/ns2-freeze/
#           src/ns2_2.35+dfsg.orig.tar.xz      the Debian source package's tarball
#           <key>/ns-2.35/ns                    the binary; <key> hashes patches/*.patch
#                                               and RECIPE below, so changing either rebuilds
#
# Steps (each skipped when already done):
#   1. installs missing build dependencies with apt-get (root only);
#   2. fetches the orig tarball with `apt-get source --download-only ns2`, adding a
#      deb-src entry for the Debian mirror already configured (the 404 on the
#      .debian.tar.xz that follows is expected: only the orig tarball is used);
#   3. unpacks, applies patches/*.patch in order, configures against Debian 12's
#      Tcl/Tk 8.6, OTcl and TclCL, and runs `make ns` (about a minute on 2 cores).
#
# Exit status: 0 built or cached; 3 the build is impossible on this machine (missing
# dependency and no root, no source reachable, not a Debian-like layout); the reason
# is on stderr. Any other failure (a patch that does not apply, a compile error) is 1.
#
# Environment: SPIKELAB_CACHE (cache root), NS2_JOBS (make -j, default nproc).
set -euo pipefail

msg() { echo "tools/ns2/build.sh: $*" >&2; }
die() { msg "error: $*"; exit 1; }
impossible() { msg "impossible here: $*"; exit 3; }

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${SPIKELAB_CACHE:-$HOME/.cache/spikelab}/ns2-freeze
TARBALL_NAME=ns2_2.35+dfsg.orig.tar.xz
TARBALL_SHA256=a3a097194c87fedbf2a7d3c8520790dc8688874cad0373af2db0ed33e463d52e
TCLVER=8.6
JOBS=${NS2_JOBS:-$(nproc 2>/dev/null || echo 2)}
# Bump when the steps below change in a way that changes the binary.
RECIPE=1

KEY=$( (echo "recipe $RECIPE"; cat "$HERE"/patches/*.patch) | sha256sum | cut -c1-16)
OUT=$CACHE/$KEY
NS=$OUT/ns-2.35/ns

if [ -f "$OUT/.done" ] && [ -x "$NS" ]; then
    echo "$NS"
    exit 0
fi
mkdir -p "$CACHE" || impossible "cannot create the cache directory $CACHE"
# One build at a time (test binaries may call this script concurrently).
exec 9>"$CACHE/.lock"
flock 9
if [ -f "$OUT/.done" ] && [ -x "$NS" ]; then
    echo "$NS"
    exit 0
fi

# --- 1. build dependencies (tclcl provides /usr/bin/tcl2c++) ----------------------
DEPS="g++ make patch xz-utils tcl$TCLVER-dev tk$TCLVER-dev libotcl1-dev libtclcl1-dev
      tclcl libx11-dev libxt-dev libxext-dev"
command -v dpkg-query >/dev/null || impossible "no dpkg: this script needs Debian 12 packages"
missing=""
for p in $DEPS; do
    case "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" in
        *" installed") ;;
        *) missing="$missing $p" ;;
    esac
done
if [ -n "$missing" ]; then
    [ "$(id -u)" = 0 ] || impossible "missing build dependencies (need root to install):$missing"
    msg "installing build dependencies:$missing (log: $CACHE/apt.log)"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    if ! apt-get install -y -qq --no-install-recommends $missing >"$CACHE/apt.log" 2>&1; then
        apt-get update -qq >>"$CACHE/apt.log" 2>&1 || true
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing >>"$CACHE/apt.log" 2>&1 \
            || impossible "apt-get install$missing failed (see $CACHE/apt.log)"
    fi
fi

# --- 2. the Debian source tarball ------------------------------------------------
SRC=$CACHE/src
TARBALL=$SRC/$TARBALL_NAME
add_deb_src() {
    # A deb-src twin of every configured Debian `deb` entry (deb822 and one-line style).
    local f=/etc/apt/sources.list.d/spikelab-deb-src.sources
    local l=/etc/apt/sources.list.d/spikelab-deb-src.list
    for s in /etc/apt/sources.list.d/*.sources; do
        [ -f "$s" ] && [ "$s" != "$f" ] || continue
        grep -q 'debian' "$s" || continue
        sed -e 's/^Types:.*$/Types: deb-src/' "$s"
        echo
    done >"$f.tmp"
    if [ -s "$f.tmp" ]; then mv "$f.tmp" "$f"; else rm -f "$f.tmp"; fi
    if [ -f /etc/apt/sources.list ]; then
        sed -n 's/^deb \(.*debian.*\)$/deb-src \1/p' /etc/apt/sources.list >"$l"
        [ -s "$l" ] || rm -f "$l"
    fi
}
if [ ! -f "$TARBALL" ]; then
    [ "$(id -u)" = 0 ] || impossible "the ns-2.35 source $TARBALL is missing and fetching it needs root (apt)"
    mkdir -p "$SRC"
    if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        msg "adding a deb-src entry for the configured Debian mirror"
        add_deb_src
    fi
    apt-get update -qq >"$CACHE/apt.log" 2>&1 || true
    msg "fetching the ns2 source package (a 404 on its .debian.tar.xz is expected)"
    (cd "$SRC" && apt-get source --download-only ns2 >>"$CACHE/apt.log" 2>&1) || true
    [ -f "$TARBALL" ] || impossible "apt-get source ns2 did not deliver $TARBALL_NAME"
fi
echo "$TARBALL_SHA256  $TARBALL" | sha256sum -c --quiet - >&2 \
    || die "$TARBALL does not have the expected sha256 $TARBALL_SHA256"

# --- 3. unpack, patch, configure, make ---------------------------------------------
rm -rf "$OUT"
mkdir -p "$OUT"
TREE=$OUT/ns-2.35
LOG=$OUT/build.log
msg "building in $OUT (log: $LOG)"
tar xf "$TARBALL" -C "$OUT" --no-same-owner
[ -f "$TREE/tcp/tcp.cc" ] || die "$TARBALL does not unpack to ns-2.35/"
for p in "$HERE"/patches/*.patch; do
    patch -d "$TREE" -p1 -s -f --no-backup-if-mismatch <"$p" >>"$LOG" 2>&1 \
        || die "patch $(basename "$p") does not apply (see $LOG)"
done

# ns-2.35's configure looks for Tcl/Tk/OTcl/TclCL in prefix-style trees; Debian spreads
# them over /usr/include/tcl8.6, /usr/lib/<multiarch> and /usr/share/tcltk. A folder of
# symlinks presents them the way configure expects.
MA=$(gcc -print-multiarch 2>/dev/null || true)
[ -n "$MA" ] || impossible "cannot tell the multiarch library directory"
L=/usr/lib/$MA
for f in /usr/include/tcl$TCLVER/tcl-private/generic/tclInt.h \
         /usr/include/tcl$TCLVER/tk-private/generic/tk.h \
         "$L/libtcl$TCLVER.so" "$L/libtk$TCLVER.so" "$L/libotcl.so" "$L/libtclcl.so" \
         /usr/share/tcltk/tcl$TCLVER/init.tcl /usr/share/tcltk/tk$TCLVER/tk.tcl \
         /usr/include/otcl.h /usr/include/tclcl/tclcl.h /usr/bin/tcl2c++; do
    [ -e "$f" ] || impossible "expected system file $f is missing (not Debian 12's layout)"
done
S=$OUT/sysdeps
mkdir -p "$S"/{tcl,tk,otcl,tclcl}/lib "$S/tclcl/bin"
ln -s /usr/include/tcl$TCLVER/tcl-private/generic "$S/tcl/generic"
ln -s /usr/include/tcl$TCLVER/tcl-private/unix "$S/tcl/unix"
ln -s "$L/libtcl$TCLVER.so" "$S/tcl/lib/libtcl$TCLVER.so"
ln -s /usr/share/tcltk/tcl$TCLVER "$S/tcl/lib/tcl$TCLVER"
ln -s /usr/include/tcl$TCLVER/tk-private/generic "$S/tk/generic"
ln -s "$L/libtk$TCLVER.so" "$S/tk/lib/libtk$TCLVER.so"
ln -s /usr/share/tcltk/tk$TCLVER "$S/tk/lib/tk$TCLVER"
ln -s /usr/include/otcl.h "$S/otcl/otcl.h"
ln -s "$L/libotcl.so" "$S/otcl/lib/libotcl.so"
ln -s /usr/include/tclcl "$S/tclcl/include"
ln -s "$L/libtclcl.so" "$S/tclcl/lib/libtclcl.so"
ln -s /usr/bin/tcl2c++ "$S/tclcl/bin/tcl2c++"

(cd "$TREE" && ./configure --with-tcl="$S/tcl" --with-tcl-ver=$TCLVER \
    --with-tk="$S/tk" --with-tk-ver=$TCLVER --with-otcl="$S/otcl" \
    --with-tclcl="$S/tclcl") >>"$LOG" 2>&1 || die "configure failed (see $LOG)"
# -O2: configure's optimisation probe tests __GNUC_MINOR__ < 8 and fails on GCC 12, which
#      would silently build at -O0 (Debian builds with -O2).
# USE_INTERP_RESULT / USE_INTERP_ERRORLINE: Debian's tclcl.h uses interp->result, which
#      Tcl 8.6 only declares with these.
# -fstack-protector-strong: Debian's hardening flag, as in /usr/bin/ns.
FLAGS="-O2 -fstack-protector-strong -Wall -Wno-write-strings -Wno-deprecated-declarations -DUSE_INTERP_RESULT -DUSE_INTERP_ERRORLINE"
sed -i "s|^CCOPT[[:space:]]*=.*|CCOPT\t= $FLAGS|" "$TREE/Makefile"
grep -q -- "-DUSE_INTERP_RESULT" "$TREE/Makefile" || die "could not set CCOPT in $TREE/Makefile"

start=$(date +%s)
(cd "$TREE" && make -j"$JOBS" ns) >>"$LOG" 2>&1 \
    || { grep -E 'error' "$LOG" | tail -n 20 >&2; die "make failed (see $LOG)"; }
[ -x "$NS" ] || die "make succeeded but $NS is missing"
msg "built in $(($(date +%s) - start)) s"
touch "$OUT/.done"
# Older builds (other keys) are no longer used.
for d in "$CACHE"/*/; do
    case "$d" in "$CACHE/src/" | "$OUT/") ;; *) [ -f "$d/.done" ] && rm -rf "$d" ;; esac
done
echo "$NS"
