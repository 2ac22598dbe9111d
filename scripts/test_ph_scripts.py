"""Tests of scripts/ph_proximity.py and scripts/ph_promptness.py on hand-made run folders."""

import csv
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import ph_promptness  # noqa: E402
import ph_proximity  # noqa: E402

TRACE_HEADER = ["time_s", "flow", "event", "a", "b", "c"]
TIMEOUT_HEADER = [
    "rep", "flow", "episode", "time_s", "seq", "rto_s", "last_rtt_s", "backoff",
    "truth", "spurious", "in_fast_recovery", "fast", "verdicts",
]


def write_csv(path, header, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


class Proximity(unittest.TestCase):
    def test_p_uses_the_rto_armed_at_the_same_instant_as_the_sample(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "trace", "rep0.csv")
            write_csv(path, TRACE_HEADER, [
                ["0.5", "0", "rto", "3.0", "0", ""],
                # sample and the RTO it produced share a time: P = 0.75 / 0.5
                ["1.0", "0", "rtt", "0.5", "", ""],
                ["1.0", "0", "rto", "0.75", "0", ""],
                # another flow's rows are ignored
                ["1.5", "1", "rtt", "9.0", "", ""],
                ["1.5", "1", "rto", "90.0", "0", ""],
                # no RTO change: P = 0.75 / 1.0
                ["2.0", "0", "rtt", "1.0", "", ""],
            ])
            ps, rtts = ph_proximity.p_values(path, 0)
            self.assertEqual(rtts, [0.5, 1.0])
            self.assertEqual([round(p, 6) for p in ps], [1.5, 0.75])

    def test_binned_percentile_is_the_upper_edge_of_its_bin(self):
        self.assertAlmostEqual(ph_proximity.binned(2.403), 2.41)
        self.assertEqual(ph_proximity.pct([1.0, 2.0, 3.0, 4.0], 50), 2.0)


class Promptness(unittest.TestCase):
    def folder(self, d):
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump({"scenario": {"flows": [{"name": "ping-ph#0"}, {"name": "ping-ph#1"}]}}, f)
        write_csv(os.path.join(d, "trace", "rep0.csv"), TRACE_HEADER, [
            ["1.0", "0", "rtt", "1.0", "", ""],
            ["1.0", "0", "rto", "1.5", "0", ""],
            ["2.0", "0", "rtt", "0.8", "", ""],
            ["2.0", "0", "rto", "1.4", "0", ""],
        ])
        write_csv(os.path.join(d, "timeouts.csv"), TIMEOUT_HEADER, [
            # W = 1.4 / 0.8 = 1.75 after the RTT fell from 1.0 to 0.8
            ["0", "ping-ph#0", "1", "3.5", "2896", "1.4", "0.8", "0", "genuine-data-lost", "0", "0", "0", ""],
            # the first data segment: RTO 3 RTT_SYN, W = 3
            ["0", "ping-ph#1", "1", "1.0", "1", "0.9", "0.3", "0", "genuine-data-lost", "0", "0", "0", ""],
            # left out: spurious, backed off, in fast recovery
            ["0", "ping-ph#0", "2", "5.0", "4344", "9.0", "1.0", "0", "spurious-data-delayed", "1", "0", "0", ""],
            ["0", "ping-ph#0", "1", "4.9", "2896", "2.8", "0.8", "1", "genuine-data-lost", "0", "0", "0", ""],
            ["0", "ping-ph#0", "3", "6.0", "5792", "9.0", "1.0", "0", "genuine-data-lost", "0", "1", "0", ""],
        ])

    def test_w_counts_necessary_recovery_starting_timeouts_and_flags_the_first_segment(self):
        with tempfile.TemporaryDirectory() as d:
            self.folder(d)
            g = ph_promptness.analyse(d)["ping-ph"]
            self.assertEqual(g["necessary"], 2)
            self.assertEqual(g["first_seg"], 1)
            self.assertAlmostEqual(g["w_mean"], (1.75 + 3.0) / 2)
            self.assertAlmostEqual(g["w95_later"], 1.75)
            # the one W > 1.5 with two samples before it followed a fall 1.0 -> 0.8
            self.assertEqual(g["fell"], 1.0)
            self.assertAlmostEqual(g["q_med"], 1.25)
            self.assertAlmostEqual(g["p95"], 1.75 - 0.05 * (1.75 - 1.5))


if __name__ == "__main__":
    unittest.main()
