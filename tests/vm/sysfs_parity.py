#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sysfs parity of in-tree md and this stack (issue 35).

tests/vm/tests/t54-sysfs-parity.sh walks md/, one dev-*/ and md/bitmap/
of a RAID1 and a RAID5 array and prints one "# PARITY ..." line per
entry; the harness runs it once per implementation, so a run directory
(results/vm-*/) holds console-intree.log and console-fork.log.  This
script puts the two side by side:

  sysfs_parity.py [-o FILE] [--check] [--strict] [--notes FILE] RUNDIR
  sysfs_parity.py ... --intree LOG --fork LOG

-o FILE writes the Markdown table (Documentation/sysfs-parity.md);
without it a summary goes to stdout.  --check exits 1 when an attribute
in-tree has is missing here, or a valid write that in-tree accepts and
that changes what it reads is refused or changes nothing here, unless the
notes file lists that difference as deliberate; --strict also fails on
any other difference the notes do not explain.  Exit 2: unusable input
(a log missing, a walk that did not finish).

Attributes whose value belongs to the array, not to the implementation
(uuid: every array gets its own random one), are compared by form: both
reads must have it (PER_ARRAY), the values themselves may differ.

The notes file (Documentation/sysfs-parity-notes.txt) has one line per
deliberate difference: "KEY REASON", KEY an attribute name as the table
shows it (NAME, dev-*/NAME, bitmap/NAME, NAME/ for a directory; fnmatch
patterns allowed), optionally "raid1:" or "raid5:" in front and
"@exists", "@mode", "@read", "@valid" or "@invalid" behind, to cover
one level or one aspect only.  '#' starts a comment.
"""

import argparse
import errno
import fnmatch
import os
import re
import sys
import urllib.parse

IMPLS = ("intree", "fork")
LEVELS = ("raid1", "raid5")
ASPECTS = ("exists", "mode", "read", "valid", "invalid")
FIELDS = ("level", "attr", "mode", "read", "valid", "wrote", "changed",
          "after", "restore", "invalid", "iwrote", "ichanged")
LINE_RE = re.compile(r"# (PARITY(?:-BEGIN|-END)?) (.*)$")
# attribute -> (the form in words, a pattern the whole value must match):
# values that differ from array to array, compared by form only
PER_ARRAY = {
    "uuid": ("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, lower-case hex",
             re.compile(r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}")),
}
SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NOTES = os.path.join(SRC, "Documentation", "sysfs-parity-notes.txt")


class InputError(Exception):
    pass


def fields(text):
    """"k=v k=v ..." with %-escaped values -> dict"""
    out = {}
    for word in text.split():
        key, sep, val = word.partition("=")
        if sep:
            out[key] = urllib.parse.unquote(val)
    return out


def parse_log(path, impl):
    """One console log -> {level: {attr: record}}, the kernel release.

    A walk counts only when its PARITY-END line came and its row count
    matches; a level walked twice keeps the last complete walk."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    walks, kernel, cur, rows, problems = {}, None, None, {}, []
    for n, line in enumerate(text.splitlines(), 1):
        m = LINE_RE.search(line.replace("\r", ""))
        if not m:
            continue
        kind, rec = m.group(1), fields(m.group(2))
        level = rec.get("level")
        if kind == "PARITY-BEGIN":
            if rec.get("impl", impl) != impl:
                raise InputError(f"{path}:{n}: a walk of "
                                 f"impl={rec.get('impl')}, want {impl}")
            kernel = rec.get("kernel", kernel)
            cur, rows = level, {}
        elif kind == "PARITY-END":
            if level != cur:
                problems.append(f"{path}:{n}: end of {level} outside its walk")
            elif str(len(rows)) != rec.get("rows"):
                problems.append(f"{path}:{n}: {level}: {len(rows)} rows "
                                f"parsed, the guest printed {rec.get('rows')}")
            else:
                walks[level] = rows
            cur = None
        elif cur is None or level != cur:
            problems.append(f"{path}:{n}: a row outside a walk")
        elif any(k not in rec for k in FIELDS):
            problems.append(f"{path}:{n}: a row without "
                            f"{[k for k in FIELDS if k not in rec]}")
        else:
            rows[rec["attr"]] = rec
    for level in LEVELS:
        if level not in walks:
            problems.append(f"{path}: no complete {level} walk")
    if problems:
        raise InputError("\n".join(problems))
    return walks, kernel


def load_notes(path):
    """-> list of [level or None, pattern, aspect or None, reason, used]"""
    notes = []
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    with f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            key, reason = (line.split(None, 1) + [""])[:2]
            level, aspect = None, None
            if ":" in key:
                level, key = key.split(":", 1)
            if "@" in key:
                key, aspect = key.rsplit("@", 1)
            if level not in (None,) + LEVELS or \
               aspect not in (None,) + ASPECTS:
                raise InputError(f"{path}:{n}: bad key '{line.split()[0]}'")
            if not reason.strip():
                raise InputError(f"{path}:{n}: '{key}' has no reason")
            notes.append([level, key, aspect, reason.strip(), False])
    return notes


def note_for(notes, level, attr, aspect):
    for note in notes:
        if note[0] not in (None, level) or note[2] not in (None, aspect):
            continue
        if fnmatch.fnmatchcase(attr, note[1]):
            note[4] = True
            return note[3]
    return None


def errname(code):
    try:
        return errno.errorcode[int(code)]
    except (ValueError, KeyError):
        return f"error {code}"


def took_effect(rec):
    return rec is not None and rec["valid"] == "ok" and rec["changed"] == "y"


def has_form(attr, rec):
    """A read of a PER_ARRAY attribute that has the form it must have."""
    form = PER_ARRAY.get(attr)
    if form is None or rec is None or not rec["read"].startswith("ok:"):
        return False
    return form[1].fullmatch(rec["read"][3:]) is not None


def outcome(rec, aspect, attr=None):
    """What the table compares for one aspect of one record."""
    if rec is None:
        return None
    if aspect == "mode":
        return rec["mode"]
    if aspect == "read":
        # a per-array value: its form, not the value
        if has_form(attr, rec):
            return ("form", attr)
        return rec["read"]
    result, changed = ((rec["valid"], rec["changed"]) if aspect == "valid"
                       else (rec["invalid"], rec["ichanged"]))
    # not written, for whatever reason (read-only shows in the mode)
    if result.startswith("skip:"):
        return "skip"
    return (result, changed)


def compare(level, attr, i, f, notes):
    """-> (verdict, list of (aspect, reason or None), failing aspects)"""
    diffs = []
    if i is None or f is None:
        diffs.append("exists")
    else:
        for aspect in ASPECTS[1:]:
            if outcome(i, aspect, attr) != outcome(f, aspect, attr):
                diffs.append(aspect)
    # written with different values (alternatives picked from different
    # current values) but with the same effect: no difference
    if "valid" in diffs and took_effect(i) and took_effect(f):
        diffs.remove("valid")
    explained = [(a, note_for(notes, level, attr, a)) for a in diffs]
    fails = []
    if i is not None and f is None:
        fails.append("exists")
    elif took_effect(i) and not took_effect(f):
        fails.append("valid")
    fails = [a for a, why in explained if a in fails and why is None]
    if fails:
        verdict = "FAIL"
    elif not diffs:
        verdict = "same"
    elif all(why for _, why in explained):
        verdict = "deliberate"
    else:
        verdict = "unexplained"
    return verdict, explained, fails


def code(text):
    text = text.replace("`", "'").replace("|", "\\|")
    return f"`{text}`" if text.strip() else "(empty)"


def cell_read(rec):
    if rec is None:
        return "absent"
    mode, read = rec["mode"], rec["read"]
    if mode == "dir":
        return "directory"
    if mode == "link":
        return "link to " + code(read.partition(":")[2])
    kind, _, val = read.partition(":")
    if kind == "ok":
        shown = code(val)
    elif kind == "errno":
        shown = errname(val)
    else:
        shown = "write-only"
    return f"{mode}: {shown}"


SKIPS = {"destructive": "not written (destructive)",
         "ro": "read-only", "unknown": "not written (no safe value known)",
         "link": "", "dir": ""}


def cell_write(rec, result, value, changed, after=None):
    kind, _, val = result.partition(":")
    if kind == "skip":
        return SKIPS.get(val, "not written")
    if kind == "errno":
        return f"{code(value)}: {errname(val)}"
    if changed == "y" and after and after.startswith("ok:"):
        return f"{code(value)}: changed, reads {code(after[3:])}"
    effect = {"y": "changed", "n": "no change"}.get(changed, "accepted")
    return f"{code(value)}: {effect}"


def cells(rec):
    if rec is None:
        return ["absent"] * 3
    return [cell_read(rec),
            cell_write(rec, rec["valid"], rec["wrote"], rec["changed"],
                       rec["after"]),
            cell_write(rec, rec["invalid"], rec["iwrote"], rec["ichanged"])]


def sort_key(attr):
    for group, prefix in enumerate(("dev-*/", "bitmap/"), 1):
        if attr.startswith(prefix):
            return (group, attr)
    return (0, attr)


def build(data, notes):
    """-> {level: [(attr, verdict, explained, fails, intree, fork)]}"""
    table = {}
    for level in LEVELS:
        i_rows, f_rows = data["intree"][level], data["fork"][level]
        rows = []
        for attr in sorted(set(i_rows) | set(f_rows), key=sort_key):
            i, f = i_rows.get(attr), f_rows.get(attr)
            verdict, explained, fails = compare(level, attr, i, f, notes)
            rows.append((attr, verdict, explained, fails, i, f))
        table[level] = rows
    return table


def why_text(attr, explained, fails, i=None, f=None):
    """"aspect, aspect: reason; ..." with aspects of one reason together;
    a per-array value read in its form on both sides says so"""
    if not explained and has_form(attr, i) and has_form(attr, f):
        return (f"read: a per-array value, compared by form "
                f"({PER_ARRAY[attr][0]})")
    groups = {}
    for aspect, why in explained:
        if not why:
            why = ("**not deliberate (fails --check)**" if aspect in fails
                   else "*no reason noted*")
        groups.setdefault(why, []).append(aspect)
    return "; ".join(f"{', '.join(aspects)}: {why.replace('|', '/')}"
                     for why, aspects in groups.items())


def counts(rows):
    c = {"in-tree": 0, "here": 0, "missing here": 0, "only here": 0,
         "FAIL": 0, "deliberate": 0, "unexplained": 0, "same": 0}
    for _, verdict, _, fails, i, f in rows:
        c["in-tree"] += i is not None
        c["here"] += f is not None
        c["missing here"] += i is not None and f is None
        c["only here"] += i is None and f is not None
        c[verdict] += 1
    return c


def shown_path(path):
    """PATH relative to the repository when it lies inside it"""
    rel = os.path.relpath(os.path.abspath(path), SRC)
    return path if rel.startswith("..") else rel


def run_header(rundir):
    """The "==== results (...)" line of RUNDIR/summary.txt, if any"""
    try:
        with open(os.path.join(rundir, "summary.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("==== results"):
                    return line.strip("= \n")
    except OSError:
        pass
    return None


def markdown(table, kernels, source, notes_path, header=None, preface=None):
    out = ["# sysfs parity: in-tree md and this stack", "",
           "Generated by `make sysfs-parity` (`tests/vm/sysfs_parity.py` on "
           "the console logs of `tests/vm/tests/t54-sysfs-parity.sh`); do not "
           "edit by hand.  The *why* column comes from "
           f"`{shown_path(notes_path)}`.", "",
           f"Source: `{source}`" + (f" ({header})" if header else "") +
           f"; in-tree kernel `{kernels['intree']}`, this stack on "
           f"`{kernels['fork']}`.", ""]
    if preface:
        out += [preface, ""]
    out += ["Each array (RAID1 of 2, RAID5 of 4 brd disks, internal bitmap, "
            "`--assume-clean`) has every entry of `md/`, one member's "
            "`dev-*/` and `md/bitmap/` read, then, where writable and "
            "harmless, written with a valid value (usually one that changes "
            "the setting, restored afterwards) and an invalid one.  A cell "
            "reads `mode: value`, or `value written: effect` (changed, no "
            "change, or the error).  A value that belongs to the array "
            "rather than the implementation (`uuid`) is compared by its "
            "form.  Verdicts: *same*; *deliberate* (every "
            "difference has a reason); *unexplained* (a difference without "
            "one); **FAIL** (missing here, or a valid write in-tree takes is "
            "refused or ignored here, with no reason: `--check` fails).", ""]
    for level, rows in table.items():
        c = counts(rows)
        out += [f"## {level}", "",
                f"{c['in-tree']} entries in-tree, {c['here']} here; "
                f"{c['missing here']} missing here, {c['only here']} only "
                f"here; {c['same']} same, {c['deliberate']} deliberate, "
                f"{c['unexplained']} unexplained, {c['FAIL']} FAIL.", "",
                "| Attribute | In-tree read | In-tree valid write | "
                "In-tree invalid write | Read here | Valid write here | "
                "Invalid write here | Verdict | Why |",
                "|---|---|---|---|---|---|---|---|---|"]
        for attr, verdict, explained, fails, i, f in rows:
            shown = "**FAIL**" if verdict == "FAIL" else verdict
            out.append("| " + " | ".join(
                [code(attr)] + cells(i) + cells(f) +
                [shown, why_text(attr, explained, fails, i, f)]) + " |")
        out.append("")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rundir", nargs="?", help="results/vm-* directory")
    ap.add_argument("--intree", help="in-tree console log")
    ap.add_argument("--fork", help="this stack's console log")
    ap.add_argument("--notes", default=NOTES, help="deliberate differences")
    ap.add_argument("-o", "--output", help="write the Markdown table here")
    ap.add_argument("--preface", metavar="TEXT",
                    help="a paragraph for the table's header (e.g. what "
                    "changed since the run)")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 on a missing attribute or a valid write "
                    "not taken that the notes do not explain")
    ap.add_argument("--strict", action="store_true",
                    help="--check, and any unexplained difference fails too")
    args = ap.parse_args(argv)
    logs = {"intree": args.intree, "fork": args.fork}
    if args.rundir:
        for impl in IMPLS:
            logs[impl] = logs[impl] or os.path.join(args.rundir,
                                                    f"console-{impl}.log")
    if not all(logs.values()):
        ap.error("give RUNDIR or both --intree and --fork")
    try:
        notes = load_notes(args.notes)
        data, kernels = {}, {}
        for impl in IMPLS:
            data[impl], kernels[impl] = parse_log(logs[impl], impl)
    except InputError as e:
        print(f"sysfs_parity: {e}", file=sys.stderr)
        return 2
    table = build(data, notes)
    if args.rundir:
        source, header = shown_path(args.rundir), run_header(args.rundir)
    else:
        source = ", ".join(shown_path(logs[impl]) for impl in IMPLS)
        header = None
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(markdown(table, kernels, source, args.notes, header,
                             args.preface))
        print(f"sysfs_parity: wrote {args.output}")
    bad = 0
    for level, rows in table.items():
        c = counts(rows)
        print(f"{level}: {c['in-tree']} entries in-tree, {c['here']} here; "
              f"{c['same']} same, {c['deliberate']} deliberate, "
              f"{c['unexplained']} unexplained, {c['FAIL']} FAIL")
        for attr, verdict, explained, fails, _, _ in rows:
            if verdict == "FAIL" or (verdict == "unexplained" and args.strict):
                bad += 1
            if verdict in ("FAIL", "unexplained"):
                what = ", ".join(a for a, why in explained if not why)
                print(f"  {verdict:<11} {attr}: {what}")
        for attr, _, _, _, i, _ in rows:
            if i is not None and i["valid"] == "skip:unknown":
                print(f"  untested    {attr}: writable in-tree, no valid "
                      "value known (t54's plan())")
    for note in notes:
        if not note[4]:
            print(f"sysfs_parity: note '{note[1]}' matches no difference",
                  file=sys.stderr)
    if (args.check or args.strict) and bad:
        print(f"sysfs_parity: {bad} row(s) fail the check")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
