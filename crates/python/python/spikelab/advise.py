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
    combine=True,
):
    """Sweeps the fix space on ``path`` and returns the ranked rows as a DataFrame,
    the columns of the CLI's ``advise.csv`` (best first).

    ``path`` is a scenario file (``.toml``) or a measured trace (Mahimahi delivery
    trace, one-way delay trace ``time,delay``, or one RTT in ms per line; force one with
    ``trace_kind``). ``objective`` is ``"time"``, ``"goodput"`` or
    ``"retransmissions"``; ``reps`` fixes the repetitions per row, otherwise the CLI's
    stopping rule runs 10, 20, 40, ... repetitions until every row is decided (better,
    equivalent, worse beyond the default margin, Holm-corrected) or 160; ``budget``
    opts in to as many as that many seconds allow instead; ``only`` keeps
    ``"sender"`` or ``"network"`` fixes; ``fixes`` keeps fixes whose label contains one
    of the strings; ``combine=False`` leaves out the combinations of the best sender
    fixes with the network boxes and stacks. Repetition r of every row runs with the
    CLI's seed for r, so ``advise(path, reps=df.attrs["reps"], seed=df.attrs["seed"])``
    returns the same rows. ``df.attrs["notes"]`` holds the answer paragraph, then the
    notes (margin, correction, repetitions, what was left out).
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
        combine=combine,
    )
    df = pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=["NaN"], **EXACT_FLOATS)
    df.attrs["reps"] = used_reps
    df.attrs["seed"] = used_seed
    df.attrs["notes"] = list(notes)
    return df
