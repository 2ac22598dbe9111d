"""Sweeps: a grid of scenario edits, every cell run for the same repetitions, one
DataFrame out; on this machine or on a Ray cluster.

Repetition r of every cell runs with the CLI's seed for r (``spikelab run``,
``spikelab reproduce``), so the result depends on the cells and repetitions only, not
on the backend, the chunking or the order in which work finished.
"""

import itertools
import math

import pandas as pd

from . import _native
from ._frames import progress_bar
from .scenario import TABLES, Results


def sweep(
    scenario,
    grid,
    reps=None,
    seed=None,
    table="runs",
    backend="local",
    jobs=None,
    chunk=None,
    progress=None,
    placement=None,
):
    """Runs ``scenario`` once per cell of ``grid`` and returns the tables of every
    cell as one DataFrame, with one column per grid axis in front.

    ``grid`` maps a dotted path (``"flow.0.tcp.recovery"``) to its values: a list (the
    column holds the values) or a dict ``{label: value}`` (the column holds the
    labels, for values such as ``{"dist": "uniform", ...}``). Cells are the cartesian
    product, first axis slowest. ``table`` is a table name (runs, summary, timeouts,
    detectors, links) or a list of them, which returns a dict of DataFrames.

    ``backend="local"`` runs each cell's repetitions on ``jobs`` threads (default:
    every core). ``backend="ray"`` submits tasks of ``chunk`` repetitions of one cell
    (default: enough tasks to keep every CPU of the cluster busy) to the cluster
    ``ray.init()`` reaches (or one started on this machine); each task uses one CPU.
    Both give identical DataFrames. Ray spreads the tasks over the cluster's nodes
    (scheduling strategy ``"SPREAD"``); pass a list as ``placement`` to have one
    ``(cell, first_rep, end_rep, node_id)`` tuple appended per finished task.
    """
    names = [table] if isinstance(table, str) else list(table)
    for n in names:
        if n not in TABLES:
            raise ValueError(f"no table {n!r}; the tables are {', '.join(TABLES)}")
    reps = scenario.reps if reps is None else int(reps)
    seed = scenario.seed if seed is None else int(seed)
    if reps < 1:
        raise ValueError("reps must be at least 1")
    axes = _axes(grid)
    cells = [
        (labels, scenario.set(dict(zip((a[0] for a in axes), values))))
        for labels, values in _product(axes)
    ]
    if backend == "local":
        results = _run_local(cells, reps, seed, jobs, progress)
    elif backend == "ray":
        results = _run_ray(cells, reps, seed, chunk, progress, placement)
    else:
        raise ValueError(f"backend must be 'local' or 'ray', not {backend!r}")
    frames = {n: _stack(axes, cells, results, n) for n in names}
    return frames[table] if isinstance(table, str) else frames


def _axes(grid):
    """``[(path, labels, values)]`` of every axis, in the grid's order."""
    axes = []
    for path, values in grid.items():
        if isinstance(values, dict):
            labels, vals = list(values.keys()), list(values.values())
        else:
            vals = list(values)
            labels = vals
        if not vals:
            raise ValueError(f"grid axis {path!r} has no values")
        axes.append((path, labels, vals))
    return axes


def _product(axes):
    """``(labels, values)`` of every cell, first axis slowest."""
    for idx in itertools.product(*(range(len(a[2])) for a in axes)):
        yield (
            [a[1][i] for a, i in zip(axes, idx)],
            [a[2][i] for a, i in zip(axes, idx)],
        )


def _stack(axes, cells, results, name):
    frames = []
    for (labels, _), res in zip(cells, results):
        df = res.table(name)
        for pos, ((path, _, _), label) in enumerate(zip(axes, labels)):
            df.insert(pos, path, [label] * len(df))
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def _run_local(cells, reps, seed, jobs, progress):
    bar = progress_bar(len(cells) * reps, "sweep", progress)
    try:
        return [
            Results(
                sc,
                _native.run_reps(sc._native, seed, 0, reps, jobs, bar.update if bar else None),
                seed,
            )
            for _, sc in cells
        ]
    finally:
        if bar:
            bar.close()


def _chunk_task(text, name, seed, start, end):
    """One Ray task: repetitions ``start..end`` of the scenario ``text`` on one thread;
    returns the id of the node it ran on with their outcomes."""
    import ray

    sc = _native.NativeScenario.parse(text, name)
    node = ray.get_runtime_context().get_node_id()
    return node, _native.run_reps(sc, seed, start, end, 1, None)


def _run_ray(cells, reps, seed, chunk, progress, placement=None):
    try:
        import ray
    except ImportError:
        raise ImportError(
            "backend='ray' needs Ray: pip install 'spikelab[ray]' (or pip install ray)"
        ) from None
    if not ray.is_initialized():
        ray.init()
    if chunk is None:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        per_cell = max(1, math.ceil(2 * cpus / len(cells)))
        chunk = max(1, math.ceil(reps / per_cell))
    # SPREAD: a sweep's tasks are alike, so spread them over every node rather than
    # filling the driver's node first (Ray's default packs locally until it is busy).
    task = ray.remote(num_cpus=1, scheduling_strategy="SPREAD")(_chunk_task)
    pending = {}
    for c, (_, sc) in enumerate(cells):
        text, name = sc._native.text, sc._native.name
        for start in range(0, reps, chunk):
            end = min(reps, start + chunk)
            pending[task.remote(text, name, seed, start, end)] = (c, start, end)
    parts = [[] for _ in cells]
    bar = progress_bar(len(cells) * reps, "sweep (ray)", progress)
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                c, start, end = pending.pop(ref)
                node, outcomes = ray.get(ref)
                parts[c].append(outcomes)
                if placement is not None:
                    placement.append((c, start, end, node))
                if bar:
                    bar.update(end - start)
    except BaseException:
        for ref in pending:
            ray.cancel(ref)
        raise
    finally:
        if bar:
            bar.close()
    return [
        Results(sc, _native.Outcomes.concat(p), seed) for (_, sc), p in zip(cells, parts)
    ]
