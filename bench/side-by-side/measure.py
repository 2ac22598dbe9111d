#!/usr/bin/env python3
"""Runs one command and writes "wall user sys maxrss_kib" to a file, with microsecond
resolution: GNU time's %e, %U and %S have 10 ms steps, coarser than the differences
between the tools on the 100-flow case (about 0.25 to 0.35 s in all), so ratios
computed from them moved in steps of 3 to 4 %.

    usage: measure.py OUTFILE CMD [ARGS...]

The command's standard output and error pass through; the exit status is the command's.
Wall time is taken around the child alone (os.wait4 reports the child's own CPU times
and maximum resident set size), so Python's start-up is not counted.
"""
import os
import subprocess
import sys
import time


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: measure.py OUTFILE CMD [ARGS...]", file=sys.stderr)
        return 2
    out, cmd = sys.argv[1], sys.argv[2:]
    start = time.perf_counter()
    child = subprocess.Popen(cmd)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    with open(out, "w") as f:
        # ru_maxrss is in KiB on Linux.
        f.write(f"{wall:.4f} {usage.ru_utime:.4f} {usage.ru_stime:.4f} {usage.ru_maxrss}\n")
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
