"""Tests of scripts/check_sources.py (run by scripts/test.sh:
`python3 -m unittest scripts/test_check_sources.py`)."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_sources  # noqa: E402

BIB = """# Bibliography
- <a id="gurtov-ludwig-2002"></a>**[Gurtov & Ludwig 2002]** A. Gurtov, R. Ludwig. ...
- **[RFC 6298]** V. Paxson et al. Computing TCP's Retransmission Timer. 2011.
"""
KEYS = check_sources.bibliography_keys(BIB)


def problems(text):
    return check_sources.check_text("f.rs", text, KEYS)


class CheckSources(unittest.TestCase):
    def test_bibliography_entries_are_read_with_and_without_an_anchor(self):
        self.assertEqual(KEYS, {"Gurtov & Ludwig 2002", "RFC 6298"})

    def test_cited_keys_and_rfcs_with_entries_pass(self):
        self.assertEqual(problems("// [Gurtov & Ludwig 2002] 5; RFC 6298 (2.4), RFC6298"), [])

    def test_a_path_outside_the_repository_is_caught(self):
        self.assertEqual(
            problems("see ../shared/papers/x\nprofile (shared/NS2-DEFAULTS.md)\n(NS2-DEFAULTS.md)"),
            [
                "f.rs:1: `../shared/` points outside the repository",
                "f.rs:2: `shared/NS2-DEFAULTS.md` points outside the repository",
                "f.rs:3: `NS2-DEFAULTS.md` points outside the repository",
            ],
        )

    def test_a_paper_file_name_is_caught_but_not_a_page_of_the_book(self):
        found = problems("gprs-eifel.md section 5 (std-proxy.md III)")
        self.assertEqual(len(found), 2)
        self.assertIn("`gprs-eifel.md` names a paper", found[0])
        self.assertEqual(problems("docs/src/reproduction-std-proxy.md"), [])

    def test_an_rfc_or_a_key_without_an_entry_is_caught(self):
        self.assertEqual(
            problems("RFC 5681 and [Klein et al. 2004]"),
            [
                "f.rs:1: RFC 5681 has no entry in docs/src/bibliography.md",
                "f.rs:1: [Klein et al. 2004] has no entry in docs/src/bibliography.md",
            ],
        )

    def test_paths_the_docs_name_must_exist_but_patterns_are_skipped(self):
        have = {"crates/tcp/src/rto/mod.rs", "docs/src/outputs.md"}
        text = (
            "see `crates/tcp/src/rto/mod.rs`, `crates/tcp/src/rto/gone.rs` and "
            "`experiments/*.toml`, `docs/src/reproduction-<name>.md`"
        )
        self.assertEqual(
            check_sources.check_paths("docs/src/x.md", text, have.__contains__),
            ["docs/src/x.md:1: `crates/tcp/src/rto/gone.rs` is not in the repository"],
        )
        readme = "[book](docs/src/outputs.md#runs) [x](docs/src/nope.md)\n[k]: docs/src/gone.md"
        self.assertEqual(
            check_sources.check_paths("README.md", readme, have.__contains__),
            [
                "README.md:1: link `docs/src/nope.md` is not in the repository",
                "README.md:2: link `docs/src/gone.md` is not in the repository",
            ],
        )

    def test_a_repository_without_a_bibliography_fails(self):
        self.assertEqual(
            check_sources.check_repo(tempfile.mkdtemp()),
            ["docs/src/bibliography.md: missing"],
        )


if __name__ == "__main__":
    unittest.main()
