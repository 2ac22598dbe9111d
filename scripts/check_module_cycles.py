#!/usr/bin/env python3
"""Lists the import cycles between the modules of every crate under crates/ and fails on any.

A module is a file of the crate's src/ folder (`a/b.rs` and `a/b/mod.rs` are module
`a::b`; `lib.rs` and `main.rs` the crate's root). Module A imports module B when A's
text, outside its test code, names a path into B:
  * `crate::b::...` is the longest prefix of the path that is a module of the crate;
  * `super::...` starts from A's parent module (`super::super::` from its grandparent);
  * the groups of a `use` tree count each of their paths (`use crate::{a::X, b::{Y, Z}}`).
A doc comment's path counts too (rustdoc resolves `[`crate::b`]`, so the page of A needs
B). A module naming its own children by a relative path (`use child::X;`, `self::child`)
is not counted: the parent declares them (`mod child;`), as a family's registry declares
its members, which import the family's trait from it. Test code is left out: a
`#[cfg(test)]` module, inline (its braces) or in a file of its own.

A cycle is a strongly connected component of two or more modules (Tarjan's algorithm).

Usage:
  check_module_cycles.py [--known FILE] [--edges] [REPO]
Without --known, prints every cycle (`crate: a b c`, members sorted) and exits 1 if there
is any. With --known, FILE lists the cycles that still exist, one line each in that
form (`#` starts a comment): the check fails on a cycle the file does not list (a new
one, or a listed one that grew or shrank) and on a listed cycle that no longer exists
(remove its line), so the list can only shrink and always says what is true. --edges
prints, under each cycle, the imports that close it (`file:line: a -> b`).
Python standard library only.
"""

import os
import re
import sys

# A path from the crate's root or a parent: `crate::a::b`, `super::super::a`.
PATH = re.compile(r"(?<![\w:])(crate|super)((?:\s*::\s*(?:super\b|[A-Za-z_]\w*))*)(\s*::\s*\{)?")
TEST_ATTR = re.compile(r"#\[cfg\(test\)\]")
ITEM_AFTER_ATTR = re.compile(r"\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*([;{])")
CHAR = re.compile(r"'(?:\\.[^']*|[^\\'])'")
PATH_ATTR = re.compile(r"#\[path\s*=\s*\"([^\"]+)\"\]")


def modules_of(src):
    """{module name: file} of the crate whose src/ folder is `src` ('' is the root)."""
    mods = {}
    for d, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            path = os.path.join(d, f)
            parts = os.path.relpath(path, src)[:-3].split(os.sep)
            if parts[-1] == "mod" or (len(parts) == 1 and parts[0] in ("lib", "main")):
                parts = parts[:-1]
            mods.setdefault("::".join(parts), path)
    return mods


def _close_brace(text, i):
    """The index just after the brace matching the `{` at text[i] (strings and comments
    skipped), or len(text)."""
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        char = CHAR.match(text, i)
        if char:
            i = char.end()
            continue
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def strip_tests(text):
    """`text` without its inline `#[cfg(test)]` modules (blanked, so lines keep their
    numbers), and the names of the test modules it declares out of line with the
    `#[path]` each names, if any: [(name, path or None)]."""
    out, outside = [], []
    pos = 0
    for m in TEST_ATTR.finditer(text):
        if m.start() < pos:
            continue
        item = ITEM_AFTER_ATTR.match(text, m.end())
        if not item:
            continue
        if item.group(2) == ";":
            attr = PATH_ATTR.search(text, m.end(), item.end())
            outside.append((item.group(1), attr.group(1) if attr else None))
            continue
        end = _close_brace(text, item.end() - 1)
        out.append(text[pos:m.start()])
        out.append(re.sub(r"[^\n]", " ", text[m.start():end]))
        pos = end
    out.append(text[pos:])
    return "".join(out), outside


def _use_tree(text, i):
    """The paths of the `use` group opening at text[i] == '{', relative to its prefix,
    as lists of segments, and where the group ends."""
    paths, prefix, i, n = [], [], i + 1, len(text)
    while i < n:
        m = re.compile(r"\s*(self|super|[A-Za-z_]\w*|\*)\s*(::)?\s*").match(text, i)
        if text[i] in " \n\t,":
            i += 1
            continue
        if text[i] == "}":
            return paths, i + 1
        if text[i] == "{":
            inner, i = _use_tree(text, i)
            paths.extend(prefix + p for p in inner)
            prefix = []
            continue
        if not m:
            i += 1
            continue
        prefix.append(m.group(1))
        i = m.end()
        if not m.group(2):
            if prefix[-1] not in ("*", "self"):
                paths.append(prefix)
            elif prefix[:-1]:
                paths.append(prefix[:-1])
            prefix = []
            rest = re.compile(r"\s*as\s+\w+").match(text, i)
            if rest:
                i = rest.end()
    return paths, n


def references(module, text):
    """Every (line, absolute path as segments) `text` of `module` names from the crate
    root or a parent."""
    here = module.split("::") if module else []
    refs = []
    for m in PATH.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        segs = [s.strip() for s in m.group(2).split("::") if s.strip()]
        if m.group(1) == "crate":
            base = []
        else:
            ups = 1
            while segs and segs[0] == "super":
                ups += 1
                segs = segs[1:]
            if ups > len(here):
                continue
            base = here[: len(here) - ups]
        groups = [[]]
        if m.group(3):
            groups, _ = _use_tree(text, m.end() - 1)
        for g in groups:
            refs.append((line, base + segs + g))
    return refs


def resolve(names, path):
    """The longest prefix of `path` that is a module in `names`, or None."""
    for k in range(len(path), 0, -1):
        name = "::".join(path[:k])
        if name in names:
            return name
    return None


def imports(src):
    """{module: {imported module: (file, line) of its first mention}} of the crate at `src`."""
    mods = modules_of(src)
    texts, test_files = {}, set()
    for name, path in mods.items():
        with open(path, encoding="utf-8") as f:
            text, outside = strip_tests(f.read())
        texts[name] = text
        for child, attr in outside:
            if attr:
                test_files.add(os.path.normpath(os.path.join(os.path.dirname(path), attr)))
            else:
                test_files.add(mods.get(f"{name}::{child}" if name else child))
    edges = {}
    for name, path in mods.items():
        if path in test_files:
            continue
        out = edges.setdefault(name, {})
        for line, segs in references(name, texts[name]):
            target = resolve(mods, segs)
            if target and target != name and mods[target] not in test_files:
                out.setdefault(target, (path, line))
    return edges


def cycles(edges):
    """The strongly connected components of two or more modules, each sorted, in
    order of their first member."""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def crate_cycles(repo):
    """[(crate, members, edges of the crate)] for every crate under `repo`/crates."""
    out = []
    root = os.path.join(repo, "crates")
    for crate in sorted(os.listdir(root)):
        src = os.path.join(root, crate, "src")
        if not os.path.isdir(src):
            continue
        edges = imports(src)
        out.extend((crate, c, edges) for c in cycles(edges))
    return out


def line_of(crate, members):
    return f"{crate}: {' '.join(members)}"


def read_known(path):
    """The cycle lines of a known-cycles file, each normalised (members sorted)."""
    known = []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            text = raw.split("#", 1)[0].strip()
            if not text:
                continue
            crate, _, members = text.partition(":")
            known.append(line_of(crate.strip(), sorted(members.split())))
    return known


def verdict(found, known):
    """The problems of `found` cycle lines against the `known` ones, or [] without
    --known (None): every cycle is then a problem."""
    if known is None:
        return [f"import cycle: {c}" for c in found]
    problems = [f"new import cycle (not in the known list): {c}" for c in found if c not in known]
    problems += [
        f"listed cycle no longer exists (remove its line): {c}" for c in known if c not in found
    ]
    return problems


def main(argv):
    known_file, show_edges, rest = None, False, []
    args = iter(argv)
    for a in args:
        if a == "--known":
            known_file = next(args, None)
        elif a == "--edges":
            show_edges = True
        else:
            rest.append(a)
    repo = rest[0] if rest else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = crate_cycles(repo)
    lines = [line_of(crate, members) for crate, members, _ in found]
    for (crate, members, edges), text in zip(found, lines):
        print(f"{len(members)} {text}")
        if show_edges:
            for a in members:
                for b, (path, line) in sorted(edges[a].items()):
                    if b in members:
                        print(f"    {os.path.relpath(path, repo)}:{line}: {a} -> {b}")
    known = read_known(known_file) if known_file else None
    problems = verdict(lines, known)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
