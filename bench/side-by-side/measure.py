#!/usr/bin/env python3
"""Runs one command and writes "wall user sys maxrss_kib" to a file, with microsecond
resolution: GNU time's %e, %U and %S have 10 ms steps, coarser than the differences
between the tools on the 100-flow case (about 0.25 to 0.4 s in all), so ratios
computed from them moved in steps of 3 to 4 %.

    usage: measure.py OUTFILE CMD [ARGS...]

The command runs under GNU time, which reports only its maximum resident set size
(%M): a process forked from Python carries Python's resident pages into its own
maximum (Linux records the pre-exec high-water mark), about 13 MiB, more than the whole
of htsim's. Wall time is taken around GNU time and the command (GNU time's own fork
and exec, about a millisecond, is the same for every tool); user and system time are
those os.wait4 reports for GNU time and the command it waited for. The command's
standard output and error pass through; the exit status is the command's.
"""
import os
import subprocess
import sys
import tempfile
import time


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: measure.py OUTFILE CMD [ARGS...]", file=sys.stderr)
        return 2
    out, cmd = sys.argv[1], sys.argv[2:]
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        start = time.perf_counter()
        child = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name, *cmd])
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        maxrss = rss.read().split()[-1]
    with open(out, "w") as f:
        f.write(f"{wall:.4f} {usage.ru_utime:.4f} {usage.ru_stime:.4f} {maxrss}\n")
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
