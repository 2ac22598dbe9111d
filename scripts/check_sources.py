#!/usr/bin/env python3
"""Checks that the repository stands on its own and cites what it uses.

Over every file git tracks (text files only):
  * no path outside the repository: `../shared/...`, `shared/papers`,
    `shared/DESIGN.md`, `NS2-DEFAULTS.md` (now docs/src/ns2-2002-defaults.md);
  * no paper named by a file name that only exists outside the repository
    (`gprs-eifel.md`, `eifel-response.md`, `peak-hopper-rto.md`, `std-proxy.md`,
    `delay-injection.md`): cite it by key, e.g. [Gurtov & Ludwig 2002];
  * every RFC named (`RFC 6298`, `RFC6298`) has an entry in docs/src/bibliography.md;
  * every author-year key in square brackets ([Klein et al. 2004]) has an entry there;
  * in the README and the book's pages (Markdown), every repository path written in
    backquotes (`crates/...`, `scenarios/...`) and every relative link of the README
    names a file or folder the repository has.

Usage: check_sources.py [REPO]. Prints one line per problem, `file:line: why`, and
exits 1 if there is any. Python standard library only.
"""

import os
import re
import subprocess
import sys

BIBLIOGRAPHY = "docs/src/bibliography.md"
# This checker and its tests spell out the patterns they look for.
SELF = {"scripts/check_sources.py", "scripts/test_check_sources.py"}

OUTSIDE = re.compile(r"\.\./shared/|\bshared/(?:papers|DESIGN\.md)|(?:\bshared/)?\bNS2-DEFAULTS\.md")
PAPER_FILES = ("gprs-eifel", "eifel-response", "peak-hopper-rto", "std-proxy", "delay-injection")
PAPER_FILE = re.compile(r"(?<![\w/.-])(?:" + "|".join(PAPER_FILES) + r")\.md\b")
RFC = re.compile(r"\bRFC ?(\d{3,4})\b")
KEY = re.compile(
    r"\[([A-Z][\w'\-]+(?: (?:&|and) [A-Z][\w'\-]+| et al\.)? \d{4}[a-z]?)\]"
)
REPO_PATH = re.compile(r"`((?:crates|scenarios|experiments|scripts|tools|docs|examples)/[^`\s]*)`")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)", re.M)
# A bibliography entry starts a line: `- <a id="..."></a>**[KEY]** ...`.
ENTRY = re.compile(r"^\s*-\s+(?:<a id=\"[^\"]*\"></a>)?\*\*\[([^\]]+)\]\*\*", re.M)


def tracked_files(repo):
    try:
        out = subprocess.run(
            ["git", "-C", repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True,
            capture_output=True,
        ).stdout
        return sorted(p for p in out.decode().split("\0") if p)
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(repo):
            dirnames[:] = [d for d in dirnames if d not in (".git", "target", "out")]
            for name in filenames:
                files.append(os.path.relpath(os.path.join(dirpath, name), repo))
        return sorted(files)


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        return None


def bibliography_keys(text):
    return set(ENTRY.findall(text))


def check_text(name, text, keys):
    """Problems in one file's text as `name:line: why`."""
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in OUTSIDE.finditer(line):
            problems.append(f"{name}:{n}: `{m.group(0)}` points outside the repository")
        for m in PAPER_FILE.finditer(line):
            problems.append(
                f"{name}:{n}: `{m.group(0)}` names a paper by a file the repository "
                f"does not have: cite it by key ({BIBLIOGRAPHY})"
            )
        for m in RFC.finditer(line):
            if f"RFC {m.group(1)}" not in keys:
                problems.append(f"{name}:{n}: RFC {m.group(1)} has no entry in {BIBLIOGRAPHY}")
        for m in KEY.finditer(line):
            if m.group(1) not in keys:
                problems.append(f"{name}:{n}: [{m.group(1)}] has no entry in {BIBLIOGRAPHY}")
    return problems


def check_paths(name, text, exists):
    """Repository paths named in a Markdown file that do not exist (`exists(path)`)."""
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in REPO_PATH.finditer(line):
            path = m.group(1).split("#")[0].rstrip(".,:;")
            if any(c in path for c in "*<>{}"):
                continue  # a pattern, not a path
            if not exists(path):
                problems.append(f"{name}:{n}: `{path}` is not in the repository")
    if name == "README.md":
        for n, line in enumerate(text.splitlines(), 1):
            for m in MD_LINK.finditer(line):
                link = (m.group(1) or m.group(2)).split("#")[0]
                if link and "://" not in link and not link.startswith("mailto:"):
                    if not exists(link):
                        problems.append(f"{name}:{n}: link `{link}` is not in the repository")
    return problems


def check_repo(repo):
    bib = read_text(os.path.join(repo, BIBLIOGRAPHY))
    if bib is None:
        return [f"{BIBLIOGRAPHY}: missing"]
    keys = bibliography_keys(bib)
    problems = []
    for name in tracked_files(repo):
        if name in SELF:
            continue
        text = read_text(os.path.join(repo, name))
        if text is not None:
            problems.extend(check_text(name, text, keys))
            if name == "README.md" or (name.startswith("docs/") and name.endswith(".md")):
                problems.extend(
                    check_paths(name, text, lambda p: os.path.exists(os.path.join(repo, p)))
                )
    return problems


def main(argv):
    repo = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = check_repo(repo)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s) with references", file=sys.stderr)
        return 1
    print(
        "sources: no path outside the repository, every citation in the bibliography, "
        "every path the README and the book name exists"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
