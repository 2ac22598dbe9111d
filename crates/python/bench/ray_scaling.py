"""Ray backend scaling: the same sweep on a local Ray with 1 and with 2 CPUs, and on
one against two Ray nodes.

    python crates/python/bench/ray_scaling.py [--reps 100] [--rounds 1]

The sweep is the gprs-eifel grid of [Gurtov & Ludwig 2002] section 4 without Eifel (3 spike
scenarios x 2 buffers x 3 TCPs = 18 cells), seed 1 everywhere (paired seeds: every
configuration runs the same repetitions). For reference it also times the local
backend with 1 and 2 threads, and checks that every run gives the same DataFrame.

The nodes are raylets of a `ray.cluster_utils.Cluster` on this machine, one CPU each:
"1 node" is the head alone, "2 nodes" the head and a second raylet. On one machine
they share its cores, so 1 -> 2 nodes measures what a second node costs and gains
(scheduling across raylets, a second object store, SPREAD placement) with the
cores the machine can give, not a second machine's cores. `--rounds` alternates the
configurations that many times and prints the median.
"""

import argparse
import collections
import pathlib
import statistics
import time

import pandas as pd
import ray
from ray.cluster_utils import Cluster

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


def on_local_ray(cpus):
    def start():
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
        return ray.shutdown

    return start


def on_cluster(nodes):
    def start():
        cluster = Cluster(initialize_head=True,
                          head_node_args={"num_cpus": 1, "include_dashboard": False})
        for _ in range(nodes - 1):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)

        def stop():
            ray.shutdown()
            cluster.shutdown()

        return stop

    return start


def warm_every_node():
    """Starts a worker that imports spikelab on every node: SPREAD passes over a node
    whose first worker is still starting, and a cold worker's start (importing pandas)
    is not what a long-running cluster pays per sweep."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    @ray.remote(num_cpus=1)
    def warm():
        import spikelab  # noqa: F401

    nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
    ray.get([warm.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n, soft=False))
             .remote() for n in nodes])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    s = spikelab.Scenario.from_toml(ROOT / "scenarios" / "gprs-eifel.toml")

    def run(reps=a.reps, **kw):
        return spikelab.sweep(s, GRID, reps=reps, seed=1, table="summary", progress=False, **kw)

    configs = {
        "local jobs=1": lambda: run(backend="local", jobs=1),
        "local jobs=2": lambda: run(backend="local", jobs=2),
    }
    rays = {
        "ray num_cpus=1": on_local_ray(1),
        "ray num_cpus=2": on_local_ray(2),
        "ray 1 node": on_cluster(1),
        "ray 2 nodes": on_cluster(2),
    }
    times, frames, nodes = collections.defaultdict(list), {}, {}
    for _ in range(a.rounds):
        for name, f in configs.items():
            t, frames[name] = timed(f)
            times[name].append(t)
        for name, start in rays.items():
            stop = start()
            try:
                warm_every_node()
                run(backend="ray", reps=2)  # warm the workers up (process start, import)
                placement = []
                t, frames[name] = timed(lambda: run(backend="ray", placement=placement))
            finally:
                stop()
            times[name].append(t)
            nodes[name] = collections.Counter(p[3][:8] for p in placement)
    first = next(iter(frames.values()))
    for name, df in frames.items():
        pd.testing.assert_frame_equal(df, first, check_exact=True)
        where = f"  tasks per node {dict(nodes[name])}" if name in nodes else ""
        print(f"{name:16s} {statistics.median(times[name]):7.2f} s{where}")
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"ray speed-up 1 -> 2 CPUs: {med['ray num_cpus=1'] / med['ray num_cpus=2']:.2f}x; "
          f"1 -> 2 nodes: {med['ray 1 node'] / med['ray 2 nodes']:.2f}x; "
          f"{18 * a.reps} repetitions per run, identical tables")


if __name__ == "__main__":
    main()
