"""spikelab.advise: the ranked DataFrame, its replay, and bad input."""

import pandas as pd
import pytest

import spikelab

FIXES = ["eifel:option1:none", "peak-hopper", "std-proxy"]


def test_advise_ranks_fixes_with_paired_intervals(scenario_path):
    df = spikelab.advise(scenario_path("gprs-eifel"), reps=4, fixes=FIXES, combine=False)
    assert list(df["rank"]) == list(range(1, len(df) + 1))
    assert set(df["fix"]) == {"baseline", *FIXES}
    assert (df["reps"] == 4).all()
    # Best first: the objective's means do not decrease down the ranking.
    assert df["mean"].is_monotonic_increasing
    base = df[df["fix"] == "baseline"].iloc[0]
    assert base["vs_baseline"] == 0.0 and base["verdict"] == "baseline"
    assert df.attrs["seed"] == 2002 and df.attrs["reps"] == 4


def test_a_budget_run_replays_with_its_reps_and_seed(scenario_path):
    a = spikelab.advise(scenario_path("gprs-eifel"), budget=0.3, fixes=FIXES)
    b = spikelab.advise(
        scenario_path("gprs-eifel"), reps=a.attrs["reps"], seed=a.attrs["seed"], fixes=FIXES
    )
    pd.testing.assert_frame_equal(a, b)


def test_the_frame_is_the_cli_csv(scenario_path, cli, tmp_path):
    import subprocess

    out = tmp_path / "adv"
    args = [cli, "advise", str(scenario_path("gprs-eifel")), "--reps", "3", "--out", str(out)]
    for f in FIXES:
        args += ["--fix", f]
    subprocess.run(args, check=True, capture_output=True)
    df = spikelab.advise(scenario_path("gprs-eifel"), reps=3, fixes=FIXES)
    from spikelab._frames import EXACT_FLOATS

    csv = pd.read_csv(out / "advise.csv", keep_default_na=False, na_values=["NaN"], **EXACT_FLOATS)
    df.attrs = {}
    pd.testing.assert_frame_equal(df, csv, check_exact=True)


def test_bad_options_and_a_bad_trace_raise(tmp_path):
    with pytest.raises(ValueError, match="objective"):
        spikelab.advise("scenarios/gprs-eifel.toml", objective="speed")
    bad = tmp_path / "owd.csv"
    bad.write_text("0,0ms\n1s,oops\n")
    with pytest.raises(spikelab.ScenarioError, match="owd.csv:2:1"):
        spikelab.advise(bad)
