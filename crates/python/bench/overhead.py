"""Python's overhead over the CLI for one 100-repetition gprs-eifel cell.

    python crates/python/bench/overhead.py [--runs 7] [--cli target/release/spikelab]

Times, alternately, `spikelab run scenarios/gprs-eifel.toml --reps 100` (the whole
process: load, simulate, write the CSV files) and, inside one Python process,
`Scenario.from_toml(...).run(reps=100)` plus building every table and `meta`; both on
every core. Prints the median of each and the relative difference. The interpreter's
start and `import spikelab` (pandas) are timed apart: they are paid once per session.
"""

import argparse
import pathlib
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
    cli, py = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.runs):
            t = time.perf_counter()
            subprocess.run(
                [a.cli, "run", str(SCENARIO), "--reps", str(a.reps), "--out", f"{tmp}/out"],
                check=True, capture_output=True,
            )
            cli.append(time.perf_counter() - t)
            t = time.perf_counter()
            r = spikelab.Scenario.from_toml(SCENARIO).run(reps=a.reps, progress=False)
            for name in ("runs", "summary", "timeouts", "detectors", "links"):
                r.table(name)
            r.meta
            py.append(time.perf_counter() - t)
    c, p = statistics.median(cli), statistics.median(py)
    print(f"cli    median {c * 1000:8.1f} ms  (runs: {', '.join(f'{x * 1000:.0f}' for x in cli)})")
    print(f"python median {p * 1000:8.1f} ms  (runs: {', '.join(f'{x * 1000:.0f}' for x in py)})")
    print(f"python / cli = {p / c:.3f}  ({(p / c - 1) * 100:+.1f} %)")
    print(f"import spikelab (once per session): {import_s * 1000:.0f} ms; python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
