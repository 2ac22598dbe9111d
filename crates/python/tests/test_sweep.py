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
