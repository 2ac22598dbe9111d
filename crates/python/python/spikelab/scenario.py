"""Scenarios (load, edit, save) and the results of running one."""

import json
import os

from . import _native
from ._frames import frame, progress_bar, trace_frame

TABLES = ("runs", "summary", "timeouts", "detectors", "links")
_NOTHING = object()


class Scenario:
    """A checked scenario, loaded exactly as ``spikelab run`` loads it.

    Scenarios are immutable: :meth:`set` returns an edited copy, so one base scenario
    can seed many sweep cells. A scenario that does not check raises
    :class:`spikelab.ScenarioError` with the CLI's message.
    """

    def __init__(self, native):
        self._native = native

    @classmethod
    def from_toml(cls, path):
        """Loads the scenario file at ``path``; relative paths inside it (trace files)
        are relative to its folder, as for the CLI."""
        path = os.fspath(path)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise _read_error(path, e) from None
        return cls(_native.NativeScenario.parse(text, path))

    @classmethod
    def from_str(cls, text, name="scenario.toml"):
        """Checks the TOML ``text``; ``name`` stands for the file in messages, gives the
        default run name and is the base of relative paths."""
        return cls(_native.NativeScenario.parse(text, os.fspath(name)))

    @classmethod
    def from_dict(cls, d, name="scenario.toml"):
        """Checks the scenario whose TOML document is the nested dict ``d``."""
        return cls(_native.NativeScenario.from_dict(d, os.fspath(name)))

    def to_toml(self):
        """The TOML text (as loaded, or as rewritten by :meth:`set`)."""
        return self._native.text

    def to_dict(self):
        """The TOML document as nested dicts and lists."""
        return self._native.to_dict()

    def set(self, path, value=_NOTHING):
        """A copy with ``value`` at the dotted ``path`` (``"flow.0.tcp.recovery"``),
        the paths of experiment grids and of the CLI's ``--set``; or, given one dict,
        every ``path: value`` in it, in order."""
        if isinstance(path, dict) and value is _NOTHING:
            items = list(path.items())
        elif isinstance(path, str) and value is not _NOTHING:
            items = [(path, value)]
        else:
            raise TypeError("set() takes a dotted path and a value, or one dict of them")
        return Scenario(self._native.with_values(items))

    @property
    def name(self):
        """``[run] name``."""
        return self._native.run_name

    @property
    def source(self):
        """The file (or the name given for text and dicts)."""
        return self._native.name

    @property
    def seed(self):
        """``[run] seed``: the default base seed."""
        return self._native.run_seed

    @property
    def reps(self):
        """``[run] reps``: the default number of repetitions."""
        return self._native.run_reps

    @property
    def flows(self):
        """Flow names in engine order (``name#i`` for the replicas of counted flows)."""
        return list(self._native.flow_names)

    def run(self, reps=None, seed=None, jobs=None, progress=None):
        """Runs repetitions ``0..reps`` from base ``seed`` (defaults: the scenario's
        ``[run]`` values) on ``jobs`` threads (default: every core) with the GIL
        released; Ctrl-C stops it after the running repetitions.

        Repetition r runs with the CLI's seed for r, so the tables equal the CSV files
        of ``spikelab run --seed SEED --reps REPS``, whatever ``jobs`` is.
        """
        reps = self.reps if reps is None else int(reps)
        seed = self.seed if seed is None else int(seed)
        if reps < 1:
            raise ValueError("reps must be at least 1")
        bar = progress_bar(reps, self.name, progress)
        try:
            outcomes = _native.run_reps(
                self._native, seed, 0, reps, jobs, bar.update if bar else None
            )
        finally:
            if bar:
                bar.close()
        return Results(self, outcomes, seed)

    def __reduce__(self):
        return (_from_native_text, (self._native.text, self._native.name))

    def __repr__(self):
        return f"<spikelab.Scenario {self.name!r} from {self.source!r}, {len(self.flows)} flows>"


def _from_native_text(text, name):
    return Scenario(_native.NativeScenario.parse(text, name))


def _read_error(path, e):
    err = _native.ScenarioError(f"{path}: cannot read the scenario: {e}")
    err.file, err.line, err.column, err.field = path, 0, 0, None
    err.reason = f"cannot read the scenario: {e}"
    return err


class Results:
    """Repetitions of one scenario: the CLI's tables as pandas DataFrames.

    ``runs``, ``summary``, ``timeouts``, ``detectors`` and ``links`` have the columns of
    the CSV files of ``spikelab run``; numbers are full precision (the CSV files round
    reals to 6 decimals), durations are seconds, yes/no columns are bool.
    """

    def __init__(self, scenario, outcomes, seed):
        self.scenario = scenario
        self.seed = seed
        self._outcomes = outcomes
        self._tables = {}

    @property
    def reps(self):
        """The number of repetitions."""
        return len(self._outcomes)

    def table(self, name):
        """The table ``name``: one of runs, summary, timeouts, detectors, links."""
        if name not in self._tables:
            cols = self._outcomes.table(self.scenario._native, name)
            self._tables[name] = frame(cols)
        return self._tables[name].copy()

    runs = property(lambda self: self.table("runs"), doc="One row per repetition and flow.")
    summary = property(
        lambda self: self.table("summary"),
        doc="One row per flow name and metric: n, mean, std, ci95 and percentiles.",
    )
    timeouts = property(
        lambda self: self.table("timeouts"), doc="One row per retransmission timeout."
    )
    detectors = property(
        lambda self: self.table("detectors"),
        doc="One row per spurious-timeout detector: its confusion matrix over every repetition.",
    )
    links = property(
        lambda self: self.table("links"), doc="One row per repetition, link and direction."
    )

    @property
    def meta(self):
        """The CLI's ``meta.json`` as a dict: version, seeds, engine counters of each
        repetition and the resolved scenario."""
        return json.loads(self._outcomes.meta_json(self.scenario._native, self.seed))

    def trace(self, rep=0):
        """The event trace of repetition ``rep`` (columns ``time_s, flow, event, a, b,
        c``, the CLI's ``trace/rep<r>.csv``). The repetition is simulated again with
        tracing on; it is the same run, since a run is a function of its seed."""
        if not 0 <= rep < self.reps:
            raise IndexError(f"repetition {rep} not in 0..{self.reps}")
        return trace_frame(_native.trace_csv(self.scenario._native, self.seed, rep))

    def __repr__(self):
        return f"<spikelab.Results {self.scenario.name!r}: {self.reps} repetitions, seed {self.seed}>"
