"""Tests of scripts/path_stats.py on hand-made Mahimahi traces, and of the library's README table."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import path_stats  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write(d, name, lines):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write("\n".join(str(x) for x in lines) + "\n")
    return path


class Summary(unittest.TestCase):
    def test_one_packet_per_millisecond_is_twelve_megabit(self):
        times = list(range(1, 3001))  # 3 s, one opportunity each ms
        s = path_stats.summary(times)
        self.assertAlmostEqual(s["mean_mbit_s"], 12.0)
        self.assertEqual(s["duration_s"], 3.0)
        self.assertEqual(s["outages"], 0)

    def test_a_gap_of_one_second_or_more_is_an_outage_and_a_shorter_one_is_not(self):
        times = [100, 200, 1200, 1300, 2299, 3000]  # gaps 1000 (outage), 999 (not), 701
        s = path_stats.summary(times)
        self.assertEqual(s["outages"], 1)
        self.assertEqual(s["longest_outage_s"], 1.0)
        self.assertAlmostEqual(s["outage_share"], 1000 / 3000)

    def test_the_gap_across_the_repeat_counts_once(self):
        # The period is the last line (3000 ms); a trace whose first opportunity is at
        # 1500 ms has a gap of 3000 - 3000 + 1500 = 1500 ms across each repeat.
        s = path_stats.summary([1500, 2000, 2500, 3000])
        self.assertEqual(s["outages"], 1)
        self.assertEqual(s["longest_outage_s"], 1.5)

    def test_percentiles_are_nearest_rank_over_whole_seconds(self):
        # second 0: 1 opportunity, second 1: 2, second 2: 3 (period 3000 ms; the line at
        # 3000 is the next repeat's instant 0, so it is second 0's one opportunity)
        times = [1010, 1020, 2010, 2020, 2030, 3000]
        s = path_stats.summary(times, opportunity_bytes=1000)
        self.assertAlmostEqual(s["p10_mbit_s"], 0.008)
        self.assertAlmostEqual(s["p50_mbit_s"], 0.016)
        self.assertAlmostEqual(s["p90_mbit_s"], 0.024)


class Reading(unittest.TestCase):
    def test_a_decreasing_time_names_its_file_and_line(self):
        with tempfile.TemporaryDirectory() as d:
            p = write(d, "bad.down", [5, 7, 6])
            with self.assertRaisesRegex(ValueError, r"bad\.down:3:"):
                path_stats.read_trace(p)

    def test_a_word_is_refused_with_its_line(self):
        with tempfile.TemporaryDirectory() as d:
            p = write(d, "bad.down", [5, "x"])
            with self.assertRaisesRegex(ValueError, r"bad\.down:2: not a whole number"):
                path_stats.read_trace(p)

    def test_main_exits_2_on_a_bad_trace(self):
        with tempfile.TemporaryDirectory() as d:
            p = write(d, "bad.down", [0])
            self.assertEqual(path_stats.main([p]), 2)


class Library(unittest.TestCase):
    def test_the_readme_table_is_what_the_script_prints_for_the_shipped_traces(self):
        """scenarios/paths/README.md's statistics are regenerated, not typed by hand."""
        folder = os.path.join(REPO, "scenarios", "paths")
        with open(os.path.join(folder, "README.md")) as f:
            readme = f.read()
        traces = sorted(
            n for n in os.listdir(os.path.join(folder, "traces")) if n.endswith((".down", ".up"))
        )
        self.assertGreaterEqual(len(traces), 3)
        for name in traces:
            s = path_stats.summary(path_stats.read_trace(os.path.join(folder, "traces", name)))
            self.assertIn(path_stats.markdown_row(name, s), readme, name)


if __name__ == "__main__":
    unittest.main()
