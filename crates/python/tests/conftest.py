"""Shared fixtures: the repository's scenarios and the CLI binary to compare with."""

import os
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCENARIOS = ROOT / "scenarios"


@pytest.fixture
def scenario_path():
    return lambda name: SCENARIOS / f"{name}.toml"


@pytest.fixture(scope="session")
def cli():
    """The `spikelab` binary: $SPIKELAB_BIN, else target/{release,debug}/spikelab."""
    candidates = [os.environ.get("SPIKELAB_BIN")]
    candidates += [str(ROOT / "target" / p / "spikelab") for p in ("release", "debug")]
    candidates.append(shutil.which("spikelab"))
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    print("SKIPPED: no spikelab binary (set SPIKELAB_BIN or cargo build -p spikelab-cli)")
    pytest.skip("SKIPPED: no spikelab CLI binary to compare with")
