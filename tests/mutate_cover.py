# mutate_cover.py - the coverage map of make mutate: which CPU tests execute which source lines
"""
Once per tree, tests/mutate.py records which CPU tests execute which
lines of the sources it mutates, so that a mutant runs only the tests
that reach its line (Mull's and cargo-mutants' test selection):

- a copy of the tree is built CPU-only with gcov's instrumentation
  (CC='cc --coverage', the Makefile's own flags otherwise);
- every test of bin/tests --list runs alone (bin/tests --filter
  SUITE/NAME --jobs 1, two at a time), as make test runs it
  (HARNESS_BIN=bin/harness), with GCOV_PREFIX set to a folder of its own,
  so that the test's process and every bin/harness it starts write their
  counters there; a process that ends itself by a signal (the harness
  does after an interrupt) or by _exit first writes them too: a small
  library in LD_PRELOAD calls __gcov_dump (then __gcov_reset) before
  kill(self), raise, _exit, abort and a failed assert();
- gcov --json-format reads each test's counters (only the objects with
  a counter above zero): the lines it executed, the functions it
  entered, the objects it touched.

A mutant's tests are then, for its line L of file F:

  line         L has code (gcov counts it): the tests that executed L;
               none means `no coverage`
  function     L has no count of its own (a continued expression, a
               declaration in a body) but lies in a function of F that
               gcov knows: the tests that entered that function
  file-scope   L is outside every function (a table, a declaration, a
               struct or a prototype in a header): the tests that
               touched an object whose compile reads F (its .d file
               lists F) or, for a .c, F's header of the same stem

The map is cached in build/mutate/ under a key made of every source,
test and build file of the tree, the compiler's version and this
module: a change to any of them makes a new one.
"""
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import threading
import time

SCHEMA = "mutate-coverage/1"
KEY_DIRS = ("harness", "reference", "variants", "kernels", "tests")
KEY_FILES = ("Makefile",)
NOT_KEY = {"mutate.py", "mutate_rules.py", "mutate_cover.py", "mutations.txt",
           "mutation-survivors.txt"}
COVER_CC = "cc --coverage -Wl,-u,__gcov_dump -Wl,-u,__gcov_reset -rdynamic"

# Writes the counters before a process ends itself by a signal, _exit,
# abort or a failed assert(),
# so that they are kept; then zeroes them, so that a process that goes on
# (a signal it handles) writes the rest at its exit, added to the file.
# A signal that stops, continues or is ignored by default writes nothing
# (Criterion's workers stop themselves as they start).
SHIM_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
static void cover_dump(int sig)
{
	switch (sig) {
	case 0: case SIGSTOP: case SIGCONT: case SIGCHLD: case SIGTSTP: case SIGTTIN:
	case SIGTTOU: case SIGWINCH: case SIGURG:
		return;
	}
	void (*d)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "__gcov_dump");
	void (*r)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "__gcov_reset");
	if (d && r) {
		d();
		r();
	}
}
int kill(pid_t pid, int sig)
{
	if (pid == getpid() || pid == 0)
		cover_dump(sig);
	return (int)syscall(SYS_kill, pid, sig);
}
int raise(int sig)
{
	cover_dump(sig);
	return (int)syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
}
void _exit(int status)
{
	cover_dump(-1);
	syscall(SYS_exit_group, status);
	for (;;)
		;
}
void abort(void)
{
	cover_dump(-1);
	void (*a)(void) = (void (*)(void))dlsym(RTLD_NEXT, "abort");
	a();
	for (;;)
		;
}
void __assert_fail(const char *what, const char *file, unsigned int line, const char *fn)
{
	cover_dump(-1);
	void (*a)(const char *, const char *, unsigned int, const char *) =
		(void (*)(const char *, const char *, unsigned int, const char *))
		dlsym(RTLD_NEXT, "__assert_fail");
	a(what, file, line, fn);
	for (;;)
		;
}
"""


def tree_key(tree, extra="", module=True):
    """sha256 of the tree's source, test and build files (path and
    content; the mutation run's own files left out), the compiler's
    version, extra and (module) this module, which makes the map."""
    h = hashlib.sha256()
    files = []
    for d in KEY_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(tree, d)):
            dirnames.sort()
            for f in sorted(filenames):
                files.append(os.path.relpath(os.path.join(dirpath, f), tree))
    files += [f for f in KEY_FILES if os.path.exists(os.path.join(tree, f))]
    for f in sorted(files):
        # the mutation run's own files are no part of what the tests run
        if "__pycache__" in f or os.path.basename(f) in NOT_KEY:
            continue
        h.update(f.encode() + b"\0")
        with open(os.path.join(tree, f), "rb") as fp:
            h.update(hashlib.sha256(fp.read()).digest())
    cc = subprocess.run(["cc", "--version"], stdout=subprocess.PIPE).stdout
    h.update(cc)
    if module:
        with open(os.path.abspath(__file__), "rb") as fp:
            h.update(fp.read())
    h.update(extra.encode())
    return h.hexdigest()


def list_tests(tree):
    """SUITE/NAME of every test of tree's bin/tests, in its order."""
    p = subprocess.run(["bin/tests", "--list"], cwd=tree, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, env=dict(os.environ, HARNESS_BIN="bin/harness"))
    out, suite = [], None
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        m = re.match(r"^(\w+): \d+ tests?$", line)
        if m:
            suite = m.group(1)
            continue
        m = re.match(r"^[\u251c\u2514]\u2500\u2500 (\w+)", line)
        if m and suite:
            out.append(suite + "/" + m.group(1))
    return out


def gcda_touched(path):
    """Whether a .gcda file holds a counter above zero (GCC 12's format:
    a record of zero counters has a negative length and no data)."""
    try:
        data = open(path, "rb").read()
    except OSError:
        return False
    if len(data) < 16 or data[:4] != b"adcg":
        return True       # not a format known here: read it with gcov
    i = 16
    while i + 8 <= len(data):
        tag, length = struct.unpack_from("<Ii", data, i)
        i += 8
        if length < 0:
            continue
        if (tag & 0xff010000) == 0x01010000 and tag != 0x01000000:
            body = data[i:i + length]
            if any(body):
                return True
        i += length
    return False


def gcov_json(paths, cwd):
    """The documents of gcov --json-format for the .gcda files paths."""
    if not paths:
        return []
    p = subprocess.run(["gcov", "--json-format", "--stdout"] + paths, cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    docs = []
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if line.startswith("{"):
            docs.append(json.loads(line))
    return docs


def object_reads(tree):
    """{object: set of files its compile reads}, from the build's .d
    files (make's -MMD: the object's rule is the first)."""
    out = {}
    for dirpath, _, filenames in os.walk(os.path.join(tree, "build")):
        for f in filenames:
            if not f.endswith(".d"):
                continue
            text = open(os.path.join(dirpath, f), encoding="utf-8", errors="replace").read()
            first = text.replace("\\\n", " ").split("\n", 1)[0]
            if ":" not in first:
                continue
            obj, rest = first.split(":", 1)
            out[obj.strip()] = {os.path.normpath(w) for w in rest.split()}
    return out


class Map:
    """The coverage map: tests, their seconds, and for each source file
    the tests per line, the functions with their tests, and the objects
    with their tests and the files their compile reads."""

    def __init__(self, d):
        self.d = d
        self.tests = d["tests"]
        self.seconds = d["seconds"]
        self.lines = {f: {int(k): v for k, v in x.items()} for f, x in d["lines"].items()}
        self.exec = {f: set(v) for f, v in d["exec"].items()}
        self.funcs = d["funcs"]
        self.objects = d["objects"]
        self.deps = d["deps"]

    def select(self, file, line):
        """(tests' indices, how): how is line, function or file-scope;
        an empty list is no coverage."""
        if line in self.exec.get(file, ()):
            return sorted(self.lines.get(file, {}).get(line, [])), "line"
        inner = None
        for a, b, t in self.funcs.get(file, []):
            if a <= line <= b and (inner is None or b - a < inner[1] - inner[0]):
                inner = (a, b, t)
        if inner:
            return sorted(inner[2]), "function"
        stem, ext = os.path.splitext(file)
        reads = {file} | ({stem + ".h"} if ext == ".c" else set())
        tests = set()
        for obj, files in self.deps.items():
            if reads & set(files):
                tests.update(self.objects.get(obj, []))
        return sorted(tests), "file-scope"


def build_map(tree, scratch, sources, log=print, jobs=2):
    """Builds the coverage map of tree (a built scratch tree; it is not
    changed) in scratch/cover. sources: the source folders whose files
    the map keeps."""
    t0 = time.monotonic()
    cover = os.path.join(scratch, "cover")
    if os.path.exists(cover):
        shutil.rmtree(cover)
    shutil.copytree(tree, cover, symlinks=True,
                    ignore=lambda d, names: [n for n in names if d == tree and n in ("build", "bin")])
    log(f"mutate: coverage map: building {cover} with CC='{COVER_CC}'")
    p = subprocess.run(["nice", "-n", "10", "make", "--no-print-directory", "NVCC=", "-j%d" % jobs,
                        "CC=" + COVER_CC, "bin/harness", "bin/tests"], cwd=cover,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        raise RuntimeError("the coverage build failed:\n" + p.stdout.decode()[-3000:])
    shim = os.path.join(scratch, "cover-dump.so")
    src = shim[:-3] + ".c"
    with open(src, "w") as fp:
        fp.write(SHIM_C)
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", shim, src, "-ldl"], check=True)
    build_s = time.monotonic() - t0
    for dirpath, _, filenames in os.walk(os.path.join(cover, "build")):
        for f in filenames:
            if f.endswith(".gcda"):
                os.unlink(os.path.join(dirpath, f))
    tests = list_tests(cover)
    if not tests:
        raise RuntimeError("bin/tests --list listed no test in " + cover)
    keep = tuple(s + "/" for s in sources)

    def src_rel(doc, f):
        if os.path.isabs(f):
            f = os.path.relpath(f, doc.get("current_working_directory", cover))
        f = os.path.normpath(f)
        return f if f.startswith(keep) else None

    # the lines that carry code and the functions, from the notes files alone
    gcnos = []
    for dirpath, _, filenames in os.walk(os.path.join(cover, "build")):
        for f in filenames:
            if f.endswith(".gcno"):
                gcnos.append(os.path.relpath(os.path.join(dirpath, f), cover))
    execl, funcs = {}, {}
    for doc in gcov_json(sorted(gcnos), cover):
        for fi in doc["files"]:
            f = src_rel(doc, fi["file"])
            if f is None:
                continue
            execl.setdefault(f, set()).update(ln["line_number"] for ln in fi["lines"])
            for fn in fi["functions"]:
                funcs.setdefault(f, {}).setdefault((fn["start_line"], fn["end_line"]), set())
    deps = {o: sorted(f for f in r if f.startswith(keep)) for o, r in object_reads(cover).items()}
    lines, objects = {}, {}
    seconds, passed = [0.0] * len(tests), [False] * len(tests)
    lock = threading.Lock()
    runs = os.path.join(scratch, "cover-runs")
    if os.path.exists(runs):
        shutil.rmtree(runs)
    done = [0]
    build_root = os.path.join(cover, "build")

    def one(k):
        prefix = os.path.join(runs, str(k))
        env = dict(os.environ, HARNESS_BIN="bin/harness", HARNESS_MUTATION_RUN="1",
                   OMP_WAIT_POLICY="passive", GCOV_PREFIX=prefix, LD_PRELOAD=shim)
        s0 = time.monotonic()
        r = subprocess.run(["nice", "-n", "10", "bin/tests", "--filter", tests[k], "--jobs", "1"],
                           cwd=cover, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        secs = time.monotonic() - s0
        here = prefix + build_root
        found = []
        for dirpath, _, filenames in os.walk(here):
            for f in filenames:
                if f.endswith(".gcda"):
                    g = os.path.join(dirpath, f)
                    rel = os.path.relpath(g, here)
                    gcno = os.path.join(build_root, rel[:-5] + ".gcno")
                    # a base revision's build (harness ab's worktrees under
                    # build/ab/) is another tree's: only this tree's objects
                    if os.path.exists(gcno) and not rel.startswith("ab/") and gcda_touched(g):
                        os.link(gcno, g[:-5] + ".gcno")
                        found.append(rel)
        ran_lines, ran_funcs = {}, {}
        for doc in gcov_json(found, here):
            for fi in doc["files"]:
                f = src_rel(doc, fi["file"])
                if f is None:
                    continue
                ran_lines.setdefault(f, set()).update(
                    ln["line_number"] for ln in fi["lines"] if ln["count"] > 0)
                ran_funcs.setdefault(f, set()).update(
                    (fn["start_line"], fn["end_line"]) for fn in fi["functions"]
                    if fn["execution_count"] > 0)
        shutil.rmtree(prefix, ignore_errors=True)
        with lock:
            seconds[k], passed[k] = round(secs, 2), r.returncode == 0
            for rel in found:
                objects.setdefault("build/" + rel[:-5] + ".o", []).append(k)
            for f, s in ran_lines.items():
                per = lines.setdefault(f, {})
                for ln in s:
                    per.setdefault(ln, []).append(k)
            for f, s in ran_funcs.items():
                for ab in s:
                    funcs.setdefault(f, {}).setdefault(ab, set()).add(k)
            done[0] += 1
            if done[0] % 50 == 0 or done[0] == len(tests):
                log(f"mutate: coverage map: {done[0]} of {len(tests)} tests run "
                    f"({time.monotonic() - t0:.0f} s)")

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        for f in ex.map(one, range(len(tests))):
            pass
    shutil.rmtree(runs, ignore_errors=True)
    # a test that executed no line of the sources is possible (a script's
    # test), most of them is a map whose counters were not written
    touched = set()
    for v in objects.values():
        touched.update(v)
    idle = [t for k, t in enumerate(tests) if k not in touched]
    if len(idle) > len(tests) // 4:
        raise RuntimeError(f"{len(idle)} of {len(tests)} tests executed no line of the sources "
                           "in the coverage build: their counters were not written")
    d = {"schema": SCHEMA, "idle_tests": idle, "tests": tests, "seconds": seconds, "passed": passed,
         "build_s": round(build_s, 1), "map_s": round(time.monotonic() - t0, 1),
         "cc": COVER_CC,
         "lines": {f: {str(ln): sorted(v) for ln, v in sorted(x.items())}
                   for f, x in sorted(lines.items())},
         "exec": {f: sorted(v) for f, v in sorted(execl.items())},
         "funcs": {f: [[a, b, sorted(t)] for (a, b), t in sorted(x.items())]
                   for f, x in sorted(funcs.items())},
         "objects": {o: sorted(v) for o, v in sorted(objects.items())},
         "deps": deps}
    shutil.rmtree(cover, ignore_errors=True)
    return d


def load_or_build(root, tree, scratch, sources, log=print, rebuild=False):
    """(Map, key, cached): the map of tree's sources, from root's
    build/mutate/ cache when it holds one for the same key."""
    key = tree_key(tree)
    cache = os.path.join(root, "build", "mutate", "coverage-%s.json" % key[:16])
    if not rebuild and os.path.exists(cache):
        with open(cache, encoding="utf-8") as fp:
            d = json.load(fp)
        if d.get("schema") == SCHEMA and d.get("key") == key:
            log(f"mutate: coverage map {os.path.relpath(cache, root)} (cached, "
                f"{len(d['tests'])} tests)")
            return Map(d), key, True
    d = build_map(tree, scratch, sources, log)
    d["key"] = key
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    tmp = cache + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fp:
        json.dump(d, fp)
    os.replace(tmp, cache)
    failed = [t for t, ok in zip(d["tests"], d["passed"]) if not ok]
    log(f"mutate: coverage map of {len(d['tests'])} tests in {d['map_s']:.0f} s "
        f"(build {d['build_s']:.0f} s) -> {os.path.relpath(cache, root)}"
        + (f"; {len(failed)} failed in the coverage build: {', '.join(failed[:8])}"
           if failed else ""))
    return Map(d), key, False
