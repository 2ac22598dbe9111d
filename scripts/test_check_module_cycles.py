"""Tests of scripts/check_module_cycles.py (run by scripts/test.sh:
`python3 -m unittest scripts/test_check_module_cycles.py`)."""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_module_cycles as cmc  # noqa: E402


def crate(files):
    """A crate's src/ folder in a temporary directory, from {relative path: text}."""
    root = tempfile.mkdtemp()
    src = os.path.join(root, "crates", "demo", "src")
    for rel, text in files.items():
        path = os.path.join(src, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return root, src


def edges(files):
    _, src = crate(files)
    return {m: sorted(t) for m, t in cmc.imports(src).items() if t}


class Modules(unittest.TestCase):
    def test_files_and_mod_rs_name_modules_and_lib_rs_is_the_root(self):
        _, src = crate({"lib.rs": "", "a.rs": "", "b/mod.rs": "", "b/c.rs": ""})
        self.assertEqual(sorted(cmc.modules_of(src)), ["", "a", "b", "b::c"])


class Imports(unittest.TestCase):
    def test_a_crate_path_imports_the_longest_module_it_names(self):
        got = edges({"lib.rs": "", "a.rs": "use crate::b::c::Item;", "b/mod.rs": "", "b/c.rs": ""})
        self.assertEqual(got, {"a": ["b::c"]})

    def test_super_starts_from_the_parent_module_of_a_file_or_a_mod_rs(self):
        got = edges(
            {
                "lib.rs": "",
                "x.rs": "",
                "b/mod.rs": "fn f() { super::x::g() }",
                "b/c.rs": "use super::d::T; use super::super::x;",
                "b/d.rs": "",
            }
        )
        self.assertEqual(got, {"b": ["x"], "b::c": ["b::d", "x"]})

    def test_each_path_of_a_nested_use_group_counts(self):
        got = edges(
            {
                "lib.rs": "",
                "a.rs": "use crate::{b::{self, X}, c::{d::Y, Z as W}, e};",
                "b.rs": "",
                "c/mod.rs": "",
                "c/d.rs": "",
                "e.rs": "",
            }
        )
        self.assertEqual(got, {"a": ["b", "c", "c::d", "e"]})

    def test_a_doc_link_counts_but_a_child_named_relatively_does_not(self):
        got = edges(
            {
                "lib.rs": "",
                "a.rs": "//! See [`crate::b`].\n",
                "b/mod.rs": "pub mod m; pub use m::Member; use self::m::Other;",
                "b/m.rs": "use super::Trait;",
            }
        )
        self.assertEqual(got, {"a": ["b"], "b::m": ["b"]})

    def test_inline_and_out_of_line_test_modules_are_left_out(self):
        got = edges(
            {
                "lib.rs": "",
                "a.rs": (
                    "use crate::b::X;\n"
                    "#[cfg(test)]\nmod tests {\n    use crate::c::Y;\n"
                    "    const S: &str = \"}\"; const C: char = '{';\n}\n"
                    "fn after() { crate::d::f() }\n"
                    "#[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod more;\n"
                    "#[cfg(test)]\nmod t2;\n"
                ),
                "a_tests.rs": "use crate::b::Z;",
                "a/t2.rs": "use crate::b::Z;",
                "b.rs": "use crate::a::tests_only;",
                "c.rs": "",
                "d.rs": "",
            }
        )
        self.assertEqual(got, {"a": ["b", "d"], "b": ["a"]})

    def test_a_kept_line_number_points_at_the_import(self):
        _, src = crate({"lib.rs": "", "a.rs": "\n\nuse crate::b;\n", "b.rs": ""})
        (path, line), = cmc.imports(src)["a"].values()
        self.assertEqual((os.path.basename(path), line), ("a.rs", 3))


class Cycles(unittest.TestCase):
    def test_strongly_connected_modules_form_one_cycle_and_a_chain_none(self):
        graph = {"a": {"b": 0}, "b": {"c": 0}, "c": {"a": 0, "d": 0}, "d": {}, "e": {"d": 0}}
        self.assertEqual(cmc.cycles(graph), [["a", "b", "c"]])

    def test_two_modules_importing_each_other_are_a_cycle(self):
        root, _ = crate({"lib.rs": "", "a.rs": "use crate::b::X;", "b.rs": "use crate::a::Y;"})
        self.assertEqual([(c, m) for c, m, _ in cmc.crate_cycles(root)], [("demo", ["a", "b"])])


class Verdict(unittest.TestCase):
    def test_without_a_known_list_every_cycle_fails(self):
        self.assertEqual(cmc.verdict(["demo: a b"], None), ["import cycle: demo: a b"])
        self.assertEqual(cmc.verdict([], None), [])

    def test_a_listed_cycle_passes_a_new_or_changed_one_fails(self):
        self.assertEqual(cmc.verdict(["demo: a b"], ["demo: a b"]), [])
        self.assertEqual(
            cmc.verdict(["demo: a b c"], ["demo: a b"]),
            [
                "new import cycle (not in the known list): demo: a b c",
                "listed cycle no longer exists (remove its line): demo: a b",
            ],
        )

    def test_a_listed_cycle_that_is_gone_fails_so_the_list_stays_true(self):
        self.assertEqual(
            cmc.verdict([], ["demo: a b"]),
            ["listed cycle no longer exists (remove its line): demo: a b"],
        )

    def test_the_known_file_is_read_with_comments_and_members_in_any_order(self):
        fd, path = tempfile.mkstemp()
        with os.fdopen(fd, "w") as f:
            f.write("# header\n\ndemo: b a   # why it is still there\n")
        self.assertEqual(cmc.read_known(path), ["demo: a b"])

    def test_main_exits_1_on_a_new_cycle_and_0_once_it_is_listed(self):
        root, _ = crate({"lib.rs": "", "a.rs": "use crate::b::X;", "b.rs": "use crate::a::Y;"})
        known = os.path.join(root, "known.txt")
        with open(known, "w") as f:
            f.write("")
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            self.assertEqual(cmc.main(["--known", known, root]), 1)
            with open(known, "w") as f:
                f.write("demo: a b\n")
            self.assertEqual(cmc.main(["--known", known, root]), 0)


if __name__ == "__main__":
    unittest.main()
