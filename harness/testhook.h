/* testhook.h - switches only tests turn on: a planted slowdown of named variants */
#ifndef HARNESS_TESTHOOK_H
#define HARNESS_TESTHOOK_H

#include <stddef.h>

/*
 * The hooks are read only when HARNESS_TEST_HOOKS=1 is in the environment,
 * so a stray variable cannot distort a real measurement:
 *
 *   HARNESS_TEST_SLOWDOWN=PATTERN:PCT[,PATTERN:PCT...]
 *
 * lengthens every timing sample of the variants whose name matches PATTERN
 * (a name or fnmatch(3) glob, N-body or SPH) by PCT percent (0 < PCT <=
 * 1000): after the sample is measured (wall clock on the CPU, CUDA events
 * on the GPU), the sampler busy-waits PCT % of its duration and adds the
 * wait as measured. So the variant looks exactly PCT % slower with its own
 * noise, on any device, and `harness ab` tests can plant a regression in
 * the working tree's binary (ab passes HARNESS_TEST_* to that side only).
 * A sidecar written while a slowdown is active names it.
 */
#define TESTHOOK_ENABLE "HARNESS_TEST_HOOKS"
#define TESTHOOK_SLOWDOWN "HARNESS_TEST_SLOWDOWN"

/* Checks the hook variables; call once at start-up. Returns 0, or -1 with
 * one line in err when the hooks are on and HARNESS_TEST_SLOWDOWN is
 * malformed or names no variant. */
int testhook_check(char *err, size_t errlen);

/* The planted slowdown of the variant called name, as a fraction (0.3 for
 * 30 %): the first matching entry's; 0 when the hooks are off, the
 * variable is unset or malformed, or no entry matches. */
double testhook_slowdown(const char *name);

/* The HARNESS_TEST_SLOWDOWN value in force, or NULL when none is. */
const char *testhook_active(void);

#endif /* HARNESS_TESTHOOK_H */
