"""Typed columns from the native module as pandas DataFrames, and progress bars."""

import io
import sys

import numpy as np
import pandas as pd

_INT64_MAX = 2**63 - 1
# pandas 3 parses floats exactly by default and deprecates asking for it.
EXACT_FLOATS = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def frame(columns):
    """A DataFrame from ``(name, kind, values)`` triples, kinds u64/f64/str/bool/missing."""
    data = {}
    for name, kind, values in columns:
        if kind == "u64":
            big = len(values) > 0 and max(values) > _INT64_MAX
            data[name] = np.asarray(values, dtype=np.uint64 if big else np.int64)
        elif kind in ("f64", "missing"):
            data[name] = np.asarray(values, dtype=np.float64)
        elif kind == "bool":
            data[name] = np.asarray(values, dtype=bool)
        else:
            data[name] = pd.Series(values, dtype=object if not values else None)
    return pd.DataFrame(data, columns=[c[0] for c in columns])


def trace_frame(csv_bytes):
    """A trace CSV (``time_s,flow,event,a,b,c``) read back exactly."""
    return pd.read_csv(io.BytesIO(csv_bytes), **EXACT_FLOATS)


def progress_bar(total, desc, enabled):
    """A tqdm bar (terminal or notebook), or None. ``enabled=None``: on in a terminal
    or a notebook, off when stderr is a file or a pipe."""
    if enabled is None:
        enabled = sys.stderr.isatty() or "ipykernel" in sys.modules
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="rep")
