"""Tests of scripts/bbr_draws.py's reading of a kernel run's BBR series."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bbr_draws as b  # noqa: E402

HEADER = "time_s,cwnd,bbr_bw_bps,bbr_min_rtt_us,bbr_pacing_gain,bbr_cwnd_gain\n"


def series_file(rows):
    f = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
    f.write(HEADER)
    for t, pg, cg in rows:
        f.write(f"{t},10,1000000,40000,{pg},{cg}\n")
    f.close()
    return f.name


class Reading(unittest.TestCase):
    # STARTUP, DRAIN, PROBE_BW cruising then probing, PROBE_RTT, PROBE_BW again.
    ROWS = [(0.0, 0, 0), (0.1, 256, 256), (0.2, 739, 739), (1.0, 88, 739),
            (1.2, 256, 512), (1.5, 320, 512), (1.6, 192, 512), (1.7, 256, 512),
            (11.0, 256, 256), (11.3, 320, 512), (11.4, 192, 512)]

    def test_an_entry_is_the_cwnd_gain_becoming_probe_bws(self):
        s = b.kernel_series(series_file(self.ROWS))
        self.assertEqual(b.entries(s), [1.2, 11.3])

    def test_a_probing_onset_is_the_pacing_gain_becoming_five_quarters(self):
        s = b.kernel_series(series_file(self.ROWS))
        self.assertEqual(b.onsets((t, g == b.PROBE_GAIN) for t, g, _ in s), [1.5, 11.3])

    def test_rows_without_bbr_columns_are_not_read(self):
        path = series_file([])
        with open(path, "a") as f:
            f.write("0.5,10,,,,\n")
        self.assertEqual(b.kernel_series(path), [])

    def test_the_first_onset_is_looked_for_before_the_next_entry(self):
        self.assertEqual(b.first_in([1.5, 11.3], 1.2, 11.3), 1.5)
        self.assertIsNone(b.first_in([11.3], 1.2, 11.3))

    def test_the_draws_go_into_the_flows_linux_table(self):
        text = 'tcp = { mss = 1448, linux = { tcp_frto = 2, tcp_congestion_control = "bbr" } }'
        self.assertEqual(
            b.with_draws(text, [3, 0]),
            'tcp = { mss = 1448, linux = { bbr_cycle_draws = [3, 0], tcp_frto = 2, '
            'tcp_congestion_control = "bbr" } }')


if __name__ == "__main__":
    unittest.main()
