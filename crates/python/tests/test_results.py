"""DataFrames hold what the CLI's CSV files hold, for the same seed."""

import json
import pickle
import subprocess

import numpy as np
import pandas as pd
import pytest

import spikelab
from spikelab._frames import EXACT_FLOATS

TABLES = ["runs", "summary", "timeouts", "detectors", "links"]


def assert_frame_matches_csv(df, csv_path):
    """Same columns in the same order, same rows; texts and counts exact, reals
    within the CSV's 6 decimals, durations exact (9 decimals, integer nanoseconds)."""
    want = pd.read_csv(csv_path, keep_default_na=False, na_values=["NaN", ""])
    assert list(df.columns) == list(want.columns), csv_path
    assert len(df) == len(want), csv_path
    for col in df.columns:
        got, exp = df[col].to_numpy(), want[col].to_numpy()
        if df[col].dtype == object or pd.api.types.is_string_dtype(df[col]):
            exp = ["" if isinstance(x, float) and np.isnan(x) else str(x) for x in exp]
            assert [str(x) for x in got] == exp, (csv_path, col)
        elif df[col].dtype == bool:
            assert list(got.astype(int)) == list(exp.astype(int)), (csv_path, col)
        else:
            np.testing.assert_allclose(
                got.astype(float), exp.astype(float), rtol=0, atol=5.1e-7,
                equal_nan=True, err_msg=f"{csv_path}:{col}",
            )


@pytest.mark.parametrize("name", ["reference", "gprs-eifel"])
def test_dataframes_equal_the_cli_csv_files_for_the_same_seed(cli, scenario_path, tmp_path, name):
    path = scenario_path(name)
    out = tmp_path / "out"
    subprocess.run(
        [cli, "run", str(path), "--seed", "11", "--reps", "3", "--out", str(out)],
        check=True, capture_output=True,
    )
    r = spikelab.Scenario.from_toml(path).run(reps=3, seed=11, jobs=2, progress=False)
    for t in TABLES:
        assert_frame_matches_csv(r.table(t), out / f"{t}.csv")
    meta = json.loads((out / "meta.json").read_text())
    assert r.meta == meta


def test_trace_is_the_cli_trace_of_that_repetition(cli, scenario_path, tmp_path):
    path = scenario_path("quickstart")
    out = tmp_path / "out"
    subprocess.run(
        [cli, "run", str(path), "--seed", "3", "--reps", "2", "--trace", "--out", str(out)],
        check=True, capture_output=True,
    )
    r = spikelab.Scenario.from_toml(path).run(reps=2, seed=3, progress=False)
    want = pd.read_csv(out / "trace" / "rep1.csv", **EXACT_FLOATS)
    pd.testing.assert_frame_equal(r.trace(1), want)


def test_results_do_not_depend_on_the_number_of_threads(scenario_path):
    s = spikelab.Scenario.from_toml(scenario_path("reference"))
    one = s.run(reps=4, seed=2, jobs=1, progress=False)
    two = s.run(reps=4, seed=2, jobs=2, progress=False)
    for t in TABLES:
        pd.testing.assert_frame_equal(one.table(t), two.table(t))


def test_outcomes_pickle_exactly(scenario_path):
    s = spikelab.Scenario.from_toml(scenario_path("reference"))
    r = s.run(reps=2, seed=9, progress=False)
    back = pickle.loads(pickle.dumps(r._outcomes))
    assert back.to_json() == r._outcomes.to_json()
    assert pickle.loads(pickle.dumps(s)).to_toml() == s.to_toml()


def test_an_unknown_table_says_which_exist(scenario_path):
    r = spikelab.Scenario.from_toml(scenario_path("quickstart")).run(reps=1, progress=False)
    with pytest.raises(ValueError, match="runs, summary"):
        r.table("nope")


def test_a_progress_bar_counts_every_repetition(scenario_path, capsys):
    s = spikelab.Scenario.from_toml(scenario_path("gprs-eifel"))
    s.run(reps=30, seed=1, jobs=2, progress=True)
    err = capsys.readouterr().err
    assert "30/30" in err, err
