"""Tests of scripts/check_links.py on small hand-made books (run by scripts/test.sh:
`python3 -m unittest scripts/test_check_links.py`)."""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_links  # noqa: E402


def book(pages):
    """A temporary folder holding `pages` ({relative path: HTML text})."""
    root = tempfile.mkdtemp(prefix="book-")
    for rel, text in pages.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return root


USAGE = '<h2 id="usage">U</h2>'
GOOD = {
    "index.html": '<a href="intro.html">i</a> <a href="intro.html#usage">u</a>'
    '<a href="#top">t</a><h1 id="top">T</h1><img src="img/x.svg">'
    '<a href="https://www.rfc-editor.org/rfc/rfc6298">rfc</a>'
    '<a href="sub/">s</a>',
    "intro.html": '<h2 id="usage">U</h2><a href="index.html">back</a>',
    "img/x.svg": "<svg/>",
    "sub/index.html": '<a href="../intro.html#usage">up</a>',
}


class CheckLinks(unittest.TestCase):
    def problems(self, pages):
        return check_links.check_book(book(pages))[0]

    def test_a_sound_book_passes_and_every_link_is_counted(self):
        problems, checked = check_links.check_book(book(GOOD))
        self.assertEqual(problems, [])
        self.assertEqual(checked, 8)

    def test_a_link_to_a_missing_page_is_caught(self):
        pages = dict(GOOD, **{"intro.html": USAGE + '<a href="nope.html">x</a>'})
        self.assertEqual(
            self.problems(pages), ["intro.html: nope.html: no such file in the book"]
        )

    def test_a_missing_anchor_is_caught_on_another_page_and_on_the_same_page(self):
        pages = dict(
            GOOD,
            **{"intro.html": USAGE + '<a href="index.html#nowhere">x</a><a href="#gone">y</a>'},
        )
        self.assertEqual(
            self.problems(pages),
            [
                "intro.html: index.html#nowhere: no id `nowhere` on index.html",
                "intro.html: #gone: no id `gone` on intro.html",
            ],
        )

    def test_links_leaving_the_book_are_caught(self):
        pages = dict(
            GOOD,
            **{
                "intro.html": USAGE + '<a href="../../elsewhere/x.html">a</a>'
                '<a href="file:///etc/passwd">b</a><a href="/abs.html">c</a>'
                '<a href="//example.org/x">d</a>'
            },
        )
        whys = [p.split(": ", 2)[2] for p in self.problems(pages)]
        self.assertEqual(
            whys,
            [
                "points outside the book",
                "scheme `file:` leaves the book",
                "an absolute path leaves the book",
                "a protocol-relative URL leaves the book",
            ],
        )

    def test_a_page_with_base_href_slash_resolves_from_the_book_root(self):
        pages = dict(
            GOOD,
            **{"sub/404.html": '<base href="/"><a href="intro.html#usage">x</a>'},
        )
        self.assertEqual(self.problems(pages), [])
        pages["sub/404.html"] = '<base href="/"><a href="nope.html">x</a>'
        self.assertEqual(
            self.problems(pages), ["sub/404.html: nope.html: no such file in the book"]
        )

    def test_the_command_exits_1_on_a_broken_book_and_0_on_a_sound_one(self):
        broken = dict(GOOD, **{"intro.html": USAGE + '<a href="nope.html">x</a>'})
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            self.assertEqual(check_links.main(["check_links.py", book(broken)]), 1)
            self.assertEqual(check_links.main(["check_links.py", book(GOOD)]), 0)
        self.assertIn("intro.html: nope.html: no such file in the book", out.getvalue())


if __name__ == "__main__":
    unittest.main()
