"""spikelab: deterministic packet-level simulation of TCP over paths with delay spikes.

Scenarios in, pandas DataFrames out::

    import spikelab
    s = spikelab.Scenario.from_toml("scenarios/gprs-eifel.toml")
    r = s.set("flow.0.tcp.recovery", "new-reno").run(reps=100, seed=1)
    r.summary                                     # the CLI's summary.csv, as a DataFrame
    spikelab.sweep(s, {"flow.0.tcp.recovery": ["reno", "new-reno"]}, reps=100,
                   backend="ray")                 # the same sweep on a Ray cluster
    spikelab.advise("scenarios/gprs-eifel.toml")  # which fix works on this path, ranked

Every table has the columns of the CSV file ``spikelab run`` writes under the same
name, and repetition ``r`` always runs with the CLI's seed for ``r``, so results do not
depend on where or in which order repetitions ran.
"""

from ._native import ScenarioError, __version__
from .advise import advise
from .scenario import Results, Scenario
from .sweep import sweep

__all__ = ["Scenario", "Results", "ScenarioError", "advise", "sweep", "__version__"]
