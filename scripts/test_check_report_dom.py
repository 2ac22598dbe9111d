"""Tests of check_report_dom.py: each problem it exists to catch makes it fail."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from check_report_dom import problems  # noqa: E402

GOOD = (
    '<html><body><p>Resumed <em>after</em> the spike, as in '
    '<a href="#ref-x">Gurtov &amp; Ludwig 2002</a>; <code>*raw*</code> is code.</p>'
    '<table><tr><td>n/a</td></tr></table>'
    '<figure data-interactive="ready"><svg><circle/></svg><figcaption>Fig.</figcaption></figure>'
    '<ul><li id="ref-x"><b class="key">Gurtov &amp; Ludwig 2002</b> text</li></ul>'
    "</body></html>"
)


def found(dom, **kw):
    return problems(dom, ".", kw.get("tables", 1), kw.get("figures", 1), kw.get("probe", False))


class CheckReportDom(unittest.TestCase):
    def test_a_rendered_page_passes(self):
        self.assertEqual(found(GOOD), [])

    def test_raw_markdown_is_caught(self):
        for raw in ["*after*", "**bold**", "`code`", "[Gurtov & Ludwig 2002]", "![f](a.png)"]:
            dom = GOOD.replace("Resumed", raw)
            self.assertTrue(any("raw Markdown" in p for p in found(dom)), raw)

    def test_nan_and_inf_are_caught(self):
        for bad in ["NaN%", "-inf", "+inf s"]:
            self.assertTrue(any("undefined" in p for p in found(GOOD.replace("n/a", bad))), bad)
        self.assertEqual(found(GOOD.replace("n/a", "Infinite information")), [])

    def test_missing_tables_figures_anchors_and_script_are_caught(self):
        self.assertTrue(found(GOOD, tables=2))
        self.assertTrue(found(GOOD.replace("<circle/>", "")))
        self.assertTrue(found(GOOD.replace('id="ref-x"', 'id="ref-y"')))
        self.assertTrue(found(GOOD.replace(' data-interactive="ready"', "")))

    def test_the_probe_needs_a_readout_and_a_toggle(self):
        body = '<body data-probe-hover="x 1.00, y 2.00  |  point: x 1.00, y 2.00" data-probe-toggle="ACK: 0 -> 12 hidden">'
        self.assertEqual(found(GOOD.replace("<body>", body), probe=True), [])
        self.assertTrue(found(GOOD, probe=True))
        self.assertTrue(found(GOOD.replace("<body>", body.replace("12 hidden", "0 hidden")), probe=True))


if __name__ == "__main__":
    unittest.main()
