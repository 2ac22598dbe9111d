"""Python's overhead over the CLI for one 100-repetition gprs-eifel cell.

    python crates/python/bench/overhead.py [--runs 7] [--cli target/release/spikelab]

Times, alternately, `spikelab run scenarios/gprs-eifel.toml --reps 100` (the whole
process: load, simulate, write the CSV files) and, inside one Python process,
`Scenario.from_toml(...).run(reps=100)` plus building every table and `meta`; both on
every core. Prints the median wall time and CPU time (user + system, all threads) of
each and their ratios: on a shared machine wall times swing with the load, CPU times
much less. The interpreter's start and `import spikelab` (pandas) are timed apart:
they are paid once per session.
"""

import argparse
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCENARIO = ROOT / "scenarios" / "gprs-eifel.toml"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--cli", default=str(ROOT / "target" / "release" / "spikelab"))
    a = ap.parse_args()
    t0 = time.perf_counter()
    import spikelab

    import_s = time.perf_counter() - t0
    cli, py, cli_cpu, py_cpu = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.runs):
            t, u = time.perf_counter(), cpu(resource.RUSAGE_CHILDREN)
            subprocess.run(
                [a.cli, "run", str(SCENARIO), "--reps", str(a.reps), "--out", f"{tmp}/out"],
                check=True, capture_output=True,
            )
            cli.append(time.perf_counter() - t)
            cli_cpu.append(cpu(resource.RUSAGE_CHILDREN) - u)
            t, u = time.perf_counter(), cpu(resource.RUSAGE_SELF)
            r = spikelab.Scenario.from_toml(SCENARIO).run(reps=a.reps, progress=False)
            for name in ("runs", "summary", "timeouts", "detectors", "links"):
                r.table(name)
            r.meta
            py.append(time.perf_counter() - t)
            py_cpu.append(cpu(resource.RUSAGE_SELF) - u)
    for what, c, p in [("wall", cli, py), ("cpu", cli_cpu, py_cpu)]:
        mc, mp = statistics.median(c), statistics.median(p)
        print(f"{what:4s} cli {mc * 1000:7.1f} ms  python {mp * 1000:7.1f} ms  "
              f"python / cli = {mp / mc:.3f} ({(mp / mc - 1) * 100:+.1f} %)")
    print(f"import spikelab (once per session): {import_s * 1000:.0f} ms; python {sys.version.split()[0]}")


def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


if __name__ == "__main__":
    main()
