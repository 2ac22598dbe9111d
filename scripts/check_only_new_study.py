#!/usr/bin/env python3
"""check_only_new_study.py A B [SECTION_TITLE] [FOLDER]: the `spikelab reproduce` output B
differs from A only by a study that joined the default set: its folder (default
`real-paths/`), its report section (default "The five papers' fixes on the real-path
library") and the bibliography entries only that section cites. Every other file is
byte-identical and report.md is too once the section and those entries are taken out.
Exit 1 with the first difference otherwise.

  python3 scripts/check_only_new_study.py /work/out/base/reproduce /work/out/mine/reproduce
"""
import filecmp
import pathlib
import sys


def without_section(md, title):
    start = md.find(f"\n## {title}")
    if start < 0:
        sys.exit(f"no report section `{title}`")
    end = md.find("\n## ", start + 1)
    return md[:start] + ("" if end < 0 else md[end:])


def is_reference(line):
    """A bibliography entry or link definition of the report."""
    return line.startswith('- <a id="ref-') or line.startswith("[")


def main(a, b, title="The five papers' fixes on the real-path library", folder="real-paths"):
    a, b = pathlib.Path(a), pathlib.Path(b)
    ma, mb = (a / "report.md").read_text(), (b / "report.md").read_text()
    if title in ma:
        sys.exit(f"{a}/report.md already holds the section `{title}`")
    old = ma.splitlines()
    known = set(old)
    added = [l for l in without_section(mb, title).splitlines() if l not in known]
    if any(not is_reference(l) for l in added):
        sys.exit(f"report.md differs outside the new section: {[l for l in added if not is_reference(l)][:3]}")
    kept = [l for l in without_section(mb, title).splitlines() if l in known]
    if kept != [l for l in old if l in set(kept)] or set(kept) != known:
        sys.exit("report.md lost or reordered lines outside the new section")
    files = sorted(p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file())
    new = [f for f in files if not (a / f).exists()]
    if any(not f.startswith(f"{folder}/") for f in new):
        sys.exit(f"new files outside {folder}/: {[f for f in new if not f.startswith(folder + '/')]}")
    for f in files:
        if f in new or f in ("report.md", "report.html"):
            continue
        if f == ".spikelab-output":
            lines = [l for l in (b / f).read_text().splitlines() if f'"{folder}/' not in l]
            if lines != (a / f).read_text().splitlines():
                sys.exit(f"{f} differs beyond the new folder's files")
        elif not filecmp.cmp(a / f, b / f, shallow=False):
            sys.exit(f"{f} differs")
    gone = [p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file() and not (b / p.relative_to(a)).exists()]
    if gone:
        sys.exit(f"files missing from {b}: {gone[:5]}")
    print(f"identical but for the study: {len(new)} new files under {folder}/, its report section, "
          f"{len(added)} new bibliography lines")


if __name__ == "__main__":
    main(*sys.argv[1:])
