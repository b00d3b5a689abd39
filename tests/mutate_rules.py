# mutate_rules.py - the rule-generated mutants of make mutate: C operators, constants and exits changed by rule, sampled by a seed
"""
The mutants that tests/mutate.py --rules plants, made by rule over the C
sources instead of chosen by hand:

  rel-strict     < <= > >= made non-strict or strict (< to <=, >= to >)
  rel-flip       < <= > >= turned round (< to >, <= to >=)
  eq-flip        == to != and != to ==
  const-inc/dec  an integer constant + 1 / - 1
  bound-inc/dec  a for loop's bound (the side of its condition's
                 comparison that is not a constant) + 1 / - 1
  logic-swap     && to || and || to &&
  term-drop      a term of a sum or difference dropped (a + b to a)
  return-drop, goto-drop, break-drop, continue-drop
                 an early exit statement removed (made `;`): every one
                 but the last statement of a function body (return,
                 goto), of a switch (break) or of a loop body (continue),
                 and a goto to the label that follows it
  not-drop       a logical ! dropped

over the C sources of harness/, reference/, variants/ and kernels/ (.c
and .h). Comments, string and character literals and preprocessor lines
are skipped, and so are the lines the CPU-only build does not compile (a
branch of #if that it leaves out), found by preprocessing every file the
build compiles with its own flags. Left out, with the reason in the
report: .cu and .cuh files (GPU code, not built CPU-only) and variants'
.def tables (X-macro rows of names and N lists in strings).

Each mutant fits tests/mutate.py's mechanism: `find`, the whole source
lines the change touches, widened with neighbouring lines until it
occurs once in its file, and `repl`, the same lines changed. Its id is
FILE:LINE:COL:RULE (the changed token's place), stable for a given
source; its focus filter is the hand-written list's for the same file,
else the suites of its unit's tests (tests/.../test_STEM.c and the test
files that include STEM.h), else none.

The sample: COUNT mutants over the files, each file's share proportional
to its code lines (lines with code outside comments and preprocessor
lines; at least one for a file that has any mutant, at most all of
them), the file's draws taking turns over its rule families in an order
shuffled by a generator seeded by the seed and the file's path, which
also picks each draw within its family: the same seed on the same
sources selects the same mutants.
"""
import bisect
import concurrent.futures
import hashlib
import os
import random
import re
import subprocess
import tempfile

SOURCE_DIRS = ("harness", "reference", "variants", "kernels")

# the reasons files are left out, by how their name ends
LEFT_OUT = {
    ".cu": "GPU code: not built CPU-only, so no CPU test runs it",
    ".cuh": "GPU code: not built CPU-only, so no CPU test runs it",
    ".def": "an X-macro table (rows of names and N lists in strings): no operator to change",
}

PUNCT = sorted("""
>>= <<= ... -> ++ -- << >> <= >= == != && || *= /= %= += -= &= ^= |= ##
{ } [ ] ( ) ; , . ? : ~ ! + - * / % & | ^ = < > #
""".split(), key=len, reverse=True)

KEYWORDS = {"return", "case", "sizeof", "goto", "else", "do", "if", "for", "while",
            "switch", "break", "continue", "default", "typedef", "static", "const",
            "struct", "union", "enum"}

INT_RE = re.compile(r"^(0[xX][0-9a-fA-F]+|[1-9][0-9]*|0)([uUlL]*)$")

REL = {"<": ("<=", ">"), "<=": ("<", ">="), ">": (">=", "<"), ">=": (">", "<=")}


class Tok:
    __slots__ = ("kind", "text", "start", "end", "line", "col")

    def __init__(self, kind, text, start, end, line, col):
        self.kind, self.text, self.start, self.end = kind, text, start, end
        self.line, self.col = line, col


def lex(text):
    """The tokens of C source text outside comments and preprocessor lines,
    and the set of lines (1-based) a preprocessor directive covers. String
    and character literals are single tokens (kind str), never changed."""
    toks, directive = [], set()
    i, n, line, bol = 0, len(text), 1, 0
    line_start = True           # only blanks so far on this line
    while i < n:
        c = text[i]
        if c == "\n":
            i += 1
            line += 1
            bol = i
            line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            if "\n" in text[i:j]:
                bol = text.rindex("\n", i, j) + 1
            i = j
            continue
        if c == "#" and line_start:
            # a directive: to the end of the line, with its continuations
            while True:
                directive.add(line)
                j = text.find("\n", i)
                if j < 0:
                    i = n
                    break
                # a comment that opens on the directive's line may run on
                k = text.find("/*", i, j)
                if k >= 0 and text.find("*/", k + 2) > j:
                    e = text.find("*/", k + 2) + 2
                    line += text.count("\n", i, e)
                    bol = text.rindex("\n", 0, e) + 1
                    i = e
                    j = text.find("\n", i)
                    if j < 0:
                        i = n
                        break
                if text[i:j].rstrip("\r").endswith("\\"):
                    i = j + 1
                    line += 1
                    bol = i
                    continue
                i = j
                break
            continue
        line_start = False
        col = i - bol + 1
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            toks.append(Tok("str", text[i:j], i, j, line, col))
            i = j
            continue
        m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text[i:i + 256])
        if m:
            toks.append(Tok("id", m.group(0), i, i + m.end(), line, col))
            i += m.end()
            continue
        m = re.match(r"\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.])*", text[i:i + 256])
        if m:
            toks.append(Tok("num", m.group(0), i, i + m.end(), line, col))
            i += m.end()
            continue
        for p in PUNCT:
            if text.startswith(p, i):
                toks.append(Tok("punct", p, i, i + len(p), line, col))
                i += len(p)
                break
        else:
            toks.append(Tok("punct", c, i, i + 1, line, col))
            i += 1
    return toks, directive


def matching(toks, i):
    """The index of the bracket that closes toks[i] ( [ or {, or len(toks)."""
    pair = {"(": ")", "[": "]", "{": "}"}
    o, c, d = toks[i].text, pair[toks[i].text], 0
    for j in range(i, len(toks)):
        if toks[j].text == o:
            d += 1
        elif toks[j].text == c:
            d -= 1
            if d == 0:
                return j
    return len(toks)


def opening(toks, j):
    """The index of the bracket that opens the ) ] or } at toks[j], or -1."""
    pair = {")": "(", "]": "[", "}": "{"}
    c, o, d = toks[j].text, pair[toks[j].text], 0
    for i in range(j, -1, -1):
        if toks[i].text == c:
            d += 1
        elif toks[i].text == o:
            d -= 1
            if d == 0:
                return i
    return -1


def is_operand_end(t):
    """Whether a binary operator may follow token t (t ends an operand)."""
    if t.kind == "id":
        return t.text not in KEYWORDS
    return t.kind in ("num", "str") or t.text in (")", "]", "++", "--")


def unary_end(toks, i):
    """The index past the unary expression at toks[i], or None."""
    n = len(toks)
    if i >= n:
        return None
    t = toks[i]
    if t.text in ("-", "+", "!", "~", "*", "&", "++", "--"):
        return unary_end(toks, i + 1)
    if t.text == "sizeof":
        if i + 1 < n and toks[i + 1].text == "(":
            return postfix_end(toks, matching(toks, i + 1) + 1)
        return unary_end(toks, i + 1)
    if t.text == "(":
        j = matching(toks, i)
        if j >= n:
            return None
        # a cast: (type) followed by an operand
        if j + 1 < n and (toks[j + 1].kind in ("id", "num", "str") or toks[j + 1].text == "(") \
                and toks[j + 1].text not in KEYWORDS:
            return unary_end(toks, j + 1)
        return postfix_end(toks, j + 1)
    if t.kind in ("id", "num", "str") and t.text not in KEYWORDS:
        return postfix_end(toks, i + 1)
    return None


def postfix_end(toks, i):
    n = len(toks)
    while i < n:
        t = toks[i].text
        if t in ("[", "("):
            i = matching(toks, i) + 1
        elif t in (".", "->") and i + 1 < n and toks[i + 1].kind == "id":
            i += 2
        elif t in ("++", "--"):
            i += 1
        else:
            break
    return i


def term_end(toks, i):
    """The index past the multiplicative term at toks[i], or None."""
    j = unary_end(toks, i)
    while j is not None and j < len(toks) and toks[j].text in ("*", "/", "%"):
        j = unary_end(toks, j + 1)
    return j


SUM_ENDS = {"+", "-", ")", "]", ";", ",", "}", "?", ":", "<", "<=", ">", ">=", "==", "!=",
            "&&", "||", "&", "|", "^", "<<", ">>", "="}


def block_kinds(toks):
    """For each { its kind: function, if, loop, switch, init or other."""
    kinds, depth = {}, 0
    for i, t in enumerate(toks):
        if t.text == "{":
            p = toks[i - 1] if i else None
            kind = "other"
            if p is None:
                kind = "other"
            elif p.text == ")":
                o = opening(toks, i - 1)
                key = toks[o - 1].text if o > 0 else ""
                kind = {"if": "if", "for": "loop", "while": "loop", "switch": "switch"}.get(
                    key, "function" if depth == 0 else "other")
            elif p.text == "else":
                kind = "if"
            elif p.text == "do":
                kind = "loop"
            elif p.text in ("=", ",", "{", "(", "return"):
                kind = "init"
            kinds[i] = kind
            depth += 1
        elif t.text == "}":
            depth = max(depth - 1, 0)
    return kinds


def candidates(path, text):
    """Every rule mutant of one file's text: dicts with the id, the rule,
    the changed span (start, end), its new text, the line and a why."""
    toks, directive = lex(text)
    kinds = block_kinds(toks)
    out = []
    n = len(toks)

    def add(i, rule, start, end, new, why):
        t = toks[i]
        out.append({"id": f"{path}:{t.line}:{t.col}:{rule}", "file": path, "rule": rule,
                    "start": start, "end": end, "new": new, "line": t.line, "why": why})

    # the stack of enclosing blocks, for the early exits
    stack = []
    for i, t in enumerate(toks):
        x = t.text
        if x == "{":
            stack.append(kinds.get(i, "other"))
        elif x == "}":
            if stack:
                stack.pop()
        if t.kind == "punct" and x in REL:
            if i and is_operand_end(toks[i - 1]):
                strict, flip = REL[x]
                add(i, "rel-strict", t.start, t.end, strict, f"`{x}` made `{strict}`")
                add(i, "rel-flip", t.start, t.end, flip, f"`{x}` turned round to `{flip}`")
        elif x in ("==", "!="):
            y = "!=" if x == "==" else "=="
            add(i, "eq-flip", t.start, t.end, y, f"`{x}` made `{y}`")
        elif x in ("&&", "||"):
            y = "||" if x == "&&" else "&&"
            add(i, "logic-swap", t.start, t.end, y, f"`{x}` made `{y}`")
        elif x == "!":
            add(i, "not-drop", t.start, t.end, "", "a `!` dropped")
        elif t.kind == "num":
            m = INT_RE.match(x)
            if m:
                digits, suffix = m.group(1), m.group(2)
                v = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)
                for rule, w in (("const-inc", v + 1), ("const-dec", v - 1)):
                    if w < 0:
                        lit = "-1"
                        if i and toks[i - 1].end == t.start and toks[i - 1].text in ("-", "+"):
                            lit = " -1"
                    elif digits[:2] in ("0x", "0X"):
                        lit = digits[:2] + ("%x" % w if digits[2:].islower() or
                                            not any(ch.isalpha() for ch in digits[2:])
                                            else "%X" % w)
                    else:
                        lit = str(w)
                    add(i, rule, t.start, t.end, lit + suffix, f"the constant {x} made {lit.strip()}{suffix}")
        elif x in ("+", "-") and i and is_operand_end(toks[i - 1]):
            j = term_end(toks, i + 1)
            if j is not None and j > i + 1 and (j >= n or toks[j].text in SUM_ENDS):
                end = toks[j - 1].end
                dropped = text[t.start:end]
                add(i, "term-drop", toks[i - 1].end, end, "",
                    "the term `%s` dropped" % " ".join(dropped.split()))
        elif x in ("return", "goto", "break", "continue"):
            # the statement, to its ; (brackets balanced)
            j, d = i, 0
            while j < n:
                if toks[j].text in ("(", "[", "{"):
                    d += 1
                elif toks[j].text in (")", "]", "}"):
                    d -= 1
                elif toks[j].text == ";" and d == 0:
                    break
                j += 1
            if j >= n:
                continue
            nxt = toks[j + 1].text if j + 1 < n else "}"
            top = stack[-1] if stack else "other"
            if nxt == "}" and ((x in ("return", "goto") and top == "function") or
                               (x == "break" and top == "switch") or
                               (x == "continue" and top == "loop")):
                continue
            if x == "goto" and j + 2 < n and i + 1 < n and toks[j + 1].text == toks[i + 1].text \
                    and toks[j + 2].text == ":":
                continue
            stmt = " ".join(text[t.start:toks[j].end].split())
            add(i, x + "-drop", t.start, toks[j].end, ";", f"the early `{stmt}` removed")
        # the loop bounds: a for's condition's comparisons
        if x == "for" and i + 1 < n and toks[i + 1].text == "(":
            close = matching(toks, i + 1)
            semis, d = [], 0
            for k in range(i + 2, close):
                if toks[k].text in ("(", "[", "{"):
                    d += 1
                elif toks[k].text in (")", "]", "}"):
                    d -= 1
                elif toks[k].text == ";" and d == 0:
                    semis.append(k)
            if len(semis) != 2:
                continue
            a, b = semis
            k = a + 1
            while k < b:
                if toks[k].text in REL and is_operand_end(toks[k - 1]):
                    # the right side, to the next && || ? or the ; (depth 0)
                    e, d = k + 1, 0
                    while e < b:
                        tt = toks[e].text
                        if tt in ("(", "["):
                            d += 1
                        elif tt in (")", "]"):
                            d -= 1
                        elif d == 0 and tt in ("&&", "||", "?", ")"):
                            break
                        e += 1
                    lo, hi = k + 1, e - 1
                    if hi >= lo and not (lo == hi and toks[lo].kind == "num"):
                        side = text[toks[lo].start:toks[hi].end]
                        simple = toks[lo].kind == "id" and postfix_end(toks, lo + 1) == hi + 1
                        base = side if simple else "(" + side + ")"
                        for rule, op in (("bound-inc", "+"), ("bound-dec", "-")):
                            add(lo, rule, toks[lo].start, toks[hi].end, f"{base} {op} 1",
                                f"the loop bound `{' '.join(side.split())}` made "
                                f"`{' '.join(base.split())} {op} 1`")
                    k = e
                k += 1
    # the lines a directive covers carry no mutant (lex skipped them)
    return out, code_lines(toks, directive)


def code_lines(toks, directive):
    return len({t.line for t in toks} - directive)


def snippet(text, start, end, new):
    """(find, repl, first line): the whole lines holding text[start:end],
    widened by neighbouring lines (below, then above, in turn) until they
    occur once in text; repl is find with the span replaced by new."""
    lines = text.split("\n")
    offs = [0]
    for ln in lines:
        offs.append(offs[-1] + len(ln) + 1)
    a = bisect.bisect_right(offs, start) - 1
    b = bisect.bisect_right(offs, max(end - 1, start)) - 1
    below = True
    while True:
        find = "\n".join(lines[a:b + 1])
        if text.count(find) == 1 or (a == 0 and b == len(lines) - 1):
            break
        if (below and b + 1 < len(lines)) or a == 0:
            b += 1
        else:
            a -= 1
        below = not below
    s = start - offs[a]
    e = end - offs[a]
    return find, find[:s] + new + find[e:], a + 1


def changed_line(text, start, end, new):
    """The source line(s) holding text[start:end], before and after the
    change, each on one line (blanks collapsed), for the report."""
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    b = len(text) if b < 0 else b
    return (" ".join(text[a:b].split()),
            " ".join((text[a:start] + new + text[end:b]).split()))


def source_files(tree):
    """(files to mutate, {file left out: reason}), paths relative to tree."""
    files, left = [], {}
    for d in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(tree, d)):
            dirnames.sort()
            for f in sorted(filenames):
                rel = os.path.relpath(os.path.join(dirpath, f), tree)
                ext = os.path.splitext(f)[1]
                if ext in (".c", ".h"):
                    files.append(rel)
                elif ext in LEFT_OUT:
                    left[rel] = LEFT_OUT[ext]
    return sorted(files), left


def build_commands(tree):
    """The CPU-only build's commands (make's dry run), as lists: (the
    compile commands, {program: its link command})."""
    p = subprocess.run(["make", "--no-print-directory", "-n", "-B", "NVCC=", "V=1",
                        "bin/harness", "bin/tests"], cwd=tree, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    cmds, links = [], {}
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        w = line.split()
        if "-c" in w and "-o" in w and w[-1].endswith(".c") and w[w.index("-o") + 1].startswith("build/"):
            cmds.append(w)
        elif len(w) > 2 and w[1] == "-o" and w[2] in ("bin/harness", "bin/tests"):
            links[w[2]] = w
    return cmds, links


def compile_commands(tree):
    """The CPU-only build's compile commands (make's dry run), as lists."""
    return build_commands(tree)[0]


def preprocessed_lines(tree, cmd, tmp):
    """{file: set of lines} that appear in cmd's preprocessed output. The
    generated build/buildinfo.h is stood in for by an empty one (tmp/inc):
    nothing tests its macros in #if, and the tree is left as it is."""
    w = [x for x in cmd if x not in ("-MMD", "-MP")]
    del w[w.index("-c")]
    o = w.index("-o")
    out = os.path.join(tmp, hashlib.sha1(cmd[-1].encode()).hexdigest() + ".i")
    w[o + 1] = out
    w.insert(o, "-E")
    w.insert(1, "-I" + os.path.join(tmp, "inc"))
    p = subprocess.run(w, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("cannot preprocess %s: %s" % (cmd[-1], p.stderr.decode()[-500:]))
    seen = {}
    cur, ln = None, 0
    marker = re.compile(r'^# (\d+) "(.*)"')
    with open(out, encoding="utf-8", errors="replace") as fp:
        for raw in fp:
            m = marker.match(raw)
            if m:
                ln = int(m.group(1))
                f = os.path.normpath(os.path.join(tree, m.group(2)))
                cur = os.path.relpath(f, tree) if f.startswith(tree + os.sep) else None
                continue
            if cur is not None and raw.strip():
                seen.setdefault(cur, set()).add(ln)
            ln += 1
    os.unlink(out)
    return seen


def compiled_lines(tree):
    """{file: set of source lines the CPU-only build compiles}, from the
    preprocessed output of every file it compiles (each with its own
    flags, from make's dry run)."""
    tree = os.path.abspath(tree)
    cmds = compile_commands(tree)
    if not cmds:
        raise RuntimeError("make -n NVCC= lists no compile command in " + tree)
    seen = {}
    with tempfile.TemporaryDirectory(prefix="mutate-rules-") as tmp:
        os.makedirs(os.path.join(tmp, "inc"))
        with open(os.path.join(tmp, "inc", "buildinfo.h"), "w") as fp:
            fp.write("/* buildinfo.h - empty: the rule mutants' preprocessing only */\n")
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            for part in ex.map(lambda c: preprocessed_lines(tree, c, tmp), cmds):
                for f, s in part.items():
                    seen.setdefault(f, set()).update(s)
    return seen


def active(text, directive, seen):
    """The lines of a file that the build compiles: the lines of the
    conditional groups (#if ... #elif/#else ... #endif) of which some code
    line appears in a preprocessed output (a line of a macro call spread
    over lines does not appear by itself, its group does)."""
    lines = text.split("\n")
    # groups: [first line, last line, parent, lines of its own]
    groups = [[1, len(lines), None, set()]]
    cur = 0
    stack = []
    for ln in sorted(directive):
        s = lines[ln - 1].lstrip()
        if not s.startswith("#"):
            continue
        word = re.match(r"#\s*(\w*)", s).group(1)
        if word in ("if", "ifdef", "ifndef"):
            groups.append([ln, None, cur, set()])
            stack.append(cur)
            cur = len(groups) - 1
        elif word in ("elif", "else") and stack:
            groups[cur][1] = ln
            groups.append([ln, None, stack[-1], set()])
            cur = len(groups) - 1
        elif word == "endif" and stack:
            groups[cur][1] = ln
            cur = stack.pop()
    owner = [0] * (len(lines) + 2)
    for g, (a, b, _, _) in enumerate(groups):
        if g == 0:
            continue
        for ln in range(a, (b or len(lines)) + 1):
            owner[ln] = g      # later (inner) groups overwrite outer ones
    live = [False] * len(groups)
    for ln in seen:
        if 0 < ln < len(owner):
            g = owner[ln]
            while g is not None and not live[g]:
                live[g] = True
                g = groups[g][2]
    live[0] = True
    ok = set()
    for ln in range(1, len(lines) + 1):
        g, alive = owner[ln], True
        while g is not None:
            alive = alive and live[g]
            g = groups[g][2]
        if alive and (owner[ln] != 0 or seen):
            ok.add(ln)
    return ok


def test_suites(tree):
    """{unit stem: set of CPU test suites of the test files that test it}:
    tests/.../test_STEM.c is STEM's, and a test file that includes STEM.h
    tests STEM too (the GPU tests, test_gpu_*, are not the CPU suite's)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(os.path.join(tree, "tests")):
        for f in filenames:
            if not f.endswith(".c") or f.startswith("test_gpu_"):
                continue
            text = open(os.path.join(dirpath, f), encoding="utf-8", errors="replace").read()
            suites = set(re.findall(r"^(?:Test|ParameterizedTest)\(\s*(\w+)\s*,", text, re.M))
            stems = set(re.findall(r'^#include "(?:[^"]*/)?(\w+)\.h"', text, re.M))
            if f.startswith("test_"):
                stems.add(f[5:-2])
            for s in stems:
                out.setdefault(s, set()).update(suites)
    return out


def generate(tree, focus_of):
    """(every mutant of the tree's sources, per-file facts, files left out).
    focus_of maps a file to the hand-written list's focus filter; a file
    it lacks has the suites of the tests of its unit (test_suites) as its
    focus, when there are any: an order that tries the likeliest tests
    first, the verdict being the whole suite's either way."""
    files, left = source_files(tree)
    seen = compiled_lines(tree)
    suites = test_suites(tree)
    allm, facts = [], {}
    for f in files:
        text = open(os.path.join(tree, f), encoding="utf-8").read()
        cands, ncode = candidates(f, text)
        _, directive = lex(text)
        ok = active(text, directive, seen.get(f, set()))
        keep = [c for c in cands if c["line"] in ok]
        facts[f] = {"code_lines": ncode, "candidates": len(keep),
                    "not_compiled": len(cands) - len(keep)}
        for c in keep:
            c["find"], c["repl"], c["src_line"] = snippet(text, c["start"], c["end"], c["new"])
            c["before"], c["after"] = changed_line(text, c["start"], c["end"], c["new"])
            stem = os.path.splitext(os.path.basename(f))[0]
            c["focus"] = focus_of.get(f) or (
                "@(%s)/*" % "|".join(sorted(suites[stem])) if suites.get(stem) else None)
        allm += keep
    ids = set()
    for c in allm:
        assert c["id"] not in ids, c["id"]
        ids.add(c["id"])
    return allm, facts, left


def shares(facts, count):
    """{file: mutants to draw}: count split over the files with mutants in
    proportion to their code lines (largest remainders), at least one
    each, at most their candidates; what a capped file cannot take goes
    to the others."""
    files = sorted(f for f, x in facts.items() if x["candidates"] > 0)
    take = {f: 0 for f in files}
    if not files or count <= 0:
        return take
    total_cands = sum(facts[f]["candidates"] for f in files)
    count = min(count, total_cands)
    for f in files[:count]:
        take[f] = 1
    left = count - sum(take.values())
    while left > 0:
        open_ = [f for f in files if take[f] < facts[f]["candidates"]]
        weight = sum(facts[f]["code_lines"] for f in open_) or 1
        quota = {f: left * facts[f]["code_lines"] / weight for f in open_}
        add = {f: min(int(quota[f]), facts[f]["candidates"] - take[f]) for f in open_}
        rest = left - sum(add.values())
        if rest > 0:
            order = sorted(open_, key=lambda f: (-(quota[f] - int(quota[f])), f))
            for f in order:
                if rest == 0:
                    break
                if take[f] + add[f] < facts[f]["candidates"]:
                    add[f] += 1
                    rest -= 1
        for f in open_:
            take[f] += add[f]
        left = count - sum(take.values())
        if not any(add.values()):
            break
    return take


# the rule families a file's draws take turns over
FAMILIES = {"rel-strict": "rel", "rel-flip": "rel", "eq-flip": "eq", "const-inc": "const",
            "const-dec": "const", "bound-inc": "bound", "bound-dec": "bound",
            "logic-swap": "logic", "term-drop": "term", "return-drop": "exit",
            "goto-drop": "exit", "break-drop": "exit", "continue-drop": "exit",
            "not-drop": "not"}


def sample(allm, facts, seed, count):
    """The seeded sample: shares() per file; a file's draws take turns
    over its rule families (comparisons, equalities, constants, loop
    bounds, && and ||, terms, exits, !) in an order shuffled by
    random.Random seeded by "SEED:FILE", each draw a mutant of its family
    picked by the same generator, so that a file with many constants
    still has its comparisons and exits drawn. In the files' order and
    each file's source order."""
    take = shares(facts, count)
    byfile = {}
    for c in allm:
        byfile.setdefault(c["file"], []).append(c)
    out = []
    for f in sorted(byfile):
        rng = random.Random(f"{seed}:{f}")
        fams = {}
        for c in byfile[f]:
            fams.setdefault(FAMILIES[c["rule"]], []).append(c)
        order = sorted(fams)
        rng.shuffle(order)
        for fam in order:
            rng.shuffle(fams[fam])
        pick, k = [], take.get(f, 0)
        while len(pick) < k:
            for fam in order:
                if fams[fam] and len(pick) < k:
                    pick.append(fams[fam].pop())
        pos = {id(c): i for i, c in enumerate(byfile[f])}
        out += sorted(pick, key=lambda c: pos[id(c)])
    return out


def part(muts, k, m):
    """The k-th (1-based) of m parts: every m-th mutant from the k-th, so
    that each part has its share of every file."""
    return muts[k - 1::m]


def sample_digest(muts):
    return hashlib.sha256("\n".join(m["id"] for m in muts).encode()).hexdigest()


def main(argv):
    """mutate_rules.py [--seed S --count N] FILE...: every mutant the rules
    make in FILEs (no build needed: the lines a build leaves out are not
    known here), or the sample of N drawn by S from them; a line each,
    ID<TAB>BEFORE<TAB>AFTER."""
    import argparse
    ap = argparse.ArgumentParser(description="the rule mutants of C files (tests/mutate.py "
                                             "--rules runs them)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=None)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args(argv)
    allm, facts = [], {}
    for f in a.files:
        text = open(f, encoding="utf-8").read()
        cands, ncode = candidates(f, text)
        for c in cands:
            c["find"], c["repl"], c["src_line"] = snippet(text, c["start"], c["end"], c["new"])
            c["before"], c["after"] = changed_line(text, c["start"], c["end"], c["new"])
        facts[f] = {"code_lines": ncode, "candidates": len(cands), "not_compiled": 0}
        allm += cands
    muts = sample(allm, facts, a.seed, a.count) if a.count is not None else allm
    for m in muts:
        print(f"{m['id']}\t{m['before']}\t{m['after']}")
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main(sys.argv[1:]))
