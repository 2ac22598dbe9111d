#!/usr/bin/env python3
"""Checks the DOM of a spikelab report page as a browser built it (chromium --dump-dom).

Usage: check_report_dom.py PAGE.dom [--min-tables N] [--min-figures N] [--probe]

Fails (exit 1, one line per problem) when the page has fewer tables or figures than
asked, a figure without a drawing (an inline <svg> with content, or an <img> whose file
exists beside the page), raw Markdown left as text (*emphasis*, **strong**, `code`, an
author-year citation in brackets, a Markdown table row or image), a citation link to an
anchor the page lacks, an undefined number (NaN, inf) in its text, or a figure that the
page's script did not set up (data-interactive missing or an error: the script threw). Text inside
<code>, <pre>, <svg>, <style> and <script> is not prose and is not checked for Markdown.
"""

import argparse
import os
import re
import sys
from html.parser import HTMLParser

SKIP = {"code", "pre", "svg", "style", "script", "title"}
VOID = {"meta", "img", "br", "hr", "link", "input", "source", "col", "area", "base", "wbr"}

RAW_MARKDOWN = [
    (re.compile(r"(?<![\w*])\*\*?[^\s*][^*]*?\*\*?(?![\w*])"), "emphasis"),
    (re.compile(r"`[^`]+`"), "code span"),
    (re.compile(r"\[[A-Z][^\[\]]*\d{4}[a-z]?\]"), "bracketed citation"),
    (re.compile(r"!\[[^\]]*\]\([^)]*\)"), "image"),
    (re.compile(r"\]\((?:https?://|[\w./-]+\.\w+)[^)]*\)"), "link"),
    (re.compile(r"^\s*\|.*\|\s*$", re.M), "table row"),
]
UNDEFINED = re.compile(r"(?<![A-Za-z])(NaN|[+-]?inf)(?![A-Za-z])")


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.text = []
        self.all_text = []
        self.ids = set()
        self.hrefs = []
        self.tables = 0
        self.figures = []  # per <figure>: [svg children, img srcs]
        self.in_figure = 0
        self.svg_depth = 0
        self.body = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
        if tag == "table":
            self.tables += 1
        if tag == "figure":
            self.figures.append([0, [], a.get("data-interactive")])
            self.in_figure += 1
        if self.in_figure and self.figures:
            if self.svg_depth:
                self.figures[-1][0] += 1
            if tag == "img":
                self.figures[-1][1].append(a.get("src", ""))
        if tag == "svg":
            self.svg_depth += 1
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1] == tag:
            self.stack.pop()
            if tag == "svg":
                self.svg_depth -= 1

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        while self.stack:
            t = self.stack.pop()
            if t == "svg":
                self.svg_depth -= 1
            if t == "figure":
                self.in_figure -= 1
            if t == tag:
                break

    def handle_data(self, data):
        if any(t in SKIP for t in self.stack):
            return
        self.text.append(data)


PROBE_HOVER = re.compile(r"^x -?[\d.]+, y -?[\d.]+  \|  point: x -?[\d.]+, y -?[\d.]+$")
PROBE_TOGGLE = re.compile(r": (\d+) -> (\d+) hidden$")


def probe_problems(body):
    """What scripts/report_probe.js recorded: a hover over a point must read out its
    values, a click on a legend entry must hide marks."""
    out = []
    hover = body.get("data-probe-hover")
    if hover is None or not PROBE_HOVER.match(hover):
        out.append(f"hover over a plotted point gave no values: {hover!r}")
    toggle = body.get("data-probe-toggle") or ""
    m = PROBE_TOGGLE.search(toggle)
    if not m or int(m.group(2)) <= int(m.group(1)):
        out.append(f"a click on a legend entry hid nothing: {toggle!r}")
    return out


def problems(dom, page_dir, min_tables, min_figures, probe=False):
    p = Page()
    p.feed(dom)
    out = probe_problems(p.body) if probe else []
    if p.tables < min_tables:
        out.append(f"{p.tables} tables, expected at least {min_tables}")
    if len(p.figures) < min_figures:
        out.append(f"{len(p.figures)} figures, expected at least {min_figures}")
    for i, (svg_children, imgs, interactive) in enumerate(p.figures):
        if interactive is None or interactive.startswith("error"):
            out.append(f"figure {i + 1}: the page's script did not set it up ({interactive})")
        drawn = svg_children > 0 or any(
            src and os.path.isfile(os.path.join(page_dir, src)) for src in imgs
        )
        if not drawn:
            out.append(f"figure {i + 1} has no drawing (empty svg, missing image)")
    text = "\n".join(p.text)
    for rx, what in RAW_MARKDOWN:
        for m in rx.finditer(text):
            out.append(f"raw Markdown ({what}) left as text: {m.group(0)[:80]!r}")
    for m in UNDEFINED.finditer(text):
        ctx = text[max(0, m.start() - 40) : m.end() + 20].replace("\n", " ")
        out.append(f"undefined number {m.group(0)!r} in text: ...{ctx}...")
    for h in p.hrefs:
        if h.startswith("#") and h[1:] not in p.ids:
            out.append(f"link to missing anchor {h}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dom")
    ap.add_argument("--page-dir", default=None, help="folder of the page (images)")
    ap.add_argument("--min-tables", type=int, default=1)
    ap.add_argument("--min-figures", type=int, default=1)
    ap.add_argument("--probe", action="store_true", help="check report_probe.js's record")
    a = ap.parse_args()
    with open(a.dom, encoding="utf-8") as f:
        dom = f.read()
    page_dir = a.page_dir or os.path.dirname(a.dom)
    found = problems(dom, page_dir, a.min_tables, a.min_figures, a.probe)
    for line in found:
        print(f"{a.dom}: {line}")
    if found:
        sys.exit(1)
    print(f"{a.dom}: DOM ok")


if __name__ == "__main__":
    main()
