"""QUIC flows (`kind = "quic"`, docs/src/quic.md) through the Python API: the RFC 9002
model and real quinn (`implementation = "quinn"`), and their columns in the DataFrames."""

import pytest

import spikelab

# An 8 s hiccup on a 30 kbit/s, 300 ms GPRS-like link while a 100 KB QUIC transfer runs:
# the held flight outlives the first probe timeout, which is therefore spurious.
STALL = '''
[run]
name = "quic-stall"
seed = 7
stop = "600s"

[[link]]
name = "gprs"
rate = "30kbit/s"
latency = "300ms"
queue = { kind = "drop-tail", limit = { packets = 20 } }
[[link.spikes]]
kind = "hiccup"
at = [{ start = "10s", duration = "8s" }]

[[flow]]
name = "quic"
kind = "quic"
route = ["gprs"]
workload = { kind = "bulk", bytes = "100KB" }
[flow.quic]
cc = "cubic"
'''

QUIC_COLUMNS = [
    "ptos",
    "spurious_ptos",
    "loss_declarations",
    "spurious_loss_declarations",
    "persistent_congestion",
    "undos",
]


@pytest.fixture
def stall():
    return spikelab.Scenario.from_str(STALL, name="quic-stall.toml")


def test_a_quic_flow_has_the_quic_columns_judged_by_ground_truth(stall):
    runs = stall.run(reps=2, progress=False).runs
    assert set(QUIC_COLUMNS) <= set(runs.columns)
    assert (runs["kind"] == "quic").all()
    assert (runs["completed"] == 1).all()
    for c in QUIC_COLUMNS:
        assert runs[c].dtype.kind in "iu", c
    # The stall holds the flight past the first PTO: spurious by ground truth.
    assert (runs["spurious_ptos"] >= 1).all()
    assert (runs["ptos"] >= runs["spurious_ptos"]).all()
    assert (runs["loss_declarations"] >= runs["spurious_loss_declarations"]).all()
    # A 20-packet queue overflows in the window's slow start: losses, retransmitted.
    assert (runs["loss_declarations"] > 0).all() and (runs["retransmissions"] > 0).all()
    # RFC 9002 undoes nothing, and QUIC has no TCP retransmission timeout.
    assert (runs["undos"] == 0).all()
    assert (runs["timeouts"] == 0).all()


def test_the_summary_has_a_row_per_quic_metric(stall):
    summary = stall.run(reps=2, progress=False).summary
    metrics = set(summary[summary["flow"] == "quic"]["metric"])
    assert set(QUIC_COLUMNS) <= metrics


def test_a_deep_enough_queue_loses_nothing_and_the_same_seed_gives_the_same_frame(stall):
    deep = stall.set({"link.0.queue.limit.packets": 60, "flow.0.quic.undo": "msquic"})
    a = deep.run(reps=2, seed=3, progress=False).runs
    b = deep.run(reps=2, seed=3, progress=False).runs
    assert a.equals(b)
    assert (a["loss_declarations"] == 0).all() and (a["retransmissions"] == 0).all()
    assert (a["spurious_ptos"] >= 1).all()


def test_real_quinn_runs_the_same_transfer_with_its_own_decisions(stall):
    model = stall.run(reps=2, seed=5, progress=False).runs
    quinn = stall.set("flow.0.quic", {"implementation": "quinn", "cc": "cubic"})
    runs = quinn.run(reps=2, seed=5, progress=False).runs
    assert set(QUIC_COLUMNS) <= set(runs.columns)
    assert (runs["kind"] == "quic").all()
    assert (runs["completed"] == 1).all()
    assert (runs["ptos"] >= 1).all()
    # quinn-proto 0.11.19 has no spurious-loss undo.
    assert (runs["undos"] == 0).all()
    cols = ["retransmissions", "loss_declarations", "download_time_s"]
    assert not runs[cols].equals(model[cols]), "quinn ran the model"


def test_quinn_refuses_a_setting_it_does_not_have_at_its_field(stall):
    with pytest.raises(spikelab.ScenarioError) as info:
        stall.set("flow.0.quic", {"implementation": "quinn", "undo": "msquic"})
    assert info.value.field == "flow[0].quic.undo"
    assert "quinn fixes it" in info.value.reason
