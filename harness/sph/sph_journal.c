/* sph_journal.c - an sph run's finished rows kept in a file, and taken back by --resume */
#define _POSIX_C_SOURCE 200809L
#include "sph_journal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/atomic_file.h"
#include "../core/results.h"
#include "sph_checkpoint.h"

#define SPH_JOURNAL_MAGIC "SPHROWS1"
#define SPH_JOURNAL_NAME 32
#define SPH_JOURNAL_DEVICE 128

void sph_journal_path(const char *out, char *path, size_t len)
{
	snprintf(path, len, "%s.rows", out);
}

/* A timing result and its samples; its repetitions' too (one level). */
static void sph_journal_put_timing(struct sph_checkpoint_buf *w, const struct timing_result *t,
				   bool reps)
{
	/* a flow's row holds its moments' summary, no samples of its own */
	const size_t count = t->samples ? t->count : 0, nreps = reps && t->reps ? t->nreps : 0;
	sph_checkpoint_put(w, t, sizeof *t);
	sph_checkpoint_put_u64(w, count);
	sph_checkpoint_put(w, t->samples, count * sizeof *t->samples);
	sph_checkpoint_put_u64(w, nreps);
	for (size_t k = 0; k < nreps; k++)
		sph_journal_put_timing(w, &t->reps[k], false);
}

int sph_journal_write(const char *path, const char *args, const struct sph_row *rows, size_t n,
		      char *err, size_t errlen)
{
	struct sph_checkpoint_buf w = { 0 };
	sph_checkpoint_put(&w, SPH_JOURNAL_MAGIC, 8);
	sph_checkpoint_put_u64(&w, sph_checkpoint_binary_fnv());
	sph_checkpoint_put_u64(&w, strlen(args));
	sph_checkpoint_put(&w, args, strlen(args));
	sph_checkpoint_put_u64(&w, n);
	for (size_t r = 0; r < n; r++) {
		const struct sph_row *row = &rows[r];
		sph_checkpoint_put_str(&w, row->v->name, SPH_JOURNAL_NAME);
		sph_checkpoint_put_str(&w, row->device_name, SPH_JOURNAL_DEVICE);
		sph_checkpoint_put_str(&w, row->state_by, SPH_JOURNAL_NAME);
		sph_checkpoint_put(&w, row, sizeof *row);
		sph_journal_put_timing(&w, &row->t, true);
	}
	if (!w.failed)
		sph_checkpoint_put_u64(&w, results_fnv1a64(w.b, w.len));
	int rc = -1;
	struct atomic_file af;
	if (w.failed)
		snprintf(err, errlen, "out of memory for the journal %s", path);
	else if (atomic_file_open(&af, path, err, errlen) == 0) {
		if (fwrite(w.b, 1, w.len, af.fp) != w.len) {
			snprintf(err, errlen, "cannot write the journal %s: %s", path, strerror(errno));
			atomic_file_abort(&af);
		} else {
			rc = atomic_file_commit(&af, err, errlen);
		}
	}
	free(w.b);
	return rc;
}

/* A timing result back from r into t, its samples allocated. */
static int sph_journal_get_timing(struct sph_checkpoint_buf *r, struct timing_result *t, bool reps)
{
	sph_checkpoint_get(r, t, sizeof *t);
	t->samples = NULL;
	t->reps = NULL;
	const size_t count = (size_t)sph_checkpoint_get_u64(r);
	if (r->failed || (count && count != t->count) || count > (r->len - r->at) / sizeof(double))
		return -1;
	if (count) {
		if (!(t->samples = malloc(count * sizeof *t->samples)))
			return -1;
		sph_checkpoint_get(r, t->samples, count * sizeof *t->samples);
	}
	const size_t nreps = (size_t)sph_checkpoint_get_u64(r);
	if (r->failed || (!reps && nreps) || (nreps && nreps != t->nreps) || nreps > r->len - r->at)
		return -1;
	if (!nreps)
		t->nreps = 0;
	if (nreps && !(t->reps = calloc(nreps, sizeof *t->reps)))
		return -1;
	for (size_t k = 0; k < nreps; k++)
		if (sph_journal_get_timing(r, &t->reps[k], false) != 0) {
			t->nreps = k;
			return -1;
		}
	return 0;
}

/* The registry's variant called name, or NULL. */
static const struct sph_variant *sph_journal_variant(const char *name)
{
	for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
		if (strcmp(sph_variants[i].name, name) == 0)
			return &sph_variants[i];
	return NULL;
}

void sph_journal_free(struct sph_journal *j)
{
	for (size_t r = 0; r < j->n; r++)
		timing_result_free(&j->rows[r].t);
	free(j->rows);
	free(j->strings);
	memset(j, 0, sizeof *j);
}

int sph_journal_read(const char *path, const char *args, struct sph_journal *j, char *err,
		     size_t errlen)
{
	memset(j, 0, sizeof *j);
	snprintf(j->path, sizeof j->path, "%s", path);
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "cannot open the journal %s: %s", path, strerror(errno));
		return -1;
	}
	struct sph_checkpoint_buf b = { 0 };
	sph_checkpoint_put_file(&b, fp);
	fclose(fp);
	struct sph_checkpoint_buf r = { .b = b.b, .len = b.len };
	char magic[8];
	int rc = -1;
	uint64_t fnv = 0;
	if (b.failed || b.len < 16) {
		snprintf(err, errlen, "%s is not a journal of sph run (%s)", path, SPH_JOURNAL_FORMAT);
		goto out;
	}
	memcpy(&fnv, b.b + b.len - 8, 8);
	r.len = b.len - 8;
	sph_checkpoint_get(&r, magic, 8);
	if (memcmp(magic, SPH_JOURNAL_MAGIC, 8) != 0) {
		snprintf(err, errlen, "%s is not a journal of sph run (%s)", path, SPH_JOURNAL_FORMAT);
		goto out;
	}
	if (fnv != results_fnv1a64(b.b, b.len - 8)) {
		snprintf(err, errlen, "%s does not hash to its checksum: the file is damaged or cut",
			 path);
		goto out;
	}
	const uint64_t binary = sph_checkpoint_get_u64(&r);
	if (binary != sph_checkpoint_binary_fnv()) {
		snprintf(err, errlen, "%s was written by another build of the harness (binary %016llx, "
			 "this one %016llx): its rows are not this build's to resume",
			 path, (unsigned long long)binary,
			 (unsigned long long)sph_checkpoint_binary_fnv());
		goto out;
	}
	const size_t alen = (size_t)sph_checkpoint_get_u64(&r);
	char *theirs = alen <= r.len - r.at ? malloc(alen + 1) : NULL;
	if (theirs) {
		sph_checkpoint_get(&r, theirs, alen);
		theirs[alen] = '\0';
	}
	if (!theirs || strcmp(theirs, args) != 0) {
		snprintf(err, errlen, "%s is of another run ('%s'; this one is '%s'): --resume goes on "
			 "only with the same arguments", path, theirs ? theirs : "?", args);
		free(theirs);
		goto out;
	}
	free(theirs);
	const size_t n = (size_t)sph_checkpoint_get_u64(&r);
	const size_t per = 2 * SPH_JOURNAL_NAME + SPH_JOURNAL_DEVICE + sizeof(struct sph_row);
	if (r.failed || n > (r.len - r.at) / per ||
	    !(j->rows = calloc(n ? n : 1, sizeof *j->rows)) ||
	    !(j->strings = malloc((n ? n : 1) * SPH_JOURNAL_DEVICE))) {
		snprintf(err, errlen, "%s: its rows cannot be read (%zu)", path, n);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char name[SPH_JOURNAL_NAME], by[SPH_JOURNAL_NAME];
		char *device = j->strings + i * SPH_JOURNAL_DEVICE;
		struct sph_row *row = &j->rows[i];
		sph_checkpoint_get_str(&r, name, sizeof name);
		sph_checkpoint_get_str(&r, device, SPH_JOURNAL_DEVICE);
		sph_checkpoint_get_str(&r, by, sizeof by);
		sph_checkpoint_get(&r, row, sizeof *row);
		memset(&row->t, 0, sizeof row->t);
		const struct sph_variant *v = sph_journal_variant(name);
		const struct sph_variant *maker = sph_journal_variant(by);
		struct timing_result t;
		const int ok = sph_journal_get_timing(&r, &t, true);
		row->t = t;
		j->n = i + 1;
		row->v = v;
		row->device_name = device;
		row->state_by = maker ? maker->name : NULL;
		if (ok != 0 || !v || r.failed) {
			snprintf(err, errlen, "%s: row %zu cannot be read: the file is damaged", path, i);
			goto out;
		}
	}
	if (r.at != r.len) {
		snprintf(err, errlen, "%s: bytes after its rows: the file is damaged", path);
		goto out;
	}
	rc = 0;
out:
	free(b.b);
	if (rc != 0)
		sph_journal_free(j);
	return rc;
}

const struct sph_row *sph_journal_find(const struct sph_journal *j, const char *variant,
				       const char *column, int warm_steps)
{
	for (size_t r = 0; j && r < j->n; r++)
		if (j->rows[r].flow_to == 0 && j->rows[r].warm_steps == warm_steps &&
		    strcmp(j->rows[r].v->name, variant) == 0 &&
		    strcmp(j->rows[r].col.name, column) == 0)
			return &j->rows[r];
	return NULL;
}

/* t copied into d with samples of its own (one level of repetitions). */
static int sph_journal_copy_timing(const struct timing_result *t, struct timing_result *d)
{
	*d = *t;
	d->samples = NULL;
	d->reps = NULL;
	d->nreps = 0;
	if (t->samples) {
		if (!(d->samples = malloc((t->count ? t->count : 1) * sizeof *d->samples)))
			return -1;
		memcpy(d->samples, t->samples, t->count * sizeof *d->samples);
	}
	if (t->reps && t->nreps && !(d->reps = calloc(t->nreps, sizeof *d->reps)))
		return -1;
	for (size_t k = 0; t->reps && k < t->nreps; k++) {
		d->nreps = k + 1;
		if (sph_journal_copy_timing(&t->reps[k], &d->reps[k]) != 0)
			return -1;
	}
	return 0;
}

int sph_journal_copy(const struct sph_row *src, struct sph_row *dst)
{
	*dst = *src;
	if (sph_journal_copy_timing(&src->t, &dst->t) != 0) {
		timing_result_free(&dst->t);
		return -1;
	}
	return 0;
}
