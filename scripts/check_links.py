#!/usr/bin/env python3
"""Checks every link of a built mdBook (the HTML under BOOK_DIR).

For each `href` and `src` in every page:
  * an http(s) or mailto URL is accepted as it is (never fetched);
  * any other scheme (file:, ...) and any absolute path fail: the book must not point
    outside itself;
  * a relative link must resolve to a file inside BOOK_DIR (no `..` out of it);
  * a `#fragment` must name an `id` (or `<a name>`) on the page it points to.

Usage: check_links.py BOOK_DIR. Prints one line per broken link, `page: link: why`,
and exits 1 if there is any, 0 otherwise (printing how many links it checked).
Python standard library only.
"""

import os
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

EXTERNAL_SCHEMES = {"http", "https", "mailto"}

# mdBook's own theme links to itself from every page; they are checked like ours.


class Page(HTMLParser):
    """The links and anchor names of one HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []
        self.ids = set()
        self.base = None

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if tag == "base" and name == "href":
                # mdBook's 404 page: `<base href="SITE-URL">` makes its relative links
                # resolve from the book's root wherever the server shows the page.
                self.base = value
            elif name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif name in ("href", "src"):
                self.links.append(value)


def parse(path):
    page = Page()
    with open(path, encoding="utf-8") as f:
        page.feed(f.read())
    page.close()
    return page


def html_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(".html"):
                yield os.path.join(dirpath, name)


def check_link(root, page_path, link, pages, base_dir=None):
    """Why `link` on `page_path` is broken, or None if it is fine. Relative links
    resolve from `base_dir` (default: the page's folder)."""
    parts = urlsplit(link)
    if parts.scheme:
        if parts.scheme.lower() in EXTERNAL_SCHEMES:
            return None
        return f"scheme `{parts.scheme}:` leaves the book"
    if parts.netloc:
        return "a protocol-relative URL leaves the book"
    if parts.path.startswith("/"):
        return "an absolute path leaves the book"
    if parts.path:
        target = os.path.normpath(
            os.path.join(base_dir or os.path.dirname(page_path), unquote(parts.path))
        )
    else:
        target = page_path
    root_abs = os.path.abspath(root)
    if os.path.commonpath([root_abs, os.path.abspath(target)]) != root_abs:
        return "points outside the book"
    if os.path.isdir(target):
        target = os.path.join(target, "index.html")
    if not os.path.isfile(target):
        return "no such file in the book"
    fragment = unquote(parts.fragment)
    if fragment and target.endswith(".html"):
        if target not in pages:
            pages[target] = parse(target)
        if fragment not in pages[target].ids:
            return f"no id `{fragment}` on {os.path.relpath(target, root)}"
    return None


def check_book(root):
    """Every broken link of the book under `root` as `page: link: why`, and the number
    of links checked."""
    pages = {}
    problems = []
    checked = 0
    for path in html_files(root):
        if path not in pages:
            pages[path] = parse(path)
        page = pages[path]
        base_dir = None
        if page.base is not None:
            if page.base != "/":
                problems.append(
                    f"{os.path.relpath(path, root)}: <base href=\"{page.base}\">: "
                    "only the site root `/` is understood"
                )
                continue
            base_dir = root
        for link in page.links:
            checked += 1
            why = check_link(root, path, link, pages, base_dir)
            if why:
                problems.append(f"{os.path.relpath(path, root)}: {link}: {why}")
    return problems, checked


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: check_links.py BOOK_DIR (a built mdBook)", file=sys.stderr)
        return 2
    problems, checked = check_book(argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} broken link(s) of {checked}", file=sys.stderr)
        return 1
    print(f"book links: {checked} checked, none broken")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
