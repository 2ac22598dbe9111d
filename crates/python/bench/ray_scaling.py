"""Ray backend scaling: the same sweep on a local Ray with 1 and with 2 CPUs.

    python crates/python/bench/ray_scaling.py [--reps 100]

The sweep is the gprs-eifel grid of [Gurtov & Ludwig 2002] section 4 without Eifel (3 spike
scenarios x 2 buffers x 3 TCPs = 18 cells). For reference it also times the local
backend with 1 and 2 threads, and checks that every run gives the same DataFrame.
"""

import argparse
import pathlib
import time

import pandas as pd
import ray

import spikelab

ROOT = pathlib.Path(__file__).resolve().parents[3]

GRID = {
    "link.0.spikes.0.interval": {
        "easy": {"dist": "uniform", "min": "80s", "max": "140s"},
        "mediocre": {"dist": "uniform", "min": "40s", "max": "80s"},
        "difficult": {"dist": "uniform", "min": "20s", "max": "40s"},
    },
    "link.0.queue.limit.packets": {"10KB": 9, "100KB": 99},
    "flow.0.tcp.recovery": ["reno", "new-reno", "reno-sack"],
}


def timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=100)
    a = ap.parse_args()
    s = spikelab.Scenario.from_toml(ROOT / "scenarios" / "gprs-eifel.toml")
    def run(reps=a.reps, **kw):
        return spikelab.sweep(s, GRID, reps=reps, seed=1, table="summary", progress=False, **kw)

    results = {}
    for jobs in (1, 2):
        t, df = timed(lambda: run(backend="local", jobs=jobs))
        results[f"local jobs={jobs}"] = (t, df)
    for cpus in (1, 2):
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
        run(backend="ray", reps=2)  # warm the workers up (process start, import)
        t, df = timed(lambda: run(backend="ray"))
        ray.shutdown()
        results[f"ray num_cpus={cpus}"] = (t, df)
    first = next(iter(results.values()))[1]
    for name, (t, df) in results.items():
        pd.testing.assert_frame_equal(df, first, check_exact=True)
        print(f"{name:16s} {t:7.2f} s")
    one, two = results["ray num_cpus=1"][0], results["ray num_cpus=2"][0]
    print(f"ray speed-up 1 -> 2 CPUs: {one / two:.2f}x; {18 * a.reps} repetitions, identical tables")


if __name__ == "__main__":
    main()
