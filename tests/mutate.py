#!/usr/bin/env python3
# mutate.py - the mutation run: plants each mutation of tests/mutations.txt in a scratch copy and runs the CPU suite on it
"""
Each mutation of the list (a file, an exact source snippet that occurs once
in it, its replacement, and why it is a realistic bug) is applied alone to
a scratch copy of the working tree, built CPU-only (`make NVCC=`,
incremental from a copy built once), and run through the CPU test program
as `make test` runs it (HARNESS_BIN=bin/harness bin/tests), with
--fail-fast and a time limit. A mutation is

  caught      a test failed, failed twice more when run alone, and passed
              alone in a control copy (unmutated, the same file touched by
              a comment; its name is recorded), or the suite ran past the
              time limit (a hang); a failure that is not confirmed so (a
              wall-clock test on a busy machine) is noted and the run
              tried again
  survived    every test passed
  not-built   the mutated tree did not compile (left out of the score)
  no-coverage no CPU test executes the mutated lines (the coverage map):
              neither built nor run, left out of the score

Each mutant runs only the tests that execute its lines: a coverage
map, built once per tree (tests/mutate_cover.py: a gcov build, each test
run alone, cached in build/mutate/ by the tree's sources, tests and build
files), gives the tests of each line; a mutant on a line that no CPU
test executes is `no coverage`, neither built nor run, listed by file in
the report and left out of the score. Of its tests, those of the list's
focus filter run first (stage `focus`), then the others (stage `rest`),
of each those that took at most 2 s in the map first, with a time limit
of 3 x their seconds in the map + 30 s. --whole runs
the whole suite on every mutant instead (the focus filter, then
`!(focus)`, each test once at most, as before the map).

A mutant rebuilds only the objects whose compile reads the mutated file
and relinks only the programs they are part of (make's own commands,
without make); two mutants run at once (--workers), each in its own
scratch copy with its own control copy, their tests one at a time
(--jobs 1), so that the two cores are used and a wall-clock test sees the
load a make test on two cores gives it. The unmutated suite's pass is
kept under the same key as the map, so a second run of the same tree
does not run it again.

With --rules the mutants are not the list's but made by rule over the C
sources (tests/mutate_rules.py: comparisons made strict or non-strict
and turned round, == and != swapped, integer constants and loop bounds
+-1, && and || swapped, a term of a sum dropped, an early return, goto,
break or continue removed, a ! dropped), COUNT of them drawn by SEED
over the files; they are planted, built, run and confirmed as the list's
are, with the list's focus filter for their file. Their survivors are
classified in tests/mutation-survivors.txt (equivalent, unreachable by a
CPU test, or a gap in the tests, each with the reason).

The report goes to OUT (results/dev-cpu/mutation by default, with --rules
results/dev-cpu/mutation-rules and with --part K/M its part-K-of-M
folder): mutation.csv (one row per mutation), mutation.meta.json (what was
run, where, the score) and mutation.md (the score and the surviving
mutations with the list's explanation of each), each written to a
temporary file and renamed.

Usage: tests/mutate.py [--list FILE] [--out DIR] [--scratch DIR] [--rev REV]
                       [--only ID[,ID...]] [--timeout S] [--recheck DIR]
                       [--notes DIR] [--check]
                       [--rules [--seed S] [--count N] [--part K/M] [--show]]
                       [--rerun DIR] [--merge DIR,DIR...]
                       [--whole] [--workers N] [--agree DIR,DIR]
  --rev     take the sources and tests from a revision (git archive), e.g.
            to measure the suite as it was before a change
  --recheck run again the mutations of DIR's report that a wall-clock test
            caught (ab, testhook, timing), at DIR's commit, and rewrite it
  --notes   rewrite DIR's mutation.md (from its CSV and meta) with the
            list's present explanations of the survivors (with a report of
            --rules: tests/mutation-survivors.txt's classes)
  --check   only verify that every snippet occurs exactly once (with
            --rules: every mutant of the sample's, and that every mutant
            tests/mutation-survivors.txt names is still made)
  --only    run these mutations (the report then goes to --out only when
            it is given explicitly); with --rules, any rule mutant's id
  --rules   the rule-generated mutants instead of the list's: --count N
            (default 300) drawn by --seed S (default 1), the same ones for
            the same seed and sources
  --part    with --rules, run the K-th of M parts of the sample (every
            M-th mutant from the K-th), so that a run fits a time limit or
            runs on several machines; --merge joins the parts' reports
  --show    with --rules, print the sample's mutants (id, what changes,
            the line before and after) and stop
  --rerun   with a --rules report DIR: run its survivors (or --only's ids)
            again on this tree, whose sources (harness/, reference/,
            variants/, kernels/) must be DIR's commit's, so that only tests
            changed: DIR's report (or --out) gets their new rows
  --merge   join the reports of the parts of one sample (the same commit,
            seed and count) into one, in --out (default
            results/dev-cpu/mutation-rules)
  --whole   the whole suite on every mutant instead of the map's tests
  --workers mutants run at once, each in its own scratch copy (default 2)
  --agree   compare the verdicts of two reports on the mutants they share
            (exit 1 when one differs): a run with the map against one with
            --whole
Examples: make mutate MUTATE_ARGS='--rules --seed 1 --count 300'
          tests/mutate.py --rules --seed 1 --count 300 --part 2/4 --rev HEAD
Exit status: 0 when the run finished (whatever the score), 1 when the
unmutated tree fails its own suite, 2 on a bad list or bad arguments.
"""
import argparse
import csv
import datetime
import hashlib
import io
import json
import os
import re
import shutil
import queue
import signal
import statistics
import subprocess
import sys
import threading
import time
import concurrent.futures

sys.dont_write_bytecode = True     # no __pycache__ in the tree the run copies
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate_cover  # noqa: E402
import mutate_rules  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAKE = ["nice", "-n", "10", "make", "--no-print-directory", "NVCC=", "-j2"]
TARGETS = ["bin/harness", "bin/tests"]


def die(msg, status=2):
    print("mutate: " + msg, file=sys.stderr)
    sys.exit(status)


def parse_list(path):
    """The mutations of the list file, in order. Format (see the file's
    head): `file PATH` and `focus GLOB` set the file and the focused
    filter of the mutations that follow; each mutation is a block of
    `id`, `why`, `find`, `repl` and optionally `survives` lines; a line
    that starts with a tab continues the snippet above it."""
    muts, cur, fname, focus, last = [], None, None, None, None
    with open(path, encoding="utf-8") as fp:
        for lineno, raw in enumerate(fp, 1):
            line = raw.rstrip("\n")
            if line.startswith("\t") and cur is not None and last in ("find", "repl"):
                cur[last] += "\n" + line     # a snippet's next source line
                continue
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = re.match(r"^(file|focus|id|why|find|repl|survives) (.*)$", line)
            if not m:
                die(f"{path}:{lineno}: expected 'file', 'focus', 'id', 'why', 'find', "
                    f"'repl' or 'survives', got: {line}")
            key, val = m.group(1), m.group(2)
            last = key
            if key not in ("find", "repl"):
                val = val.strip()
            if key == "file":
                fname, focus = val.strip(), None
            elif key == "focus":
                focus = val.strip()
            elif key == "id":
                if fname is None:
                    die(f"{path}:{lineno}: mutation before any 'file' line")
                cur = {"id": val.strip(), "file": fname, "focus": focus, "line": lineno}
                muts.append(cur)
            else:
                if cur is None:
                    die(f"{path}:{lineno}: '{key}' before any 'id'")
                if key in ("find", "repl"):
                    val = val.replace("\\t", "\t")
                if key in cur:
                    cur[key] += ("\n" if key in ("find", "repl") else " ") + val
                else:
                    cur[key] = val
    ids = set()
    for mu in muts:
        for k in ("why", "find", "repl"):
            if k not in mu:
                die(f"{path}:{mu['line']}: mutation {mu['id']} has no '{k}'")
        if mu["find"] == mu["repl"]:
            die(f"{path}:{mu['line']}: mutation {mu['id']} changes nothing")
        if mu["id"] in ids:
            die(f"{path}:{mu['line']}: mutation id {mu['id']} used twice")
        ids.add(mu["id"])
    return muts


def check_snippets(muts, tree):
    """Every snippet once in its file; fills in the line it starts on."""
    bad = 0
    for mu in muts:
        p = os.path.join(tree, mu["file"])
        try:
            text = open(p, encoding="utf-8").read()
        except OSError as e:
            print(f"mutate: {mu['id']}: {e}", file=sys.stderr)
            bad += 1
            continue
        count = text.count(mu["find"])
        if count != 1:
            print(f"mutate: {mu['id']}: the snippet occurs {count} times in {mu['file']}: "
                  f"{mu['find']!r}", file=sys.stderr)
            bad += 1
            continue
        mu["src_line"] = text[: text.index(mu["find"])].count("\n") + 1
    return bad


def run(cmd, cwd, timeout=None, env=None):
    """(exit status or None on timeout, output, seconds). On timeout the
    command's whole process group (Criterion's workers too) is killed."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace"), time.monotonic() - t0
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out.decode("utf-8", "replace"), time.monotonic() - t0


def make_scratch(scratch, rev=None):
    """A copy of the working tree's files (tracked and untracked, not
    ignored), or of revision rev's, as a git repository of its own with
    one commit, so that the tests that build a base revision find one."""
    tree = os.path.join(scratch, "tree")
    if os.path.exists(tree):
        shutil.rmtree(tree)
    os.makedirs(tree)
    if rev:
        arch = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True,
                              stdout=subprocess.PIPE).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=arch, check=True)
    else:
        files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                               check=True, stdout=subprocess.PIPE).stdout.split(b"\0")
        for f in files:
            if not f:
                continue
            f = f.decode()
            src = os.path.join(ROOT, f)
            if not os.path.isfile(src):
                continue
            dst = os.path.join(tree, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
    git = ["git", "-c", "user.name=mutate", "-c", "user.email=mutate@localhost"]
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                git + ["commit", "-q", "-m", "mutation run scratch tree"]):
        subprocess.run(cmd, cwd=tree, check=True, stdout=subprocess.DEVNULL)
    return tree


def test_env(tree):
    env = dict(os.environ)
    env["HARNESS_BIN"] = "bin/harness"
    # the planted bug moves its own snippet, which the test of the list
    # (mutations::every_snippet_is_found_once) would catch every time
    env["HARNESS_MUTATION_RUN"] = "1"
    # as make test runs them: OpenMP threads wait passively
    env.setdefault("OMP_WAIT_POLICY", "passive")
    return env


def suite(tree, filt, timeout, jobs=None):
    """Runs the CPU suite of tree (filtered by filt when set) with
    --fail-fast (and --jobs jobs when set). Returns (verdict, test,
    seconds): verdict pass, fail or timeout."""
    cmd = ["nice", "-n", "10", "bin/tests", "--fail-fast"]
    if filt:
        cmd += ["--filter", filt]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    rc, out, secs = run(cmd, tree, timeout=timeout, env=test_env(tree))
    if rc is None:
        return "timeout", "", secs
    if rc == 0:
        return "pass", "", secs
    failed = re.findall(r"^\[FAIL\] ([A-Za-z0-9_]+::[A-Za-z0-9_]+)", out, re.M)
    if not failed:
        failed = re.findall(r"^\[----\] (.*?): (?:CRASH|Unexpected signal)", out, re.M)
    return "fail", failed[0] if failed else "(suite exit %d)" % rc, secs


def confirmed(tree, control, filt, limit, row, tries=3, jobs=None):
    """suite(), with a failure confirmed: the failing test must fail twice
    more when run alone on the mutant and pass alone in the control, an
    unmutated copy of the tree with its own build whose mutated file has
    a do-nothing edit instead (a comment): as dirty as the mutant's, so
    tests that build or compare the working tree against its commit see
    the same kind of tree. control() prepares it and returns its path. A
    few tests measure wall-clock time and can fail on a busy machine; a
    failure that is not confirmed is noted in row["flaky"] and the run is
    tried again (tries in all), after which the stage counts as passed."""
    secs = 0.0
    for _ in range(tries):
        verdict, test, s = suite(tree, filt, limit, jobs)
        secs += s
        if verdict != "fail" or "::" not in test:
            return verdict, test, secs
        alone = test.replace("::", "/")
        ok = True
        for where in ("mutant", "control", "mutant"):
            v, _, s = suite(tree if where == "mutant" else control(), alone, limit, jobs)
            secs += s
            if (v == "pass") != (where == "control"):
                ok = False
                break
        if ok:
            return verdict, test, secs
        row["flaky"] = (row["flaky"] + " " if row["flaky"] else "") + test
    return "pass", "", secs


class Builder:
    """The CPU-only build of a prepared tree, run without make: each
    object's compile command and the files it reads (make's dry run and
    the .d files), and each program's link. A mutant rebuilds only the
    objects whose compile reads the mutated file and relinks only the
    programs they are part of; undoing it puts back the objects and
    programs of the unmutated build (kept aside) and the file's time."""

    def __init__(self, tree):
        cmds, self.link = mutate_rules.build_commands(tree)
        self.compile = {w[w.index("-o") + 1]: w for w in cmds}
        self.reads = mutate_cover.object_reads(tree)
        if not self.compile or set(self.link) != set(TARGETS):
            die("make -n NVCC= lists no compile or link command in " + tree, 1)

    def keep_programs(self, tree):
        d = os.path.join(tree, "bin", ".unmutated")
        os.makedirs(d, exist_ok=True)
        for t in TARGETS:
            shutil.copy2(os.path.join(tree, t), os.path.join(d, os.path.basename(t)))

    def plant(self, tree, rel, text):
        """Writes text to tree's rel and rebuilds what reads it: (built,
        seconds, what unplant needs)."""
        t0 = time.monotonic()
        path = os.path.join(tree, rel)
        st = os.stat(path)
        orig = open(path, encoding="utf-8").read()
        objs = sorted(o for o in self.compile if rel in self.reads.get(o, ()))
        for o in objs:
            shutil.copy2(os.path.join(tree, o), os.path.join(tree, o) + ".unmutated")
        with open(path, "w", encoding="utf-8") as fp:
            fp.write(text)
        ok = True
        for o in objs:
            if run(["nice", "-n", "10"] + self.compile[o], tree)[0] != 0:
                ok = False
                break
        progs = [t for t in TARGETS if any(o in self.link[t] for o in objs)]
        for t in progs if ok else []:
            if run(["nice", "-n", "10"] + self.link[t], tree)[0] != 0:
                ok = False
                break
        return ok, time.monotonic() - t0, (path, orig, st, objs, progs)

    def unplant(self, tree, undo):
        path, orig, st, objs, progs = undo
        with open(path, "w", encoding="utf-8") as fp:
            fp.write(orig)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        for o in objs:
            os.replace(os.path.join(tree, o) + ".unmutated", os.path.join(tree, o))
        for t in progs:
            shutil.copy2(os.path.join(tree, "bin", ".unmutated", os.path.basename(t)),
                         os.path.join(tree, t))


class Control:
    """The control tree for one mutation: base with a comment appended to
    the mutated file, built on first use; restore() undoes the edit."""

    def __init__(self, builder, base, path):
        self.builder, self.base, self.path, self.undo = builder, base, path, None

    def __call__(self):
        if self.undo is None:
            text = open(os.path.join(self.base, self.path), encoding="utf-8").read()
            _, _, self.undo = self.builder.plant(
                self.base, self.path, text + "\n/* a do-nothing edit: the mutation run's control */\n")
        return self.base

    def restore(self):
        if self.undo is not None:
            self.builder.unplant(self.base, self.undo)
            self.undo = None


def baseline(tree, key):
    """(seconds, cached): the unmutated suite of tree must pass; a
    wall-clock test that fails on a busy machine and passes alone is
    retried (three runs at most). A pass is kept in build/mutate/ under
    the tree's key (mutate_cover.tree_key without the map's module), so
    that the same sources and tests are not run again."""
    cache = os.path.join(ROOT, "build", "mutate", "baseline-%s.json" % key[:16])
    if os.path.exists(cache):
        with open(cache, encoding="utf-8") as fp:
            d = json.load(fp)
        if d.get("key") == key and d.get("passed"):
            return d["seconds"], True
    for attempt in range(3):
        verdict, test, base_s = suite(tree, None, None)
        if verdict == "pass":
            break
        alone, _, _ = suite(tree, test.replace("::", "/"), None) if "::" in test else ("fail", 0, 0)
        if alone != "pass":
            die(f"the unmutated tree fails its own suite ({test})", 1)
        print(f"mutate: {test} failed in the unmutated suite and passed alone: run again",
              flush=True)
    else:
        die(f"the unmutated suite failed three times ({test})", 1)
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    atomic_write(cache, json.dumps({"key": key, "passed": True, "seconds": round(base_s, 1)}) + "\n")
    return base_s, False


def changed_lines(m):
    """The source lines a mutation changes (those of its snippet that its
    replacement does not keep), at least one."""
    f, r = m["find"].split("\n"), m["repl"].split("\n")
    head = 0
    while head < min(len(f), len(r)) and f[head] == r[head]:
        head += 1
    tail = 0
    while tail < min(len(f), len(r)) - head and f[-1 - tail] == r[-1 - tail]:
        tail += 1
    last = max(len(f) - tail - 1, head)
    return list(range(m["src_line"] + head, m["src_line"] + last + 1))


def glob_matcher(glob):
    """A test name matcher for a Criterion filter of @(...), * and ?
    (the list's focus filters); None for any other."""
    if glob is None or re.search(r"[!+*?]\(", glob):
        return None
    out = ""
    for c in glob:
        out += {"@": "", "(": "(?:", ")": ")", "|": "|", "*": ".*", "?": "."}.get(c, re.escape(c))
    rx = re.compile("^(?:" + out + ")$")
    return lambda name: bool(rx.match(name))


QUICK_S = 2.0


def run_mutant(m, w, builder, cmap, limit, jobs, rules):
    """Plants m in worker w's tree, builds it and runs its tests: the
    coverage map's (cmap) for its lines, the focus suites' first, or with
    no map the whole suite (focus, then the rest). limit: seconds per
    run, None for 3 x the map's seconds of the run's tests + 30 s."""
    t0 = time.monotonic()
    row = {"id": m["id"], "file": m["file"], "line": m["src_line"], "why": m["why"],
           "caught_by": "", "stage": "", "build_s": 0.0, "test_s": 0.0, "flaky": "",
           "selected": "", "selection": "", "wall_s": 0.0}
    if rules:
        row.update({k: m[k] for k in RULE_COLS})
    if cmap is None:
        stages = ([("focus", m["focus"], limit), ("rest", "!(%s)" % m["focus"], limit)]
                  if m["focus"] else [("suite", None, limit)])
    else:
        sel, hows = set(), set()
        for ln in changed_lines(m):
            t, how = cmap.select(m["file"], ln)
            sel.update(t)
            hows.add(how)
        row["selected"], row["selection"] = len(sel), "+".join(sorted(hows))
        if not sel:
            row["status"] = "no-coverage"
            row["wall_s"] = time.monotonic() - t0
            return row
        names = [cmap.tests[i] for i in sorted(sel)]
        secs = {n: cmap.seconds[i] for n, i in zip(names, sorted(sel))}
        focus = glob_matcher(m["focus"]) or (lambda n: False)
        # the focus suites' tests first, then the others; of each, those
        # that took at most QUICK_S seconds in the map first (Criterion
        # runs a filter's tests in its own order, a slow suite's first)
        stages = []
        for stage, group in (("focus", [n for n in names if focus(n)]),
                             ("rest", [n for n in names if not focus(n)])):
            for part in ([n for n in group if secs[n] <= QUICK_S],
                         [n for n in group if secs[n] > QUICK_S]):
                if part:
                    stages.append((stage, "@(%s)" % "|".join(part),
                                   limit or max(60.0, 3.0 * sum(secs[n] for n in part) + 30.0)))
    control = Control(builder, w["base"], m["file"])
    path = os.path.join(w["tree"], m["file"])
    orig = open(path, encoding="utf-8").read()
    ok, row["build_s"], undo = builder.plant(w["tree"], m["file"],
                                             orig.replace(m["find"], m["repl"], 1))
    try:
        if not ok:
            row["status"] = "not-built"
        else:
            row["status"] = "survived"
            for stage, filt, lim in stages:
                verdict, test, secs = confirmed(w["tree"], control, filt, lim, row, jobs=jobs)
                row["test_s"] += secs
                if verdict != "pass":
                    row["status"] = "caught"
                    row["caught_by"] = test if verdict == "fail" else "(time limit)"
                    row["stage"] = stage
                    break
    finally:
        builder.unplant(w["tree"], undo)
        control.restore()
    row["wall_s"] = time.monotonic() - t0
    return row


# Suites whose tests measure wall-clock time (timing, the planted
# slowdowns, the A/B verdicts): on a busy machine they can fail whatever
# the code, so their catches are worth checking again (--recheck).
WALLCLOCK = ("ab::", "testhook::", "timing::")

CSV_COLS = ["id", "file", "line", "status", "caught_by", "stage", "build_s", "test_s",
            "failed_alone_passed", "why"]
# a rule mutant's row also has its rule and the changed line, before and after
RULE_COLS = ["rule", "before", "after"]
# and, run with the coverage map, how many tests reach its lines, how the
# map chose them (line, function or file-scope) and its wall-clock seconds
SEL_COLS = ["selected", "selection", "wall_s"]

SURVIVORS = os.path.join(ROOT, "tests", "mutation-survivors.txt")
SURVIVOR_CLASSES = ("gap", "unreachable", "equivalent")


def read_report(out):
    """The rows and meta of a report written by write_report."""
    rows = []
    with open(os.path.join(out, "mutation.csv"), encoding="utf-8") as fp:
        for r in csv.DictReader(fp):
            row = {"id": r["id"], "file": r["file"], "line": int(r["line"]),
                   "status": r["status"], "caught_by": r["caught_by"],
                   "stage": r["stage"], "build_s": float(r["build_s"]),
                   "test_s": float(r["test_s"]), "flaky": r["failed_alone_passed"],
                   "why": r["why"]}
            for k in RULE_COLS + SEL_COLS:
                if k in r:
                    row[k] = r[k]
            if row.get("wall_s"):
                row["wall_s"] = float(row["wall_s"])
            rows.append(row)
    with open(os.path.join(out, "mutation.meta.json"), encoding="utf-8") as fp:
        return rows, json.load(fp)


def atomic_write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as fp:
        fp.write(text)
        fp.flush()
        os.fsync(fp.fileno())
    os.replace(tmp, path)


def git_facts():
    def git(*a):
        p = subprocess.run(["git"] + list(a), cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        return p.stdout.decode().strip() if p.returncode == 0 else ""
    return git("rev-parse", "HEAD") or "unknown", bool(git("status", "--porcelain"))


def parse_survivors(path):
    """{id: {"class", "why"}}: the classes of the rule mutants that
    survived, from path (blocks of `id`, `class` and `why` lines; see the
    file's head)."""
    notes, cur = {}, None
    if not os.path.exists(path):
        return notes
    with open(path, encoding="utf-8") as fp:
        for lineno, raw in enumerate(fp, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = re.match(r"^(id|class|why)\s+(.*)$", line)
            if not m:
                die(f"{path}:{lineno}: expected 'id', 'class' or 'why', got: {line}")
            key, val = m.group(1), m.group(2).strip()
            if key == "id":
                if val in notes:
                    die(f"{path}:{lineno}: mutant {val} classified twice")
                cur = notes[val] = {"line": lineno}
            elif cur is None:
                die(f"{path}:{lineno}: '{key}' before any 'id'")
            elif key == "class":
                if val not in SURVIVOR_CLASSES:
                    die(f"{path}:{lineno}: class '{val}' is not one of "
                        + ", ".join(SURVIVOR_CLASSES))
                cur["class"] = val
            else:
                cur["why"] = cur["why"] + " " + val if "why" in cur else val
    for i, n in notes.items():
        for k in ("class", "why"):
            if k not in n:
                die(f"{path}:{n['line']}: mutant {i} has no '{k}'")
    return notes


def score(rows, notes=None):
    """The counts of a report's rows; with notes, its survivors by class
    and the score of the mutants that are not equivalent."""
    scored = [r for r in rows if r["status"] not in ("not-built", "no-coverage")]
    caught = sum(r["status"] == "caught" for r in scored)
    x = {"mutations": len(rows), "scored": len(scored), "caught": caught,
         "survived": sum(r["status"] == "survived" for r in rows),
         "not_built": sum(r["status"] == "not-built" for r in rows),
         "no_coverage": sum(r["status"] == "no-coverage" for r in rows),
         "score_pct": round(100.0 * caught / max(len(scored), 1), 1), "csv_rows": len(rows)}
    if notes is not None:
        surv = [r for r in rows if r["status"] == "survived"]
        for c in SURVIVOR_CLASSES:
            x[c] = sum(notes.get(r["id"], {}).get("class") == c for r in surv)
        x["unclassified"] = sum(r["id"] not in notes for r in surv)
        x["score_non_equivalent_pct"] = round(
            100.0 * caught / max(len(scored) - x["equivalent"], 1), 1)
    return x


def id_key(i):
    """A rule mutant's id (FILE:LINE:COL:RULE) as a sort key: source order."""
    f, line, col, rule = i.rsplit(":", 3)
    return (f, int(line), int(col), rule)


def write_report(out, muts, rows, meta):
    os.makedirs(out, exist_ok=True)
    rules = "rules" in meta
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    sel = any("selected" in r for r in rows)
    w.writerow(CSV_COLS + (RULE_COLS if rules else []) + (SEL_COLS if sel else []))
    for r in rows:
        w.writerow([r["id"], r["file"], r["line"], r["status"], r["caught_by"], r["stage"],
                    "%.1f" % r["build_s"], "%.1f" % r["test_s"], r["flaky"], r["why"]]
                   + ([r.get(k, "") for k in RULE_COLS] if rules else [])
                   + ([r.get("selected", ""), r.get("selection", ""),
                       "%.1f" % float(r.get("wall_s") or 0)] if sel else []))
    atomic_write(os.path.join(out, "mutation.csv"), buf.getvalue())
    if rules:
        notes = parse_survivors(SURVIVORS)
        meta.update(score(rows, notes))
        md = rules_md(meta, rows, notes)
    else:
        md = list_md(meta, muts, rows)
    atomic_write(os.path.join(out, "mutation.meta.json"), json.dumps(meta, indent=2) + "\n")
    atomic_write(os.path.join(out, "mutation.md"), "\n".join(md) + "\n")


def by_file_table(rows):
    md = ["| file | mutations | caught |", "| --- | ---: | ---: |"]
    files = {}
    for r in rows:
        if r["status"] in ("not-built", "no-coverage"):
            continue
        f = files.setdefault(r["file"], [0, 0])
        f[0] += 1
        f[1] += r["status"] == "caught"
    for f, (n, c) in sorted(files.items()):
        md.append(f"| {f} | {n} | {c} |")
    return md


def list_md(meta, muts, rows):
    by_id = {m["id"]: m for m in muts}
    md = ["# Mutation run", "",
          f"At commit `{meta['commit'][:12]}`{' (with uncommitted changes)' if meta['dirty'] else ''}, "
          f"{meta['date']}, on {meta['host_cpu']}: `{meta['command']}`.", "",
          f"**{meta['caught']} of {meta['scored']} mutations caught "
          f"({meta['score_pct']:.1f} %)**; {meta['survived']} survived, "
          f"{meta['not_built']} did not build (not scored). "
          f"Unmutated suite: {meta['baseline_s']:.0f} s."
          + (f" The catches by wall-clock tests ({', '.join(meta['rechecked'])}) were run "
             f"again with the strict confirmation on {meta['recheck_date']}: "
             f"`{meta['recheck_command']}`." if meta.get("rechecked") else ""), "",
          "Each mutation is one realistic bug from `tests/mutations.txt`, applied alone, built "
          "CPU-only and run through the CPU suite (`HARNESS_BIN=bin/harness bin/tests`), the "
          "tests of the mutated file first (stage `focus`), then the rest of the suite (stage "
          "`rest`). `mutation.csv` has every row with the test that caught it.", ""]
    surv = [r for r in rows if r["status"] == "survived"]
    md += ["## Surviving mutations", ""]
    if not surv:
        md += ["None.", ""]
    for r in surv:
        m = by_id[r["id"]]
        md += [f"- `{r['id']}` ({r['file']}:{r['line']}): {r['why']}",
               f"  - `{m['find'].strip()}` -> `{m['repl'].strip()}`",
               f"  - {m.get('survives', 'not explained yet')}"]
    md += ["", "## Caught, by file", ""] + by_file_table(rows)
    return md


def code(x):
    """x as inline code in Markdown (backticks inside it doubled around)."""
    return f"`` {x} ``" if "`" in x else f"`{x}`"


def rules_md(meta, rows, notes):
    ru = meta["rules"]
    part = ""
    if ru.get("part"):
        part = f", part {ru['part'][0]} of {ru['part'][1]} (every {ru['part'][1]}th mutant)"
    elif ru.get("merged_parts"):
        part = (f", run in {ru['parts']} parts ({', '.join(ru['merged_parts'])}"
                f"{'' if len(ru['merged_parts']) == ru['parts'] else ': NOT ALL OF THEM'}) "
                "and merged")
    md = ["# Mutation run: mutants made by rule", "",
          f"At commit `{meta['commit'][:12]}`{' (with uncommitted changes)' if meta['dirty'] else ''}, "
          f"{meta['date']}, on {meta['host_cpu']}: `{meta['command']}`.", "",
          (f"The mutants --only named, of the {ru['candidates']} that `tests/mutate_rules.py` "
           f"makes over {ru['files']} files." if ru.get("only") else
           f"Seed {ru['seed']}, count {ru['count']}: {ru['sample']} of the {ru['candidates']} "
           f"mutants that `tests/mutate_rules.py` makes over {ru['files']} files{part}."), "",
          f"**{meta['caught']} of {meta['scored']} mutants caught ({meta['score_pct']:.1f} %)**; "
          f"{meta['survived']} survived, {meta['not_built']} did not build (not scored)"
          + (f", {meta['no_coverage']} on lines no CPU test executes (`no coverage`, not "
             "built, not scored)" if meta.get("no_coverage") else "") + ". "
          f"Without the {meta['equivalent']} equivalent ones: **{meta['caught']} of "
          f"{meta['scored'] - meta['equivalent']} caught ({meta['score_non_equivalent_pct']:.1f} %)**. "
          f"Unmutated suite: {meta['baseline_s']:.0f} s.", ""] + timing_md(meta)
    for x in meta.get("reruns", []):
        md += [f"The {len(x['ids'])} mutants that had survived were run again at commit "
               f"`{x['commit'][:12]}`{' (with uncommitted changes)' if x['dirty'] else ''}, "
               f"{x['date']}, with the same sources and the tests added since: "
               f"`{x['command']}`; {x['caught']} of them caught. The rows and score above are "
               "after it.", ""]
    md += ["Each mutant is one change made by rule (a comparison made strict or non-strict or "
          "turned round, `==` and `!=` swapped, an integer constant or a loop bound +-1, `&&` and "
          "`||` swapped, a term of a sum dropped, an early `return`, `goto`, `break` or `continue` "
          "removed, a `!` dropped), applied alone, built CPU-only and run through the CPU suite "
          "(`HARNESS_BIN=bin/harness bin/tests`) as `make mutate` runs the hand-written list: the "
          "tests of the mutated file first (stage `focus`, the list's filter for the file), then "
          "the rest (stage `rest`). `mutation.csv` has every row with the test that caught it. "
          "The survivors' classes are `tests/mutation-survivors.txt`'s.", "",
          "## Surviving mutants, by class", ""]
    surv = [r for r in rows if r["status"] == "survived"]
    if not surv:
        md += ["None.", ""]
    titles = {"gap": "A gap in the tests (no test yet tells it from the code)",
              "unreachable": "Unreachable by a CPU test",
              "equivalent": "Equivalent (no test can tell it from the code)",
              None: "Not classified yet"}
    for c in SURVIVOR_CLASSES + (None,):
        group = [r for r in surv if notes.get(r["id"], {}).get("class") == c]
        if not group:
            continue
        md += [f"### {titles[c]}: {len(group)}", ""]
        for r in group:
            md += [f"- `{r['id']}`: {r['why']}",
                   f"  - {code(r.get('before', ''))} -> {code(r.get('after', ''))}"]
            if c:
                md.append(f"  - {notes[r['id']]['why']}")
        md.append("")
    nocov = [r for r in rows if r["status"] == "no-coverage"]
    if nocov:
        md += ["## No coverage, by file", "",
               "Mutants on lines that no CPU test executes (the coverage map's verdict; none "
               "was built or run):", ""]
        byf = {}
        for r in nocov:
            byf.setdefault(r["file"], []).append(r)
        for f, group in sorted(byf.items()):
            md.append(f"- `{f}`: " + ", ".join(
                f"line {r['line']} ({r.get('rule') or r['id'].rsplit(':', 1)[1]})"
                for r in sorted(group, key=lambda r: id_key(r["id"]))))
        md.append("")
    md += ["## Caught, by rule", "", "| rule | mutants | caught |", "| --- | ---: | ---: |"]
    rules = {}
    for r in rows:
        if r["status"] in ("not-built", "no-coverage"):
            continue
        x = rules.setdefault(r.get("rule") or r["id"].rsplit(":", 1)[1], [0, 0])
        x[0] += 1
        x[1] += r["status"] == "caught"
    for k, (n, c) in sorted(rules.items()):
        md.append(f"| {k} | {n} | {c} |")
    md += ["", "## Caught, by file", ""] + by_file_table(rows)
    md += ["", "## Left out", ""]
    whys = {}
    for f, why in sorted(ru.get("left_out", {}).items()):
        whys.setdefault(why, []).append(f)
    for why, files in sorted(whys.items()):
        md.append(f"- {why}: " + ", ".join(f"`{f}`" for f in files))
    nc = ru.get("not_compiled", {})
    if nc:
        md += ["- mutants on lines the CPU-only build does not compile (a branch of `#if` it "
               "leaves out, or a header no file of it includes), by file: "
               + ", ".join(f"`{f}` {n}" for f, n in sorted(nc.items()))]
    return md


def timing_md(meta):
    """The lines of a report's page that say how the run was made and how
    long it took (a run with the coverage map, or with the whole suite)."""
    t = meta.get("timing")
    if not t:
        return []
    how = ("each mutant ran only the tests that the coverage map says execute its lines "
           f"({t['map_tests']} tests in the map, "
           + ("cached" if t["map_cached"] else f"built in {t['map_s'] / 60:.1f} min") + ")"
           if t["selection"] == "coverage" else "each mutant ran the whole suite")
    return [f"Run on {t['workers']} workers (two mutants at once, each in its own scratch "
            f"copy): {how}. **{meta['mutations']} mutants in {t['mutants_s'] / 60:.1f} min, "
            f"{t['wall_s'] / 60:.1f} min with the preparation**; the median mutant took "
            f"{t['median_mutant_s']:.0f} s. Load average {t['loadavg_start'][0]:.1f} at the start, "
            f"{t['loadavg_end'][0]:.1f} at the end.", ""]


def parse_part(text):
    m = re.match(r"^([0-9]+)/([0-9]+)$", text or "")
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        die(f"--part '{text}': expected K/M with 1 <= K <= M (the K-th of M parts)")
    return int(m.group(1)), int(m.group(2))


def rule_mutants(tree, a, focus_of):
    """The rule mutants to run, from tree's sources: --only's ids (any
    mutant), else the sample (its --part); and the facts for the meta."""
    allm, facts, left = mutate_rules.generate(tree, focus_of)
    smp = mutate_rules.sample(allm, facts, a.seed, a.count)
    part = parse_part(a.part) if a.part else None
    info = {"generator": "tests/mutate_rules.py",
            # the module that made them (this run's, whatever --rev took)
            "generator_sha256": hashlib.sha256(
                open(os.path.abspath(mutate_rules.__file__), "rb").read()).hexdigest(),
            "seed": a.seed, "count": a.count, "candidates": len(allm),
            "files": sum(1 for x in facts.values() if x["candidates"]),
            "sample": len(smp), "sample_sha256": mutate_rules.sample_digest(smp),
            "part": list(part) if part else None, "parts": part[1] if part else 1,
            "left_out": left,
            "not_compiled": {f: x["not_compiled"] for f, x in facts.items() if x["not_compiled"]},
            "drawn": {f: sum(m["file"] == f for m in smp) for f in sorted(facts)
                      if facts[f]["candidates"]}}
    if a.only:
        info["only"] = True
        want = a.only.split(",")
        have = {m["id"]: m for m in allm}
        unknown = [i for i in want if i not in have]
        if unknown:
            die("no rule mutant " + ", ".join(unknown))
        return [have[i] for i in want], info, allm
    return (mutate_rules.part(smp, *part) if part else smp), info, allm


def merge(dirs, out):
    """Joins the reports of parts of one rule sample into out."""
    parts = [(d,) + read_report(d) for d in dirs]
    key = None
    rows, seen, runs = [], set(), []
    for d, r, m in parts:
        ru = m.get("rules")
        if not ru or not ru.get("part"):
            die(f"--merge: {d} is not the report of a part of a --rules run")
        k = (m["commit"], ru["seed"], ru["count"], ru["sample_sha256"], ru["part"][1])
        if key is None:
            key = k
        elif k != key:
            die(f"--merge: {d} is a part of another sample (commit, seed, count or parts differ)")
        if ru["part"][0] in seen:
            die(f"--merge: part {ru['part'][0]} given twice")
        seen.add(ru["part"][0])
        rows += r
        runs.append({"part": "%d/%d" % tuple(ru["part"]), "dir": d, "command": m["command"],
                     "date": m["date"], "host_cpu": m["host_cpu"],
                     "baseline_s": m["baseline_s"], "limit_s": m["limit_s"]})
    rows.sort(key=lambda r: id_key(r["id"]))
    meta = dict(parts[0][2])
    meta["rules"] = dict(meta["rules"], part=None,
                         merged_parts=["%d/%d" % (p, key[4]) for p in sorted(seen)])
    meta.update({"command": "tests/mutate.py --merge " + ",".join(dirs),
                 "date": max(r["date"] for r in runs),
                 "baseline_s": max(r["baseline_s"] for r in runs),
                 "limit_s": max(r["limit_s"] for r in runs), "parts": runs})
    meta.update(score(rows))
    write_report(out, [], rows, meta)
    print(f"mutate: merged {len(parts)} of {key[4]} parts ({meta['caught']} of "
          f"{meta['scored']} caught) into {out}")


def agree(dirs):
    """Prints, for the mutants two reports share, whether they reached the
    same verdict, a caught mutant's being the same whatever test caught
    it, and a mutant no CPU test executes (no coverage) agreeing with one
    that survived. Exit status 0 when every shared mutant agrees."""
    if len(dirs) != 2:
        die("--agree takes two report folders, DIR,DIR")
    (ra, ma), (rb, mb) = read_report(dirs[0]), read_report(dirs[1])
    b = {r["id"]: r for r in rb}

    def verdict(r):
        return "not caught" if r["status"] in ("survived", "no-coverage") else r["status"]
    shared = [(r, b[r["id"]]) for r in ra if r["id"] in b]
    differ = [(x, y) for x, y in shared if verdict(x) != verdict(y)]
    print(f"# {dirs[0]} (at {ma['commit'][:12]}) against {dirs[1]} (at {mb['commit'][:12]})\n")
    print(f"{len(shared)} mutants in both, {len(shared) - len(differ)} with the same verdict, "
          f"{len(differ)} differ\n")
    print("| mutant | " + dirs[0] + " | " + dirs[1] + " |\n| --- | --- | --- |")
    for x, y in shared:
        print(f"| `{x['id']}` | {x['status']}{' (' + x['caught_by'] + ')' if x['caught_by'] else ''}"
              f" | {y['status']}{' (' + y['caught_by'] + ')' if y['caught_by'] else ''} |")
    return 1 if differ else 0


def main():
    ap = argparse.ArgumentParser(
        description="the project's mutation run: the list's bugs, or mutants made by rule",
        epilog="make mutate MUTATE_ARGS='--rules --seed 1 --count 300' runs a seeded sample "
               "of rule mutants; --part K/M a part of it, --merge joins the parts' reports "
               "(the module's head, tests/mutate.py and tests/mutate_rules.py, says more)")
    ap.add_argument("--list", default=os.path.join(ROOT, "tests", "mutations.txt"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--scratch", default=None,
                    help="the scratch folder (default /tmp/harness-mutate-UID, a part's "
                         "with -partK-of-M)")
    ap.add_argument("--only", default=None)
    ap.add_argument("--timeout", type=float, default=0,
                    help="seconds per suite run (default: 3 x the unmutated suite, at least 300)")
    ap.add_argument("--rev", default=None,
                    help="run on this revision's sources and tests instead of the working tree's")
    ap.add_argument("--recheck", default=None, metavar="DIR",
                    help="run again, at DIR's commit, the mutations of DIR's report that a "
                         "wall-clock test caught, and rewrite the report")
    ap.add_argument("--notes", default=None, metavar="DIR",
                    help="rewrite DIR's mutation.md with the list's present explanations "
                         "(a --rules report: tests/mutation-survivors.txt's classes)")
    ap.add_argument("--check", action="store_true",
                    help="only check that the snippets fit the sources")
    ap.add_argument("--rules", action="store_true",
                    help="mutants made by rule (tests/mutate_rules.py) instead of the list's")
    ap.add_argument("--seed", type=int, default=None, help="with --rules: the sample's seed (1)")
    ap.add_argument("--count", type=int, default=None,
                    help="with --rules: how many mutants the sample has (300)")
    ap.add_argument("--part", default=None, metavar="K/M",
                    help="with --rules: run the K-th of M parts of the sample")
    ap.add_argument("--show", action="store_true",
                    help="with --rules: print the sample's mutants and stop")
    ap.add_argument("--rerun", default=None, metavar="DIR",
                    help="with a --rules report: run its survivors (or --only's) again on this "
                         "tree, whose sources must be the report's (tests added since), and "
                         "rewrite the report (--out) with their new rows")
    ap.add_argument("--merge", default=None, metavar="DIR,DIR...",
                    help="join the reports of a sample's parts into --out")
    ap.add_argument("--whole", action="store_true",
                    help="run the whole suite on every mutant instead of the tests the coverage "
                         "map selects for its lines")
    ap.add_argument("--workers", type=int, default=2,
                    help="mutants run at once, each in its own scratch copy (2)")
    ap.add_argument("--agree", default=None, metavar="DIR,DIR",
                    help="compare the verdicts of two reports on the mutants they share (a run "
                         "with the coverage map against one with the whole suite)")
    a = ap.parse_args()
    if a.workers < 1:
        die(f"--workers {a.workers}: expected 1 or more")
    if a.agree:
        return agree(a.agree.split(","))

    rules_dir = os.path.join(ROOT, "results", "dev-cpu", "mutation-rules")
    if a.merge:
        merge(a.merge.split(","), a.out or rules_dir)
        return 0
    if not a.rules and (a.seed is not None or a.count is not None or a.part or a.show):
        die("--seed, --count, --part and --show go with --rules")
    a.seed = 1 if a.seed is None else a.seed
    a.count = 300 if a.count is None else a.count
    if a.count < 1:
        die(f"--count {a.count}: expected a number of mutants, 1 or more")
    if a.part:
        parse_part(a.part)

    muts = parse_list(a.list)
    all_muts = muts
    if check_snippets(muts, ROOT):
        die("the list does not fit the sources (above)")
    # a rule mutant's focus: the list's for its file
    focus_of = {}
    for m in all_muts:
        if m["focus"] and m["file"] not in focus_of:
            focus_of[m["file"]] = m["focus"]
    if a.check and not a.rules:
        print(f"mutate: {len(muts)} mutations, every snippet found once")
        return 0
    if a.notes:
        rows, meta = read_report(a.notes)
        write_report(a.notes, all_muts, rows, meta)
        print(f"mutate: rewrote {a.notes}/mutation.md with the "
              + ("survivors' classes" if "rules" in meta else "list's explanations"))
        return 0
    if a.rules and (a.check or a.show):
        sel, info, allm = rule_mutants(ROOT, a, focus_of)
        if a.show:
            for m in sel:
                print(f"{m['id']}: {m['why']}\n  - {m['before']}\n  + {m['after']}")
        bad = check_snippets(sel, ROOT)
        bad += sum(m["find"] == m["repl"] for m in sel)
        if bad:
            die("the rule mutants do not fit the sources (above)")
        made = {m["id"] for m in allm}
        stale = sorted(set(parse_survivors(SURVIVORS)) - made)
        for i in stale:
            print(f"mutate: {os.path.relpath(SURVIVORS, ROOT)} classifies {i}, which the "
                  "sources no longer make (moved or gone)", file=sys.stderr)
        print(f"mutate: {len(sel)} rule mutants of {info['candidates']} (seed {a.seed}, count "
              f"{a.count}{', part ' + a.part if a.part else ''}), every snippet found once")
        return 0
    prev_rows, prev_meta = None, None
    if a.recheck:
        prev_rows, prev_meta = read_report(a.recheck)
        a.rev = a.rev or prev_meta["commit"]
        a.out = a.recheck
        if "rules" in prev_meta:
            a.rules, a.seed, a.count = True, prev_meta["rules"]["seed"], prev_meta["rules"]["count"]
            a.part = None
        a.only = ",".join(r["id"] for r in prev_rows
                          if r["status"] == "caught" and r["caught_by"].startswith(WALLCLOCK))
        if not a.only:
            print("mutate: no catch by a wall-clock test to check again")
            return 0
    if a.rerun:
        prev_rows, prev_meta = read_report(a.rerun)
        if "rules" not in prev_meta or prev_meta["rules"].get("part"):
            die(f"--rerun: {a.rerun} is not the report of a whole --rules sample")
        # the same mutants only where the sources are the same: the tests
        # alone may have changed since the scored commit
        then, now = prev_meta["commit"], a.rev or "(the working tree)"
        d = subprocess.run(["git", "diff", "--quiet", then] + ([now] if a.rev else []) + ["--"]
                           + list(mutate_rules.SOURCE_DIRS), cwd=ROOT)
        if d.returncode != 0:
            die(f"--rerun: the sources differ from {then[:12]}'s (git diff {then[:12]} {now} -- "
                + " ".join(mutate_rules.SOURCE_DIRS) + "): its mutants are not these sources'")
        a.rules, a.seed, a.count, a.part = (True, prev_meta["rules"]["seed"],
                                            prev_meta["rules"]["count"], None)
        a.only = a.only or ",".join(r["id"] for r in prev_rows if r["status"] == "survived")
        a.out = a.out or a.rerun
        if not a.only:
            print("mutate: no survivor to run again")
            return 0
    if a.only and not a.rules:
        want = a.only.split(",")
        unknown = [i for i in want if i not in {m["id"] for m in muts}]
        if unknown:
            die("no mutation " + ", ".join(unknown))
        muts = [m for m in muts if m["id"] in want]
    if a.out:
        out = a.out
    elif a.only:
        out = None
    elif a.rules:
        out = os.path.join(rules_dir, "part-%d-of-%d" % parse_part(a.part)) if a.part else rules_dir
    else:
        out = os.path.join(ROOT, "results", "dev-cpu", "mutation")
    if a.scratch is None:
        a.scratch = "/tmp/harness-mutate-%d" % os.getuid()
        if a.part:
            a.scratch += "-part%d-of-%d" % parse_part(a.part)
    commit, dirty = git_facts()
    if a.rev:
        commit = subprocess.run(["git", "rev-parse", a.rev], cwd=ROOT, check=True,
                                stdout=subprocess.PIPE).stdout.decode().strip()
        dirty = False

    print(f"mutate: preparing {a.scratch} (copy and CPU-only build)", flush=True)
    tree = make_scratch(a.scratch, a.rev)
    rinfo = None
    if a.rules:
        # the mutants of the sources the run builds (the revision's with --rev)
        muts, rinfo, _ = rule_mutants(tree, a, focus_of)
        print(f"mutate: {len(muts)} rule mutants (seed {a.seed}, count {a.count}"
              f"{', part ' + a.part if a.part else ''}) of {rinfo['candidates']}", flush=True)
    elif check_snippets(muts, tree):
        die("the list does not fit the sources of the run (above)")
    t_start = time.monotonic()
    load_start = os.getloadavg()
    rc, log, _ = run(MAKE + TARGETS, tree)
    if rc != 0:
        print(log[-3000:], file=sys.stderr)
        die("the unmutated tree does not build", 1)
    base_s, cached_base = baseline(tree, mutate_cover.tree_key(tree, module=False))
    cmap = None
    if not a.whole:
        cmap, key, map_cached = mutate_cover.load_or_build(
            ROOT, tree, a.scratch, mutate_rules.SOURCE_DIRS,
            log=lambda t: print(t, flush=True))
    limit = a.timeout if a.timeout > 0 else max(300.0, 3.0 * base_s)
    print(f"mutate: unmutated suite passes in {base_s:.0f} s{' (cached)' if cached_base else ''}; "
          + ("limit per run %.0f s" % limit if a.whole else
             "each mutant runs the tests that reach its lines, limit 3 x their seconds + 30 s"),
          flush=True)
    builder = Builder(tree)
    workers = []
    for k in range(a.workers):
        w = {"tree": os.path.join(a.scratch, "w%d" % k, "tree"),
             "base": os.path.join(a.scratch, "w%d" % k, "base")}
        for d in (w["tree"], w["base"]):
            if os.path.exists(d):
                shutil.rmtree(d)
            shutil.copytree(tree, d, symlinks=True)
            builder.keep_programs(d)
        workers.append(w)
    jobs = 1 if a.workers > 1 else None
    t_mutants = time.monotonic()
    pool = queue.Queue()
    for w in workers:
        pool.put(w)
    lock = threading.Lock()
    done = [0]

    def one(m):
        w = pool.get()
        try:
            row = run_mutant(m, w, builder, cmap, limit if a.whole or a.timeout > 0 else None,
                             jobs, a.rules)
        finally:
            pool.put(w)
        with lock:
            done[0] += 1
            print(f"mutate: [{done[0]}/{len(muts)}] {m['id']}: {row['status']}"
                  f"{' by ' + row['caught_by'] if row['caught_by'] else ''}"
                  f" ({row['build_s']:.0f} + {row['test_s']:.0f} s"
                  f"{', %s tests (%s)' % (row['selected'], row['selection']) if cmap else ''})",
                  flush=True)
        return row

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.workers) as ex:
        rows = list(ex.map(one, muts))
    mutants_s = time.monotonic() - t_mutants
    wall_s = time.monotonic() - t_start
    timing = {"workers": a.workers, "wall_s": round(wall_s, 1), "mutants_s": round(mutants_s, 1),
              "median_mutant_s": round(statistics.median([r["wall_s"] for r in rows]), 1)
              if rows else 0.0,
              "loadavg_start": [round(x, 2) for x in load_start],
              "loadavg_end": [round(x, 2) for x in os.getloadavg()],
              "baseline_cached": cached_base}
    if cmap is not None:
        timing.update({"selection": "coverage", "map_cached": map_cached,
                       "map_s": cmap.d.get("map_s"), "map_tests": len(cmap.tests),
                       "map_key": key})
    else:
        timing["selection"] = "whole suite"
    print(f"mutate: {len(muts)} mutants in {mutants_s:.0f} s on {a.workers} workers "
          f"({wall_s:.0f} s with the preparation; median per mutant {timing['median_mutant_s']:.0f} s)",
          flush=True)

    x = score(rows)
    print(f"mutate: {x['caught']} of {x['scored']} caught ({x['score_pct']:.1f} %)")
    if out:
        cpu = ""
        try:
            for line in open("/proc/cpuinfo"):
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        except OSError:
            pass
        meta = {
            "schema": "mutation-run/1",
            "command": ("tests/mutate.py " + " ".join(sys.argv[1:])) if sys.argv[1:]
                       else "make mutate",
            "commit": commit, "dirty": dirty,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "host_cpu": cpu,
            "list": os.path.relpath(a.list, ROOT),
            "list_sha256": hashlib.sha256(open(a.list, "rb").read()).hexdigest(),
            "suite": ("HARNESS_BIN=bin/harness bin/tests --fail-fast: the focus filter, then !(focus)"
                      if a.whole else
                      "HARNESS_BIN=bin/harness bin/tests --fail-fast --jobs 1 --filter (the tests "
                      "the coverage map says reach the mutated lines): the focus suites' first"),
            "build": "the objects whose compile reads the mutated file (make NVCC='s commands) "
                     "and the programs they are part of",
            "baseline_s": round(base_s, 1), "limit_s": round(limit, 1),
        }
        if rinfo is not None:
            meta["rules"] = rinfo
        meta["timing"] = timing
        meta.update(x)
        if prev_rows is not None and a.rerun:
            again = {r["id"]: r for r in rows}
            rows = [again.get(r["id"], r) for r in prev_rows]
            reran = {"commit": commit, "dirty": dirty, "date": meta["date"],
                     "command": meta["command"], "ids": sorted(again),
                     "caught": sum(r["status"] == "caught" for r in again.values()),
                     "baseline_s": meta["baseline_s"], "limit_s": meta["limit_s"]}
            meta = dict(prev_meta)
            meta["reruns"] = prev_meta.get("reruns", []) + [reran]
            meta.update(score(rows))
            print(f"mutate: after the rerun {meta['caught']} of {meta['scored']} caught")
        elif prev_rows is not None:
            again = {r["id"]: r for r in rows}
            rows = [again.get(r["id"], r) for r in prev_rows]
            meta.update({k: prev_meta[k] for k in prev_meta
                         if k in ("command", "date", "baseline_s", "limit_s", "parts")})
            if rinfo is not None:
                meta["rules"] = prev_meta["rules"]
            meta.update({
                "rechecked": sorted(again), "recheck_command": "tests/mutate.py " + " ".join(sys.argv[1:]),
                "recheck_date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")})
            meta.update(score(rows))
            print(f"mutate: after the recheck {meta['caught']} of {meta['scored']} caught")
        write_report(out, all_muts, rows, meta)
        print(f"mutate: wrote {out}/mutation.csv, .meta.json and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
