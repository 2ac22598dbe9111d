"""Every path of the real-path library (scenarios/paths/) through the Python package:
it loads with Scenario.from_toml, its trace files are found beside it after an edit, and
a short download over it completes on every repetition. The directory is iterated, so a
path added later is tested without editing this file."""

import pathlib

import pytest

import spikelab

PATHS = sorted((pathlib.Path(__file__).resolve().parents[3] / "scenarios" / "paths").glob("*.toml"))


def test_the_library_is_found():
    assert len(PATHS) >= 7, PATHS


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_every_path_loads_and_a_short_download_over_it_completes(path):
    s = spikelab.Scenario.from_toml(path)
    assert s.to_dict()["run"]["name"] == path.stem
    short = s.set("flow.0.workload.bytes", "300kB")
    r = short.run(reps=2, seed=1, progress=False)
    runs = r.runs
    assert len(runs) == 2, runs
    assert (runs["completed"] == 1).all(), runs
    assert (runs["download_time_s"] > 0).all(), runs
    # The start is drawn per repetition: the two downloads meet different points of the path.
    assert runs["start_s"].nunique() == 2, runs
