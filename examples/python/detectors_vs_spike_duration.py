"""Spurious-timeout detectors against spike duration on the GPRS path.

Sweeps every detector spikelab has (one cell each, the detector driving the sender's
response) over fixed hiccup durations on the gprs-eifel path [Gurtov & Ludwig 2002],
with SACK recovery so the SACK-based detectors can run too, and plots each
detector's precision and recall against the ground truth of every timeout.

    python examples/python/detectors_vs_spike_duration.py --reps 20
    python examples/python/detectors_vs_spike_duration.py --reps 100 --backend ray

The Ray backend uses the cluster `ray.init()` reaches (a local one if none), and gives
the same numbers as the local backend.
"""

import argparse
import pathlib

import spikelab

ROOT = pathlib.Path(__file__).resolve().parents[2]

DETECTORS = ["eifel", "frto", "sack-frto", "dsack", "ack-timing"]
DURATIONS_S = [2, 4, 6, 8, 10, 12, 14]


def sweep(reps, seed, backend):
    base = spikelab.Scenario.from_toml(ROOT / "scenarios" / "gprs-eifel.toml")
    base = base.set("flow.0.tcp.recovery", "reno-sack")
    grid = {
        "flow.0.tcp.spurious.driver": DETECTORS,
        "link.0.spikes.0.duration": {
            d: {"dist": "fixed", "value": f"{d}s"} for d in DURATIONS_S
        },
    }
    df = spikelab.sweep(base, grid, reps=reps, seed=seed, table="detectors",
                        backend=backend)
    # Each cell scores the detectors its flow ran; keep the one the cell is about.
    df = df[df["detector"] == df["flow.0.tcp.spurious.driver"]]
    return df.rename(columns={"link.0.spikes.0.duration": "spike_s"})


def plot(df, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    for det, rows in df.groupby("detector", sort=False):
        for ax, col in zip(axes, ["precision", "recall"]):
            ax.plot(rows["spike_s"], rows[col], marker="o", label=det)
    for ax, col in zip(axes, ["precision", "recall"]):
        ax.set_xlabel("hiccup duration (s)")
        ax.set_ylabel(col)
        ax.set_ylim(-0.05, 1.05)
        ax.grid(alpha=0.3)
    axes[1].legend(title="detector")
    fig.suptitle("Spurious-timeout detection on the GPRS path (SACK recovery)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--backend", choices=["local", "ray"], default="local")
    ap.add_argument("--out", default="out/python/detectors_vs_spike_duration.png")
    a = ap.parse_args()
    df = sweep(a.reps, a.seed, a.backend)
    cols = ["detector", "spike_s", "decided", "precision", "recall", "mean_delay_s"]
    print(df[cols].to_string(index=False))
    out = pathlib.Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    print("wrote", plot(df, out))


if __name__ == "__main__":
    main()
