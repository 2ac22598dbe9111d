"""spikelab against ns-3 3.44 on the single transfers of docs/src/validation-ns3.md:
with ns-3's ssthresh rule both simulators finish every transfer within 2 % of each
other, and through a freeze of the 2 Mbit/s path they take the same timeouts and
retransmit the same segments (within 2); with RFC 5681's rule spikelab is faster.

Needs NS3VENV (a venv holding ns3==3.44.post0), g++ and a spikelab binary (SPIKELAB,
default target/release/spikelab, else target/debug/spikelab); says SKIPPED otherwise.

    NS3VENV=V python3 -m unittest -v scripts/test_validate_ns3.py
"""

import os
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import validate_ns3  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def spikelab_binary():
    if os.environ.get("SPIKELAB"):
        return os.environ["SPIKELAB"]
    for p in (ROOT / "target/release/spikelab", ROOT / "target/debug/spikelab"):
        if p.exists():
            return str(p)
    return None


def missing():
    venv = os.environ.get("NS3VENV")
    if not venv or not list(Path(venv).glob("lib/python3*/site-packages/ns3")):
        return "NS3VENV is not a venv holding ns3==3.44.post0"
    if not shutil.which("g++"):
        return "g++ not found"
    if not spikelab_binary():
        return "no spikelab binary (cargo build -p spikelab-cli)"
    return None


class SpikelabAgainstNs3(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = missing()
        if why:
            print(f"\nSKIPPED: the ns-3 comparison does not run: {why}", file=sys.stderr)
            raise unittest.SkipTest(why)
        with tempfile.TemporaryDirectory() as work:
            progs = validate_ns3.build(os.environ["NS3VENV"], work, quick=True)
            cls.cases = validate_ns3.transfer_cases(progs, spikelab_binary(), work)

    def test_every_path_runs_with_and_without_freezes(self):
        self.assertEqual(len(self.cases), sum(len(f) for f in validate_ns3.FREEZES.values()))
        for c in self.cases:
            self.assertGreater(c["n_done"], 0, c)
            self.assertGreater(c["s_done"], 0, c)

    def test_with_ns3s_ssthresh_rule_every_transfer_finishes_within_2_percent(self):
        for c in self.cases:
            self.assertLess(abs(c["alt_done"] / c["n_done"] - 1), 0.02, c)

    def test_uncongested_transfer_retransmits_nothing_in_either(self):
        for c in self.cases:
            if c["freeze"] == "none" and c["path"].startswith("2 Mbit/s"):
                self.assertEqual((c["s_retx"], c["n_retx"]), (0, 0), c)

    def test_through_a_freeze_on_the_2_mbit_path_timeouts_and_retransmissions_agree(self):
        for c in self.cases:
            if c["freeze"] != "none" and c["path"].startswith("2 Mbit/s"):
                self.assertLessEqual(abs(c["alt_retx"] - c["n_retx"]), 2, c)
                self.assertEqual((c["s_expiries"], c["s_episodes"]), (c["n_expiries"], c["n_episodes"]), c)

    def test_rfc5681s_held_ssthresh_recovers_from_a_freeze_faster_than_ns3(self):
        # The page's finding: ns-3 lowers ssthresh again on the backed-off timeout.
        for c in self.cases:
            if c["freeze"] != "none" and c["path"].startswith("2 Mbit/s"):
                self.assertLess(c["s_done"], c["n_done"], c)


if __name__ == "__main__":
    unittest.main()
