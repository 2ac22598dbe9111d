"""Sweeps: one DataFrame, one column per axis, the same on every backend."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

import spikelab

GRID = {
    "flow.0.tcp.recovery": ["reno", "new-reno"],
    "link.0.spikes.0.duration": {"3-6s": {"dist": "uniform", "min": "3s", "max": "6s"},
                                 "9s": {"dist": "fixed", "value": "9s"}},
}


@pytest.fixture
def gprs(scenario_path):
    # 30 KB instead of 300 KB keeps each cell under a second.
    return spikelab.Scenario.from_toml(scenario_path("gprs-eifel")).set(
        "flow.0.workload.bytes", "30KB"
    )


def test_a_sweep_cell_is_the_run_of_the_edited_scenario(gprs):
    df = spikelab.sweep(gprs, GRID, reps=3, seed=4, progress=False)
    assert list(df.columns[:2]) == list(GRID)
    assert len(df) == 2 * 2 * 3
    cell = df[(df["flow.0.tcp.recovery"] == "new-reno") & (df["link.0.spikes.0.duration"] == "9s")]
    alone = gprs.set({"flow.0.tcp.recovery": "new-reno",
                      "link.0.spikes.0.duration": {"dist": "fixed", "value": "9s"}})
    want = alone.run(reps=3, seed=4, progress=False).runs
    pd.testing.assert_frame_equal(cell.drop(columns=list(GRID)).reset_index(drop=True), want)


def test_sweep_returns_several_tables_as_a_dict(gprs):
    out = spikelab.sweep(gprs, {"flow.0.tcp.recovery": ["reno"]}, reps=2,
                         table=["summary", "detectors"], progress=False)
    assert set(out) == {"summary", "detectors"}
    assert out["summary"].columns[0] == "flow.0.tcp.recovery"


def test_local_and_ray_sweeps_are_identical(gprs):
    ray = pytest.importorskip("ray", reason="SKIPPED: ray is not installed")
    tables = ["runs", "summary", "timeouts", "detectors", "links"]
    grid = {**GRID, "flow.0.tcp.spurious.driver": ["eifel"],
            "flow.0.tcp.spurious.observe": [["dsack", "ack-timing"]]}
    grid["flow.0.tcp.recovery"] = ["reno-sack"]
    local = spikelab.sweep(gprs, grid, reps=5, seed=8, table=tables, progress=False)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = spikelab.sweep(gprs, grid, reps=5, seed=8, table=tables,
                                backend="ray", chunk=2, progress=False)
    finally:
        ray.shutdown()
    for t in tables:
        pd.testing.assert_frame_equal(local[t], remote[t], check_exact=True)
    assert len(local["detectors"]) > 0, "the detectors table must not be trivially equal"


def test_a_ray_sweep_on_two_nodes_uses_both_and_equals_the_local_one(gprs):
    """Two raylets on this machine (ray.cluster_utils.Cluster: a head and a second
    node, one CPU each) stand in for a two-machine cluster: tasks must be placed on
    both nodes and the tables must not depend on where they ran."""
    ray = pytest.importorskip("ray", reason="SKIPPED: ray is not installed")
    from ray.cluster_utils import Cluster
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    @ray.remote(num_cpus=1)
    def warm_worker():  # nested: pickled by value, the workers cannot import tests
        import spikelab  # noqa: F401

    tables = ["runs", "summary", "detectors"]
    local = spikelab.sweep(gprs, GRID, reps=4, seed=3, table=tables, progress=False)
    cluster = Cluster(initialize_head=True,
                      head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)
        nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        assert len(nodes) == 2
        # A cold node (its worker process still starting, importing spikelab) gets
        # passed over by SPREAD while the other node has an idle worker: start one
        # worker on each node first, as a long-running cluster would have.
        ray.get([warm_worker.options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote()
            for node in nodes])
        placement = []
        remote = spikelab.sweep(gprs, GRID, reps=4, seed=3, table=tables,
                                backend="ray", chunk=1, progress=False,
                                placement=placement)
    finally:
        ray.shutdown()
        cluster.shutdown()
    assert len(placement) == 4 * 4, "one task per cell and repetition"
    assert sorted((c, s) for c, s, _, _ in placement) == [(c, r) for c in range(4)
                                                          for r in range(4)]
    assert {node for *_, node in placement} == nodes, "tasks ran on one node only"
    for t in tables:
        pd.testing.assert_frame_equal(local[t], remote[t], check_exact=True)


def test_ctrl_c_stops_a_run_cleanly(scenario_path):
    code = textwrap.dedent(f"""
        import sys, spikelab
        s = spikelab.Scenario.from_toml({str(scenario_path("gprs-eifel"))!r})
        print("started", flush=True)
        try:
            s.run(reps=200000, jobs=1, progress=False)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(7)
    """)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.0)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 7, out
    assert "interrupted" in out
    # The whole run takes minutes; one repetition a few milliseconds.
    assert time.monotonic() - t0 < 5, "the interrupt waited for the whole run"
