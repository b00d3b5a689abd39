#!/usr/bin/env python3
"""tc_sass_count.py - the instructions of each tensor-core kernel's j-loop, from its SASS.

Usage: make sass | python3 tests/nbody/tc_sass_count.py
   or: python3 tests/nbody/tc_sass_count.py DUMP   (cuobjdump -sass build/kernels/nbody/nbody_tc.cu.o)

For each tc_kernel<M, SHIFT, SPLIT> instantiation it finds the innermost loop
that holds HMMA instructions (one j-block of 8 bodies against the warp's
16 M bodies) and counts the instructions on its main path: the whole loop
less the near-pair code that a VOTE.ANY branch skips when no lane of the
warp has a near pair (the case of almost every block at large N). The
counts by kind say which pipe each instruction goes to. These are the
numbers of ceiling_sass_counts in harness/nbody/ceiling.c.
"""
import re
import sys
from collections import Counter

SPLITS = {0: "none (tc-1x)", 1: "D (tc-1xw)", 2: "W (tc-1xd)", 3: "D and W (tc-3x)"}
FP32 = {"FFMA", "FMUL", "FADD", "FMNMX", "FSETP", "FSEL", "FCHK"}


def functions(lines):
    funcs, cur = {}, None
    for line in lines:
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m and cur:
            funcs[cur].append((int(m.group(1), 16), m.group(2).strip()))
    return funcs


def target(ins):
    m = re.search(r"BRA.*?0x([0-9a-f]+)", ins)
    return int(m.group(1), 16) if m else None


def opcode(ins):
    return re.sub(r"^@!?U?P\w+\s+", "", ins).split()[0].split(".")[0]


def main_path(ins):
    at = {a: i for i, (a, _) in enumerate(ins)}
    loop = None
    for i, (a, s) in enumerate(ins):
        t = target(s)
        if t is not None and t < a and t in at:
            j = at[t]
            if any("HMMA" in x for _, x in ins[j:i + 1]) and (loop is None or i - j < loop[1] - loop[0]):
                loop = (j, i)
    if loop is None:
        return None, None
    j, i = loop
    path, k = [], j
    while k <= i:
        s = ins[k][1]
        path.append(s)
        t = target(s)
        if t is not None and t > ins[k][0] and k > 0 and "VOTE.ANY" in ins[k - 1][1]:
            k = at[t]
            continue
        k += 1
    return i - j + 1, path


def main():
    src = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    funcs = functions(src.read().split("\n"))
    print("%-4s %-16s %5s %5s %5s %5s %5s %6s %12s" %
          ("p", "split", "loop", "main", "HMMA", "MUFU", "FP32", "other", "interact/SM/clk"))
    for name, ins in sorted(funcs.items()):
        m = re.match(r"_Z9tc_kernelILi(\d)ELi(\d)ELi(\d)E", name)
        if not m or m.group(2) != "0":
            continue
        loop, path = main_path(ins)
        if path is None:
            continue
        c = Counter(opcode(s) for s in path)
        fp32 = sum(c[x] for x in FP32)
        p = 16 * int(m.group(1))
        per_clock = 4 * p * 8 / len(path)
        print("%-4d %-16s %5d %5d %5d %5d %5d %6d %12.2f" %
              (p, SPLITS[int(m.group(3))], loop, len(path), c["HMMA"], c["MUFU"], fp32,
               len(path) - fp32 - c["HMMA"] - c["MUFU"], min(per_clock, 16.0)))


if __name__ == "__main__":
    main()
