"""``spikelab.advise``: which fix works on this path? The ranked answer of
``spikelab advise`` as a DataFrame."""

import io
import os

import pandas as pd

from . import _native
from ._frames import EXACT_FLOATS


def advise(
    path,
    objective="time",
    reps=None,
    budget=None,
    only=None,
    seed=None,
    jobs=None,
    flow=None,
    fixes=(),
    trace_kind="auto",
):
    """Sweeps the fix space on ``path`` and returns the ranked rows as a DataFrame,
    the columns of the CLI's ``advise.csv`` (best first).

    ``path`` is a scenario file (``.toml``) or a measured trace (Mahimahi delivery
    trace, one-way delay trace ``time,delay``, or one RTT in ms per line; force one with
    ``trace_kind``). ``objective`` is ``"time"``, ``"goodput"`` or
    ``"retransmissions"``; ``reps`` fixes the repetitions per row, otherwise as many as
    ``budget`` seconds of simulation allow (default a few seconds); ``only`` keeps
    ``"sender"`` or ``"network"`` fixes; ``fixes`` keeps fixes whose label contains one
    of the strings. Repetition r of every row runs with the CLI's seed for r, so
    ``advise(path, reps=df.attrs["reps"], seed=df.attrs["seed"])`` returns the same
    frame. ``df.attrs`` also holds the notes (ties, the baseline, what was left out).
    """
    text, used_reps, used_seed, notes = _native.advise(
        os.fspath(path),
        objective=objective,
        reps=reps,
        budget=budget,
        only=only,
        seed=seed,
        jobs=jobs,
        flow=flow,
        fixes=list(fixes),
        trace_kind=trace_kind,
    )
    df = pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=["NaN"], **EXACT_FLOATS)
    df.attrs["reps"] = used_reps
    df.attrs["seed"] = used_seed
    df.attrs["notes"] = list(notes)
    return df
