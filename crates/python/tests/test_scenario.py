"""Loading, editing and saving scenarios; errors that say where."""

import pytest

import spikelab


def test_toml_to_dict_to_toml_round_trip_keeps_the_scenario(scenario_path):
    original = spikelab.Scenario.from_toml(scenario_path("reference"))
    d = original.to_dict()
    again = spikelab.Scenario.from_dict(d, name=original.source)
    assert again.to_dict() == d
    back = spikelab.Scenario.from_str(again.to_toml(), name=original.source)
    assert back.to_dict() == d
    assert back.flows == original.flows
    a = original.run(reps=2, seed=5, progress=False)
    b = back.run(reps=2, seed=5, progress=False)
    assert a.runs.equals(b.runs)
    assert a.meta["scenario"] == b.meta["scenario"]


def test_set_uses_the_dotted_paths_of_grids_and_returns_a_copy(scenario_path):
    base = spikelab.Scenario.from_toml(scenario_path("gprs-eifel"))
    fack = base.set("flow.0.tcp.recovery", "fack")
    assert fack.to_dict()["flow"][0]["tcp"]["recovery"] == "fack"
    assert base.to_dict()["flow"][0]["tcp"]["recovery"] == "reno"
    both = base.set({"flow.0.tcp.recovery": "new-reno", "run.reps": 3})
    assert both.reps == 3
    assert both.to_dict()["flow"][0]["tcp"]["recovery"] == "new-reno"


def test_a_bad_scenario_raises_scenario_error_with_file_line_and_field():
    text = '[run]\nseed = 1\n\n[[link]]\nname = "l"\nrate = "1Mbit/s"\nlatency = "fast"\n'
    with pytest.raises(spikelab.ScenarioError) as info:
        spikelab.Scenario.from_str(text, name="bad.toml")
    e = info.value
    assert (e.file, e.line, e.column) == ("bad.toml", 7, 1)
    assert e.field == "link[0].latency"
    assert e.reason == "`fast` does not start with a number"
    assert str(e).startswith("bad.toml:7:1: field `link[0].latency`: ")
    assert isinstance(e, ValueError)


def test_a_bad_edit_is_refused_with_the_field(scenario_path):
    base = spikelab.Scenario.from_toml(scenario_path("gprs-eifel"))
    with pytest.raises(spikelab.ScenarioError) as info:
        base.set("flow.0.tcp.recovery", "tahoe-ish")
    assert info.value.field == "flow[0].tcp.recovery"
    assert info.value.line > 0
    with pytest.raises(spikelab.ScenarioError) as info:
        base.set("flow.4.name", "x")
    assert "index 4 beyond 1 items" in info.value.reason


def test_an_unreadable_file_is_a_scenario_error(tmp_path):
    with pytest.raises(spikelab.ScenarioError) as info:
        spikelab.Scenario.from_toml(tmp_path / "missing.toml")
    assert info.value.line == 0
    assert "cannot read the scenario" in str(info.value)


def test_values_that_toml_cannot_hold_are_type_errors(scenario_path):
    base = spikelab.Scenario.from_toml(scenario_path("gprs-eifel"))
    with pytest.raises(TypeError):
        base.set("flow.0.tcp.recovery", object())
