/* skips.h - variants a run could not run here: said once, in one line, and kept in its sidecar */
#ifndef HARNESS_SKIPS_H
#define HARNESS_SKIPS_H

#include <stddef.h>
#include <stdio.h>

struct json_out;
struct json_in_value;

/*
 * A run (`run`, a suite, `sph run`) that leaves out variants which cannot
 * run on this machine (no GPU, no CUDA driver, built without MPI) says so
 * once, in one line naming them and why, and its sidecar lists them as
 *
 *   "skipped": [ { "variant": "naive", "why": "no CUDA device" }, ... ]
 *
 * so that `harness compare` and `harness ab` can count what NEW's run was
 * asked for and did not measure. Names and reasons are copied (cut to the
 * field sizes); a variant is listed once, with its first reason.
 */
#define SKIPS_MAX 128

struct skips {
	size_t count;     /* variants listed (at most SKIPS_MAX) */
	size_t dropped;   /* further variants beyond SKIPS_MAX, counted only */
	char name[SKIPS_MAX][64];
	char why[SKIPS_MAX][192];
};

/* Adds variant name with reason why, unless it is listed already. */
void skips_add(struct skips *s, const char *name, const char *why);

/* How many variants were skipped (listed or not). */
size_t skips_total(const struct skips *s);

/* One line (no newline): "36 variants that cannot run here (WHY): a, b,
 * c" or, with several reasons, "38 variants that cannot run here: 36
 * (WHY): a, b; 2 (WHY2): c, d"; cut with "..." to fit len; "" when none. */
void skips_describe(const struct skips *s, char *out, size_t len);

/* Prints "PREFIXskipped DESCRIPTION" (skips_describe) and a newline to
 * fp, when anything was skipped. */
void skips_say(FILE *fp, const struct skips *s, const char *prefix);

/* One line per distinct reason, "3 variants: a, b, c (LABEL: WHY)", in
 * the order the reasons first came (the lists of `harness list` and
 * `harness sph list`, after their tables). */
void skips_say_each(FILE *fp, const struct skips *s, const char *label);

/* The "skipped" member, into an open object. */
void skips_json(struct json_out *j, const struct skips *s);

/* The "skipped" member of a sidecar (side: its parsed root) into s, empty
 * when the sidecar has none (written before it existed). Returns 0, or -1
 * when the member is there but malformed. */
int skips_from_sidecar(const struct json_in_value *side, struct skips *s);

#endif /* HARNESS_SKIPS_H */
