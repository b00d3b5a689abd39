/* testhook.h - switches only tests turn on: a planted slowdown of named variants */
#ifndef HARNESS_TESTHOOK_H
#define HARNESS_TESTHOOK_H

#include <stdbool.h>
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
 * wait as measured; an SPH variant's rendering frames (sph run --render)
 * take each stage PCT % longer the same way. So the variant looks exactly
 * PCT % slower with its own noise, on any device, and `harness ab` tests
 * can plant a regression in
 * the working tree's binary (ab gives BASE the environment without it).
 *
 *   HARNESS_TEST_WORK=PATTERN:MICROSECONDS[,...]
 *
 * adds a busy-wait of that many microseconds (0 < US <= 1e6), plus up to
 * 10 % drawn at random from a fixed seed, to every timed call of the
 * matching variants, before any slowdown: work whose duration is the wall
 * clock's, with a known spread, so that a test's timings do not swing with
 * how busy a shared machine is (ab gives it to both sides).
 *
 *   HARNESS_TEST_DRIFT=PATTERN:STEPS[,...]
 *
 * plants the fault the SPH timed window exists to exclude (harness sph
 * run): from the second window on, the matching SPH variants' windows do
 * not start again from the kept state but go on from where the last one
 * ended, after STEPS (1 <= STEPS <= 1e6) more untimed steps, as a timing
 * that follows the flow would; every window must then be caught ending
 * elsewhere than the first.
 *
 *   HARNESS_TEST_INTERRUPT=ROWS:SIGNAL
 *
 * sends the process SIGNAL (INT, TERM or HUP) once ROWS rows (1 <= ROWS
 * <= 1e6) of a measuring command are finished, as a user's Ctrl-C would:
 * an interruption at a moment a test can name (interrupt.h); sph physics
 * counts each checkpoint it writes as a row too, so that a test can cut
 * a run just after a named checkpoint.
 *
 * A sidecar written while a hook is active names it.
 */
#define TESTHOOK_ENABLE "HARNESS_TEST_HOOKS"
#define TESTHOOK_SLOWDOWN "HARNESS_TEST_SLOWDOWN"
#define TESTHOOK_WORK "HARNESS_TEST_WORK"
#define TESTHOOK_INTERRUPT "HARNESS_TEST_INTERRUPT"
#define TESTHOOK_DRIFT "HARNESS_TEST_DRIFT"

/* Checks the hook variables; call once at start-up. names_variant tells
 * whether a name or glob names a variant (cli_names_variant: the
 * registries are the commands' to know, not this module's). Returns 0, or
 * -1 with one line in err when the hooks are on and a variable is
 * malformed or names no variant. */
int testhook_check(bool (*names_variant)(const char *pattern), char *err, size_t errlen);

/* The planted slowdown of the variant called name, as a fraction (0.3 for
 * 30 %): the first matching entry's; 0 when the hooks are off, the
 * variable is unset or malformed, or no entry matches. */
double testhook_slowdown(const char *name);

/* The added work per call of the variant called name, in seconds; 0 as
 * for testhook_slowdown. */
double testhook_work(const char *name);

/* The planted drift of the SPH variant called name, in steps (0: none,
 * as for testhook_slowdown). */
int testhook_drift(const char *name);

/* The interruption hook: the signal to send once *rows rows are
 * finished, or 0 when the hooks are off, the variable unset or malformed
 * (testhook_check says so). */
int testhook_interrupt(size_t *rows);

/* The value of hook variable var (TESTHOOK_SLOWDOWN, TESTHOOK_WORK, TESTHOOK_DRIFT or
 * TESTHOOK_INTERRUPT) in
 * force, or NULL when the hooks are off or it is unset. */
const char *testhook_active(const char *var);

#endif /* HARNESS_TESTHOOK_H */
