/* keep.c - what an interrupted run keeps: its plan by row label, and its finished rows as an incomplete results file */
#define _POSIX_C_SOURCE 200809L
#include "keep.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"

void keep_init(struct keep *k, const char *out, const size_t *nrows,
	       void (*label)(void *ctx, size_t r, char *out),
	       int (*write)(void *ctx, const struct results_incomplete *inc, char *err, size_t errlen),
	       void *ctx)
{
	memset(k, 0, sizeof *k);
	k->out = out;
	k->nrows = nrows;
	k->label = label;
	k->write = write;
	k->ctx = ctx;
}

void keep_plan(struct keep *k, const char *fmt, ...)
{
	if (!k)
		return;
	if (k->nplanned == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		char (*grown)[KEEP_LABEL] = realloc(k->planned, cap * sizeof *grown);
		if (!grown)
			return;
		k->planned = grown;
		k->cap = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(k->planned[k->nplanned++], KEEP_LABEL, fmt, ap);
	va_end(ap);
}

void keep_plan_reset(struct keep *k)
{
	k->nplanned = 0;
}

bool keep_suite_starts(const char *(*name)(size_t), size_t e, const char *asked)
{
	for (size_t k = 0; k < e; k++)
		if (strcmp(name(k), name(e)) == 0)
			return false;
	return strcmp(asked, "all") == 0 || strcmp(asked, name(e)) == 0;
}

void keep_later_suites(struct keep *k, const char *(*name)(size_t), size_t count, size_t e,
		       const char *asked)
{
	char later[sizeof k->later];
	size_t n = 0;
	later[0] = '\0';
	for (size_t i = e + 1; i < count && n < sizeof later; i++)
		if (keep_suite_starts(name, i, asked))
			n += (size_t)snprintf(later + n, sizeof later - n, "%s%s",
					      n ? ", " : "suites not begun: ", name(i));
	interrupt_lock();
	memcpy(k->later, later, sizeof later);
	interrupt_unlock();
}

void keep_free(struct keep *k)
{
	free(k->planned);
	k->planned = NULL;
	k->nplanned = k->cap = 0;
}

/* Writes the nrows finished rows of k, marked incomplete by sig; what
 * happened into said. Returns the length written to said. */
static size_t keep_write(struct keep *k, size_t nrows, int sig, char *said, size_t len)
{
	const char **done = calloc(nrows, sizeof *done);
	const char **plan = calloc(k->nplanned + 1, sizeof *plan);
	const char **missing = calloc(k->nplanned + 1, sizeof *missing);
	char (*labels)[KEEP_LABEL] = calloc(nrows, sizeof *labels);
	char err[512], reason[64];
	const char *unit = k->unit ? k->unit : "row", *s = nrows == 1 ? "" : "s";
	size_t n;
	if (!done || !plan || !missing || !labels) {
		n = (size_t)snprintf(said, len, "out of memory: the %zu finished %s%s are lost", nrows,
				     unit, s);
		goto out_free;
	}
	for (size_t r = 0; r < nrows; r++) {
		k->label(k->ctx, r, labels[r]);
		done[r] = labels[r];
	}
	for (size_t p = 0; p < k->nplanned; p++)
		plan[p] = k->planned[p];
	size_t nmissing = results_missing(plan, k->nplanned, done, nrows, missing);
	snprintf(reason, sizeof reason, "interrupted by %s", interrupt_signal_name(sig));
	/* rows beyond the plan (none planned) still count as planned */
	size_t planned = k->nplanned > nrows ? k->nplanned : nrows;
	struct results_incomplete inc = { reason, unit, planned, nrows, missing, nmissing };
	/* every planned row finished: the file is whole, only not yet written */
	if (k->write(k->ctx, nmissing ? &inc : NULL, err, sizeof err) != 0)
		n = (size_t)snprintf(said, len, "the %zu finished %s%s could not be written: %s", nrows,
				     unit, s, err);
	else if (nmissing == 0)
		n = (size_t)snprintf(said, len, "wrote %s with all its %zu %s%s", k->out, nrows, unit, s);
	else
		n = (size_t)snprintf(said, len, "wrote %s with the %zu finished %s%s of %zu, marked "
				     "incomplete (its sidecar names the %zu that never ran)",
				     k->out, nrows, unit, s, planned, nmissing);
out_free:
	free(done);
	free(plan);
	free(missing);
	free(labels);
	return n < len ? n : len;
}

void keep_rows(void *ctx, int sig, char *said, size_t len)
{
	struct keep *k = ctx;
	size_t nrows = k->nrows ? *k->nrows : 0, n;
	if (k->written) {
		n = (size_t)snprintf(said, len, "%s was written whole before it", k->out);
	} else if (!k->out) {
		n = (size_t)snprintf(said, len, "no results file was asked for, nothing written");
	} else if (nrows == 0) {
		n = (size_t)snprintf(said, len, "no %s had finished, nothing written",
				     k->unit ? k->unit : "row");
		if (k->made_dir)
			rmdir(k->made_dir); /* only when it is still empty */
	} else {
		n = keep_write(k, nrows, sig, said, len);
	}
	if (k->later[0] && n < len)
		snprintf(said + n, len - n, "; %s", k->later);
}
