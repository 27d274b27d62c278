#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/vm/sysfs_parity.py on the hand-made fixture logs in
tests/vm/testdata/sysfs-parity/ (no VM): the verdict of every row, the
exit status of --check and --strict, the Markdown it writes, and refusal
of logs whose walks did not finish.  Run by `make parity-selftest`."""

import contextlib
import importlib.util
import io
import os
import shutil
import tempfile
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURE = os.path.join(TOP, "tests", "vm", "testdata", "sysfs-parity")
NOTES = os.path.join(FIXTURE, "notes.txt")

_spec = importlib.util.spec_from_file_location(
    "sysfs_parity", os.path.join(TOP, "tests", "vm", "sysfs_parity.py"))
sp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sp)

# level -> attr -> (verdict, aspects that fail --check)
WANT = {
    "raid1": {
        "bitmap_set_bits": ("FAIL", ["exists"]),	# missing here
        "consistency_policy": ("unexplained", []),	# mode noted, read not
        "max_read_errors": ("deliberate", []),	# missing here, noted
        "new_knob_here": ("unexplained", []),	# only here, not noted
        "rd0": ("same", []),			# a link; CR-ended line here
        "safe_mode_delay": ("FAIL", ["valid"]),	# accepted, no change here
        "stats/": ("deliberate", []),		# a directory only here
        "sync_busy_pct": ("deliberate", []),
        "sync_speed_min": ("same", []),
        "uuid": ("FAIL", ["exists"]),
        "weird_knob": ("same", []),		# no valid value known
        "dev-*/errors": ("FAIL", ["valid"]),	# refused here (noted: raid5)
        "bitmap/backlog": ("unexplained", []),	# in-tree refuses, here not
        "bitmap/chunksize": ("unexplained", []),	# other invalid errno
    },
    "raid5": {
        "journal_mode": ("deliberate", []),
        "safe_mode_delay": ("same", []),	# both changed, reads differ
        "stripe_cache_size": ("same", []),
        "sync_speed_min": ("same", []),
        "uuid": ("same", []),			# per-array: same form
        "dev-*/errors": ("deliberate", []),	# raid5:...@valid note
    },
}


def run(*argv):
    """main(argv) -> (exit status, stdout, stderr)"""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = sp.main(list(argv))
    return rc, out.getvalue(), err.getvalue()


class Fixture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sysfs_parity_test.")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def tmpfile(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_verdicts(self):
        data = {impl: sp.parse_log(os.path.join(
            FIXTURE, f"console-{impl}.log"), impl)[0] for impl in sp.IMPLS}
        table = sp.build(data, sp.load_notes(NOTES))
        for level, want in WANT.items():
            got = {attr: (verdict, fails)
                   for attr, verdict, _, fails, _, _ in table[level]}
            self.assertEqual(got, want, level)

    def test_values_decoded(self):
        rows, kernel = sp.parse_log(os.path.join(FIXTURE, "console-fork.log"),
                                    "fork")
        self.assertEqual(kernel, "6.1.0-fixture-cloud-amd64")
        self.assertEqual(rows["raid1"]["sync_speed_min"]["read"],
                         "ok:1000 (system)")
        self.assertEqual(rows["raid1"]["rd0"]["read"], "ok:dev-ram0")
        self.assertEqual(rows["raid5"]["stripe_cache_size"]["after"], "ok:512")

    def test_check(self):
        self.assertEqual(run("--notes", NOTES, FIXTURE)[0], 0)
        rc, out, err = run("--notes", NOTES, "--check", FIXTURE)
        self.assertEqual(rc, 1)
        self.assertIn("4 row(s) fail the check", out)
        self.assertIn("FAIL        uuid: exists", out)
        self.assertIn("untested    weird_knob", out)
        self.assertIn("note 'no_such_attr' matches no difference", err)

    def test_notes_waive_failures_not_strict(self):
        with open(NOTES, encoding="utf-8") as f:
            notes = f.read()
        more = self.tmpfile("notes", notes + "\n".join([
            "bitmap_set_bits why 1", "uuid why 2",
            "raid1:safe_mode_delay@valid why 3",
            "raid1:dev-*/errors@valid why 4", ""]))
        self.assertEqual(run("--notes", more, "--check", FIXTURE)[0], 0)
        rc, out, _ = run("--notes", more, "--strict", FIXTURE)
        self.assertEqual(rc, 1)
        self.assertIn("4 row(s) fail the check", out)	# the unexplained
        # a note for another aspect does not waive a failure
        other = self.tmpfile("other", "uuid@mode not this aspect\n")
        rc, out, _ = run("--notes", other, "--check", FIXTURE)
        self.assertIn("FAIL        uuid: exists", out)

    def test_markdown(self):
        md = os.path.join(self.tmp, "parity.md")
        rc, _, _ = run("--notes", NOTES, "-o", md, FIXTURE)
        self.assertEqual(rc, 0)
        with open(md, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("## raid1", text)
        self.assertIn("## raid5", text)
        self.assertIn("| `uuid` | 0444: `0f5f2a1c-5d2e-4c77-9a1b-6c2d3e4f5a6b`"
                      " | read-only | read-only | absent | absent | absent | "
                      "**FAIL** | exists: **not deliberate (fails --check)**",
                      text)
        self.assertIn("| `max_read_errors` | 0644: `20` | `21`: changed, "
                      "reads `21` | `zz9`: EINVAL | absent", text)
        self.assertIn("exists: fixture: in-tree only, listed", text)
        self.assertIn("mode: fixture: the mode difference alone is explained."
                      "; read: *no reason noted*", text)
        self.assertIn("| `dev-*/errors` | 0644: `0` | `5`: changed, reads "
                      "`5` | `zz9`: EINVAL | 0644: `0` | `5`: EINVAL |", text)
        self.assertIn("| `uuid` | 0444: `e8f167f1-aeaa-a99c-02ba-f8f840aead19`"
                      " | read-only | read-only | 0444: "
                      "`31c6e8a5-b9e9-ac71-c9fc-a01d902d0616` | read-only | "
                      "read-only | same | read: a per-array value, compared "
                      "by form", text)
        self.assertNotIn("PREFACE", text)
        rc, _, _ = run("--notes", NOTES, "-o", md, "--preface",
                       "PREFACE: before the fixes.", FIXTURE)
        self.assertEqual(rc, 0)
        with open(md, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("\n\nPREFACE: before the fixes.\n\nEach array", text)

    def test_per_array_form(self):
        # a per-array value is compared by form: another well-formed one
        # is the same, a malformed one (either side) a difference
        data = {impl: sp.parse_log(os.path.join(
            FIXTURE, f"console-{impl}.log"), impl)[0] for impl in sp.IMPLS}
        notes = sp.load_notes(NOTES)

        def verdict():
            rows = sp.build(data, notes)["raid5"]
            return {a: (v, e) for a, v, e, _, _, _ in rows}["uuid"]

        self.assertEqual(verdict(), ("same", []))
        for bad in ("31C6E8A5-B9E9-AC71-C9FC-A01D902D0616",
                    "31c6e8a5b9e9ac71c9fca01d902d0616", ""):
            data["fork"]["raid5"]["uuid"]["read"] = "ok:" + bad
            self.assertEqual(verdict(), ("unexplained", [("read", None)]),
                             bad)
        data["fork"]["raid5"]["uuid"]["read"] = "errno:5"
        self.assertEqual(verdict()[0], "unexplained")

    def broken(self, edit):
        """a run directory with the fixture, the fork log edited"""
        run_dir = os.path.join(self.tmp, "run")
        os.mkdir(run_dir)
        for impl in sp.IMPLS:
            with open(os.path.join(FIXTURE, f"console-{impl}.log"),
                      encoding="utf-8", newline="") as f:
                text = f.read()
            if impl == "fork":
                text = edit(text)
            self.tmpfile(os.path.join("run", f"console-{impl}.log"), text)
        return run("--notes", NOTES, "--check", run_dir)

    def test_unfinished_walk(self):
        rc, _, err = self.broken(lambda t: t.replace(
            "# PARITY-END level=raid5 impl=fork rows=5", "# crashed"))
        self.assertEqual(rc, 2)
        self.assertIn("no complete raid5 walk", err)

    def test_lost_row(self):
        rc, _, err = self.broken(lambda t: "\n".join(
            line for line in t.split("\n") if "attr=uuid" not in line
            and "attr=stripe_cache_size" not in line))
        self.assertEqual(rc, 2)
        self.assertIn("raid5: 3 rows parsed, the guest printed 5", err)

    def test_wrong_impl(self):
        rc, _, err = self.broken(lambda t: t.replace("impl=fork kernel",
                                                     "impl=intree kernel"))
        self.assertEqual(rc, 2)
        self.assertIn("want fork", err)

    def test_notes_files(self):
        # the real notes file parses; a missing or malformed one is refused
        self.assertTrue(sp.load_notes(sp.NOTES))
        self.assertEqual(run("--notes", os.path.join(self.tmp, "none"),
                             FIXTURE)[0], 2)
        for bad in ("raid6:uuid why\n", "uuid@size why\n", "uuid\n"):
            self.assertEqual(run("--notes", self.tmpfile("bad", bad),
                                 FIXTURE)[0], 2, bad)

    def test_no_log(self):
        rc, _, err = run("--notes", NOTES, self.tmp)
        self.assertEqual(rc, 2)
        self.assertIn("console-intree.log", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
