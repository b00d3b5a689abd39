/* compare.c - two results CSVs side by side: faster, slower or within the noise */
#define _POSIX_C_SOURCE 200809L
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

/* The kinds of results CSV the harness writes. */
const struct compare_kind compare_kinds[] = {
	{
		.name = "N-body",
		.slug = "nbody",
		.signature = "interactions_per_s",
		.keys = { "variant", "n", "tile_p", "threads_q", "unroll", "bodies_k", "precision",
			  "mode", "ranks" },
		.numeric = { "n", "tile_p", "threads_q", "unroll", "bodies_k", "ranks" },
		/* a row on P ranks is another measurement than one on 1 */
		.optional_key = "ranks",
		.optional_default = "1",
		.metric = { "interactions_per_s", "steps_per_s" },
		.mode_col = "mode",
		.mode_when = { "forces", "steps" },
		.unit = "interactions/s (forces rows), steps/s (steps rows)",
		.shown = { "n", "mode", "ranks" },
		.shown_heading = { "N", "mode", "P" },
		.time_col = "time_median_s",
		.samples_col = "samples",
		.reps_col = "reps_per_sample",
		.counters = { "interactions_per_s", "gflop_per_s", "steps_per_s", "pct_of_ceiling",
			      "noise_pct", "max_norm_err", "rel_l2_err", "sm_clock_end_mhz" },
	},
	{
		/* before SPH: its files have every SPH column too */
		.name = "SPH rendering",
		.slug = "sph-render",
		.signature = "overall_fps",
		.keys = { "variant", "column", "width", "height", "field_res" },
		.numeric = { "width", "height", "field_res" },
		.metric = { "overall_fps" },
		.unit = "frames/s overall (step + extraction + field + raycast); per stage new/base of ms",
		.shown = { "column", "width", "height" },
		.shown_heading = { "particles", "W", "H" },
		.details = { "extraction_ms", "field_ms", "raycast_ms" },
		.detail_heading = { "extract", "field", "raycast" },
		.noise_col = "frame_noise_pct",
		.valid_col = "render_valid",
		.time_col = "time_median_step_s",
		.samples_col = "samples",
		.counters = { "overall_fps", "physics_fps", "extraction_fps", "rendering_fps",
			      "extraction_ms", "field_ms", "raycast_ms", "frame_noise_pct",
			      "surface_particles", "image_psnr_db" },
	},
	{
		.name = "SPH",
		.slug = "sph",
		.signature = "build_ms",
		.keys = { "variant", "column" },
		/* "column" is a particle count, a name or NXxNYxNZ@L: text */
		.metric = { "steps_per_s" },
		.unit = "steps/s; per phase new/base of ms per step (lower is faster)",
		.shown = { "column" },
		.shown_heading = { "particles" },
		.details = { "build_ms", "density_ms", "force_ms", "integrate_ms" },
		.detail_heading = { "build", "density", "force", "integr" },
		.time_col = "time_median_step_s",
		.samples_col = "samples",
		.counters = { "steps_per_s", "build_ms", "density_ms", "force_ms", "integrate_ms",
			      "noise_pct", "aux_bytes_per_particle", "candidates_per_neighbour",
			      "rho_max_rel_err", "acc_max_rel_rms_err" },
	},
};
const size_t compare_kind_count = sizeof compare_kinds / sizeof compare_kinds[0];

/* Columns every kind needs besides its keys and metrics. */
static const char *const compare_common[] = { "device_name", "valid", "noise_pct" };

const struct compare_kind *compare_kind_of(const struct csv_table *t)
{
	for (size_t k = 0; k < compare_kind_count; k++)
		if (csv_table_col(t, compare_kinds[k].signature) >= 0)
			return &compare_kinds[k];
	return NULL;
}

static int compare_need_column(const struct csv_table *t, const char *col, char *err,
			       size_t errlen)
{
	if (!col || csv_table_col(t, col) >= 0)
		return 0;
	snprintf(err, errlen, "%s:%zu: no column '%s' (not a results CSV of bin/harness?)", t->path,
		 t->header_line, col);
	return -1;
}

/* The kind of t, with every column it needs. NULL with err when none fits. */
static const struct compare_kind *compare_check_columns(const struct csv_table *t, char *err,
							size_t errlen)
{
	const struct compare_kind *kind = compare_kind_of(t);
	if (!kind) {
		size_t n = (size_t)snprintf(err, errlen, "%s:%zu: not a results CSV of bin/harness (no column",
					    t->path, t->header_line);
		for (size_t k = 0; k < compare_kind_count && n < errlen; k++)
			n += (size_t)snprintf(err + n, errlen - n, "%s '%s' of %s rows",
					      k ? (k + 1 < compare_kind_count ? "," : ", nor") : "",
					      compare_kinds[k].signature, compare_kinds[k].name);
		if (n < errlen)
			snprintf(err + n, errlen - n, ")");
		return NULL;
	}
	for (size_t i = 0; kind->keys[i]; i++)
		if ((!kind->optional_key || strcmp(kind->keys[i], kind->optional_key) != 0) &&
		    compare_need_column(t, kind->keys[i], err, errlen) != 0)
			return NULL;
	for (size_t i = 0; i < sizeof compare_common / sizeof *compare_common; i++)
		if (compare_need_column(t, compare_common[i], err, errlen) != 0)
			return NULL;
	if (compare_need_column(t, kind->metric[0], err, errlen) != 0)
		return NULL;
	return kind;
}

/* A number that may be empty: NAN when it is. Returns 0 or -1 with err. */
static int compare_optional_double(const struct csv_table *t, size_t row, const char *col,
				   double *out, char *err, size_t errlen)
{
	if (csv_table_named(t, row, col)[0] == '\0') {
		*out = NAN;
		return 0;
	}
	if (csv_table_double(t, row, col, out, err, errlen) != 0)
		return -1;
	if (*out < 0 || isinf(*out)) {
		snprintf(err, errlen, "%s:%zu: column '%s': '%s' must be a finite number >= 0",
			 t->path, t->row_line[row], col, csv_table_named(t, row, col));
		return -1;
	}
	return 0;
}

/* A cell that must be one of two words; stores which (0 or 1). */
static int compare_choice(const struct csv_table *t, size_t row, const char *col,
			  const char *w0, const char *w1, int *out, char *err, size_t errlen)
{
	const char *s = csv_table_named(t, row, col);
	if (strcmp(s, w0) == 0 || strcmp(s, w1) == 0) {
		*out = strcmp(s, w1) == 0;
		return 0;
	}
	snprintf(err, errlen, "%s:%zu: column '%s': '%s' is not '%s' or '%s'", t->path,
		 t->row_line[row], col, s, w0, w1);
	return -1;
}

static bool compare_is_numeric(const struct compare_kind *kind, const char *col)
{
	for (size_t i = 0; kind->numeric[i]; i++)
		if (strcmp(kind->numeric[i], col) == 0)
			return true;
	return false;
}

static int compare_read_key(const struct compare_kind *kind, const struct csv_table *t,
			    size_t row, struct compare_key *k, char *err, size_t errlen)
{
	long long ignored;
	if (csv_table_named(t, row, kind->keys[0])[0] == '\0') {
		snprintf(err, errlen, "%s:%zu: column '%s' is empty", t->path, t->row_line[row],
			 kind->keys[0]);
		return -1;
	}
	for (k->count = 0; kind->keys[k->count]; k->count++) {
		const char *col = kind->keys[k->count];
		const bool absent = kind->optional_key && strcmp(col, kind->optional_key) == 0 &&
				    csv_table_col(t, col) < 0;
		if (!absent && compare_is_numeric(kind, col) &&
		    csv_table_long(t, row, col, &ignored, err, errlen) != 0)
			return -1;
		k->cells[k->count] = strdup(absent ? kind->optional_default : csv_table_named(t, row, col));
		if (!k->cells[k->count]) {
			snprintf(err, errlen, "%s: out of memory", t->path);
			return -1;
		}
	}
	return 0;
}

/* Reads one row's side; the figure is the one its mode selects. */
static int compare_read_side(const struct compare_kind *kind, const struct csv_table *t,
			     size_t row, struct compare_side *s, char *err, size_t errlen)
{
	int valid, alt = 0;
	s->line = t->row_line[row];
	if (compare_choice(t, row, "valid", "0", "1", &valid, err, errlen) != 0 ||
	    (kind->mode_col && compare_choice(t, row, kind->mode_col, kind->mode_when[0],
					      kind->mode_when[1], &alt, err, errlen) != 0))
		return -1;
	if (valid && kind->valid_col &&
	    compare_choice(t, row, kind->valid_col, "0", "1", &valid, err, errlen) != 0)
		return -1;
	s->valid = valid;
	if (compare_optional_double(t, row, kind->metric[alt], &s->value, err, errlen) != 0 ||
	    compare_optional_double(t, row, kind->noise_col ? kind->noise_col : "noise_pct",
				    &s->noise_pct, err, errlen) != 0 ||
	    compare_optional_double(t, row, "pct_of_ceiling", &s->pct_of_ceiling, err, errlen) != 0)
		return -1;
	for (size_t d = 0; kind->details[d]; d++)
		if (compare_optional_double(t, row, kind->details[d], &s->details[d], err, errlen) != 0)
			return -1;
	if (isnan(s->noise_pct))
		s->noise_pct = 0;
	if (!(s->value > 0))
		s->value = NAN; /* 0 or empty: not timed */
	if (!(s->pct_of_ceiling > 0))
		s->pct_of_ceiling = NAN;
	s->device_name = strdup(csv_table_named(t, row, "device_name"));
	if (!s->device_name) {
		snprintf(err, errlen, "%s: out of memory", t->path);
		return -1;
	}
	return 0;
}

static bool compare_key_eq(const struct compare_key *a, const struct compare_key *b)
{
	if (a->count != b->count)
		return false;
	for (size_t i = 0; i < a->count; i++)
		if (strcmp(a->cells[i], b->cells[i]) != 0)
			return false;
	return true;
}

/* "variant 'x' n 16384 tile_p 256 ...": a key as messages name it. */
static void compare_key_text(const struct compare_kind *kind, const struct compare_key *k,
			     char *out, size_t outlen)
{
	size_t n = 0;
	out[0] = '\0';
	for (size_t i = 0; i < k->count && n < outlen; i++)
		n += (size_t)snprintf(out + n, outlen - n, i ? " %s %s" : "%s '%s'", kind->keys[i],
				      k->cells[i]);
}

const char *compare_key_value(const struct compare_report *r, const struct compare_entry *e,
			      const char *col)
{
	for (size_t i = 0; r->kind && i < e->key.count; i++)
		if (strcmp(r->kind->keys[i], col) == 0)
			return e->key.cells[i];
	return NULL;
}

/* One file's rows, parsed. */
struct compare_rowset {
	const struct compare_kind *kind;
	struct compare_key *keys;
	struct compare_side *sides;
	bool *matched;
	size_t count;
};

static void compare_key_free(struct compare_key *k)
{
	for (size_t i = 0; i < k->count; i++)
		free(k->cells[i]);
	k->count = 0;
}

static void compare_rowset_free(struct compare_rowset *s)
{
	for (size_t i = 0; s->keys && i < s->count; i++) {
		compare_key_free(&s->keys[i]);
		free(s->sides[i].device_name);
	}
	free(s->keys);
	free(s->sides);
	free(s->matched);
	memset(s, 0, sizeof *s);
}

/* Refuses a table where two rows share a key: the join would be ambiguous. */
static int compare_check_unique(const struct csv_table *t, const struct compare_rowset *s,
				char *err, size_t errlen)
{
	for (size_t i = 0; i < s->count; i++) {
		for (size_t j = 0; j < i; j++) {
			if (!compare_key_eq(&s->keys[i], &s->keys[j]))
				continue;
			char key[512];
			compare_key_text(s->kind, &s->keys[i], key, sizeof key);
			snprintf(err, errlen, "%s:%zu: row repeats %s of line %zu", t->path,
				 s->sides[i].line, key, s->sides[j].line);
			return -1;
		}
	}
	return 0;
}

static int compare_rowset_read(const struct csv_table *t, struct compare_rowset *s, char *err,
			       size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->kind = compare_check_columns(t, err, errlen);
	if (!s->kind)
		return -1;
	size_t n = t->nrows ? t->nrows : 1;
	s->keys = calloc(n, sizeof *s->keys);
	s->sides = calloc(n, sizeof *s->sides);
	s->matched = calloc(n, sizeof *s->matched);
	if (!s->keys || !s->sides || !s->matched) {
		snprintf(err, errlen, "%s: out of memory", t->path);
		return -1;
	}
	for (; s->count < t->nrows; s->count++) {
		if (compare_read_key(s->kind, t, s->count, &s->keys[s->count], err, errlen) != 0 ||
		    compare_read_side(s->kind, t, s->count, &s->sides[s->count], err, errlen) != 0) {
			s->count++; /* so the partly filled row is freed */
			return -1;
		}
	}
	return compare_check_unique(t, s, err, errlen);
}

struct compare_judgement compare_judge(double base, double base_noise_pct, double new,
				       double new_noise_pct, double threshold_pct,
				       double min_change_pct)
{
	struct compare_judgement j = { COMPARE_UNCOMPARED, false, NAN, NAN };
	if (!(base > 0) || !(new > 0) || isinf(base) || isinf(new))
		return j;
	j.ratio = new / base;
	j.noise_pct = sqrt(base_noise_pct * base_noise_pct + new_noise_pct * new_noise_pct);
	double change = 100.0 * (j.ratio - 1.0);
	if (fabs(change) <= fmax(j.noise_pct, min_change_pct))
		j.verdict = COMPARE_SAME;
	else
		j.verdict = change > 0 ? COMPARE_FASTER : COMPARE_SLOWER;
	j.regression = j.verdict == COMPARE_SLOWER && -change > j.noise_pct + threshold_pct;
	return j;
}

/* Judges a joined pair on its raw figures and, across devices, on its
 * share of each device's ceiling. */
static void compare_judge_entry(struct compare_entry *e, const struct compare_opts *o)
{
	const struct compare_side *b = &e->base, *v = &e->new;
	e->raw = compare_judge(b->value, b->noise_pct, v->value, v->noise_pct, o->threshold_pct,
			       o->min_change_pct);
	e->ceiling = compare_judge(b->pct_of_ceiling, b->noise_pct, v->pct_of_ceiling,
				   v->noise_pct, o->threshold_pct, o->min_change_pct);
	if (!b->valid || !v->valid || e->raw.verdict == COMPARE_UNCOMPARED) {
		e->raw.verdict = e->ceiling.verdict = COMPARE_UNCOMPARED;
		e->raw.regression = e->ceiling.regression = false;
	}
	e->counts_ceiling = o->across_devices && e->ceiling.verdict != COMPARE_UNCOMPARED;
}

/* The judgement that decides the exit status for a joined pair. */
static const struct compare_judgement *compare_counting(const struct compare_entry *e)
{
	return e->counts_ceiling ? &e->ceiling : &e->raw;
}

/* Moves one file's row (key and side) into a new entry of r. */
static struct compare_entry *compare_add(struct compare_report *r, struct compare_rowset *s,
					 size_t i)
{
	struct compare_entry *e = &r->entries[r->count++];
	e->key = s->keys[i];
	memset(&s->keys[i], 0, sizeof s->keys[i]);
	return e;
}

static void compare_take_side(struct compare_side *dst, struct compare_rowset *s, size_t i)
{
	*dst = s->sides[i];
	s->sides[i].device_name = NULL;
	s->matched[i] = true;
}

/* Index in s of the row with key k, or s->count. */
static size_t compare_find(const struct compare_rowset *s, const struct compare_key *k)
{
	size_t i = 0;
	while (i < s->count && !compare_key_eq(&s->keys[i], k))
		i++;
	return i;
}

static int compare_check_devices(const struct compare_report *r, const struct compare_entry *e,
				 const char *base_path, const char *new_path, char *err,
				 size_t errlen)
{
	if (strcmp(e->base.device_name, e->new.device_name) == 0)
		return 0;
	char key[512];
	compare_key_text(r->kind, &e->key, key, sizeof key);
	snprintf(err, errlen,
		 "%s and %s were measured on different devices ('%s' vs '%s', %s); "
		 "pass --across-devices to compare them by share of each device's ceiling",
		 base_path, new_path, e->base.device_name, e->new.device_name, key);
	return -1;
}

static void compare_count(struct compare_report *r, const struct compare_entry *e)
{
	if (!e->in_new) {
		r->only_base++;
		return;
	}
	if (!e->in_base) {
		r->only_new++;
		return;
	}
	const struct compare_judgement *j = compare_counting(e);
	r->faster += j->verdict == COMPARE_FASTER;
	r->same += j->verdict == COMPARE_SAME;
	r->slower += j->verdict == COMPARE_SLOWER;
	r->uncompared += j->verdict == COMPARE_UNCOMPARED;
	r->regressions += j->regression;
}

/* The join: every base row in order (matched or not), then NEW's leftovers. */
static int compare_join(struct compare_report *r, struct compare_rowset *b,
			struct compare_rowset *v, const char *bpath, const char *vpath, char *err,
			size_t errlen)
{
	for (size_t i = 0; i < b->count; i++) {
		size_t j = compare_find(v, &b->keys[i]);
		struct compare_entry *e = compare_add(r, b, i);
		e->in_base = true;
		compare_take_side(&e->base, b, i);
		if (j == v->count)
			continue;
		e->in_new = true;
		compare_take_side(&e->new, v, j);
		if (!r->opts.across_devices &&
		    compare_check_devices(r, e, bpath, vpath, err, errlen) != 0)
			return -1;
		compare_judge_entry(e, &r->opts);
	}
	for (size_t j = 0; j < v->count; j++) {
		if (v->matched[j])
			continue;
		struct compare_entry *e = compare_add(r, v, j);
		e->in_new = true;
		compare_take_side(&e->new, v, j);
	}
	for (size_t i = 0; i < r->count; i++)
		compare_count(r, &r->entries[i]);
	return 0;
}

int compare_rows(const struct csv_table *base, const struct csv_table *new,
		 const struct compare_opts *o, struct compare_report *out, char *err,
		 size_t errlen)
{
	struct compare_rowset b, v;
	int rc = -1;
	memset(out, 0, sizeof *out);
	out->opts = *o;
	if (compare_rowset_read(base, &b, err, errlen) != 0)
		goto out_free_base;
	if (compare_rowset_read(new, &v, err, errlen) != 0)
		goto out_free_both;
	if (b.kind != v.kind) {
		snprintf(err, errlen, "%s holds %s results and %s %s results: compare files of one kind",
			 base->path, b.kind->name, new->path, v.kind->name);
		goto out_free_both;
	}
	out->kind = b.kind;
	out->entries = calloc(b.count + v.count + 1, sizeof *out->entries);
	if (!out->entries) {
		snprintf(err, errlen, "out of memory comparing %s and %s", base->path, new->path);
		goto out_free_both;
	}
	rc = compare_join(out, &b, &v, base->path, new->path, err, errlen);
out_free_both:
	compare_rowset_free(&v);
out_free_base:
	compare_rowset_free(&b);
	if (rc != 0)
		compare_report_free(out);
	return rc;
}

int compare_files(const char *base_path, const char *new_path, const struct compare_opts *o,
		  struct compare_report *out, char *err, size_t errlen)
{
	struct csv_table b = { 0 }, v = { 0 };
	char notes[2][COMPARE_NOTE_LEN];
	int rc = -1;
	memset(out, 0, sizeof *out);
	const char *paths[2] = { base_path, new_path };
	for (int k = 0; k < 2; k++) {
		if (results_pair_check(paths[k], notes[k], sizeof notes[k]) == RESULTS_PAIR_MISMATCH) {
			snprintf(err, errlen, "%s", notes[k]);
			return -1;
		}
	}
	if (csv_table_read(base_path, &b, err, errlen) == 0 &&
	    csv_table_read(new_path, &v, err, errlen) == 0)
		rc = compare_rows(&b, &v, o, out, err, errlen);
	if (rc == 0)
		memcpy(out->notes, notes, sizeof notes);
	csv_table_free(&b);
	csv_table_free(&v);
	return rc;
}

int compare_exit_status(const struct compare_report *r)
{
	return r->regressions > 0 ? COMPARE_REGRESSED : COMPARE_OK;
}

void compare_report_free(struct compare_report *r)
{
	for (size_t i = 0; r->entries && i < r->count; i++) {
		compare_key_free(&r->entries[i].key);
		free(r->entries[i].base.device_name);
		free(r->entries[i].new.device_name);
	}
	free(r->entries);
	r->entries = NULL;
	r->count = 0;
}

/* ---- printing ---------------------------------------------------------- */

/* The verdict as printed: SLOWER when it is a regression that counts. */
static const char *compare_verdict_word(const struct compare_entry *e,
					const struct compare_judgement *j)
{
	switch (j->verdict) {
	case COMPARE_SAME: return "same";
	case COMPARE_FASTER: return "faster";
	case COMPARE_SLOWER: return j->regression && compare_counting(e) == j ? "SLOWER" : "slower";
	default: return "-";
	}
}

/* Why a joined pair was not compared, or NULL when it was. */
static const char *compare_why_not(const struct compare_entry *e)
{
	if (!e->in_new)
		return "only in BASE";
	if (!e->in_base)
		return "only in NEW";
	if (!e->base.valid && !e->new.valid)
		return "invalid in both";
	if (!e->base.valid)
		return "invalid in BASE";
	if (!e->new.valid)
		return "invalid in NEW";
	if (isnan(e->base.value))
		return "not timed in BASE";
	if (isnan(e->new.value))
		return "not timed in NEW";
	return NULL;
}

/* A figure in a 10-wide cell, "-" for none. */
static void compare_num(FILE *fp, double v, const char *fmt)
{
	if (isnan(v))
		fprintf(fp, " %10s", "-");
	else
		fprintf(fp, fmt, v);
}

/* Width of the variant column: the longest name, at least 16. */
static int compare_name_width(const struct compare_report *r)
{
	size_t w = 16;
	for (size_t i = 0; i < r->count; i++)
		if (r->entries[i].key.count && strlen(r->entries[i].key.cells[0]) > w)
			w = strlen(r->entries[i].key.cells[0]);
	return (int)w;
}

/* A key cell or heading: numbers right in 9, words left in 6. */
static void compare_print_shown(FILE *fp, const struct compare_kind *kind, size_t i,
				const char *text)
{
	if (compare_is_numeric(kind, kind->shown[i]))
		fprintf(fp, " %9s", text);
	else
		fprintf(fp, " %-6s", text);
}

static void compare_print_header(FILE *fp, const struct compare_report *r)
{
	const struct compare_kind *kind = r->kind;
	bool more = r->opts.across_devices || kind->details[0];
	fprintf(fp, "%-*s", compare_name_width(r), "variant");
	for (size_t i = 0; kind->shown[i]; i++)
		compare_print_shown(fp, kind, i, kind->shown_heading[i]);
	fprintf(fp, " %10s %10s %8s %7s  %-*s", "base", "new", "new/base", "noise", more ? 8 : 0,
		"verdict");
	if (r->opts.across_devices)
		fprintf(fp, " %10s %10s %8s  %-*s", "base%ceil", "new%ceil", "new/base",
			kind->details[0] ? 8 : 0, "verdict");
	for (size_t d = 0; kind->details[d]; d++)
		fprintf(fp, " %8s", kind->detail_heading[d]);
	fputc('\n', fp);
}

/* The kind's details as new/base, "-" where a side has none. */
static void compare_print_details(FILE *fp, const struct compare_kind *kind,
				  const struct compare_entry *e)
{
	for (size_t d = 0; kind->details[d]; d++) {
		double b = e->base.details[d], v = e->new.details[d];
		compare_num(fp, b > 0 && v > 0 ? v / b : NAN, " %8.3f");
	}
}

static void compare_print_entry(FILE *fp, const struct compare_report *r,
				const struct compare_entry *e)
{
	const struct compare_kind *kind = r->kind;
	const char *why = compare_why_not(e);
	fprintf(fp, "%-*s", compare_name_width(r), e->key.cells[0]);
	for (size_t i = 0; kind->shown[i]; i++)
		compare_print_shown(fp, kind, i, compare_key_value(r, e, kind->shown[i]));
	compare_num(fp, e->in_base ? e->base.value : NAN, " %10.4g");
	compare_num(fp, e->in_new ? e->new.value : NAN, " %10.4g");
	compare_num(fp, why ? NAN : e->raw.ratio, " %8.3f");
	if (why) {
		fprintf(fp, " %7s  %s\n", "-", why);
		return;
	}
	bool more = r->opts.across_devices || kind->details[0];
	fprintf(fp, " %6.1f%%  %-*s", e->raw.noise_pct, more ? 8 : 0,
		compare_verdict_word(e, &e->raw));
	if (r->opts.across_devices) {
		compare_num(fp, e->base.pct_of_ceiling, " %9.2f%%");
		compare_num(fp, e->new.pct_of_ceiling, " %9.2f%%");
		compare_num(fp, e->ceiling.ratio, " %8.3f");
		fprintf(fp, "  %-*s", kind->details[0] ? 8 : 0,
			e->counts_ceiling ? compare_verdict_word(e, &e->ceiling)
					  : "(no ceiling: raw counts)");
	}
	compare_print_details(fp, kind, e);
	fputc('\n', fp);
}

void compare_print(FILE *fp, const struct compare_report *r, const char *base_path,
		   const char *new_path)
{
	fprintf(fp, "BASE %s%s%s%s\nNEW  %s%s%s%s\n", base_path, r->notes[0][0] ? " (" : "",
		r->notes[0], r->notes[0][0] ? ")" : "", new_path, r->notes[1][0] ? " (" : "",
		r->notes[1], r->notes[1][0] ? ")" : "");
	fprintf(fp, "%s rows; figures: %s%s\n\n", r->kind->name, r->kind->unit,
		r->opts.across_devices ? "; %ceil: share of the row's own device's ceiling" : "");
	compare_print_header(fp, r);
	for (size_t i = 0; i < r->count; i++)
		compare_print_entry(fp, r, &r->entries[i]);
	fprintf(fp, "\nsame: |new/base - 1| within max(noise, %g%%), noise = sqrt(noise_base^2 + "
		    "noise_new^2); SLOWER: slower by more than %g%% beyond the noise (a regression)%s\n",
		r->opts.min_change_pct, r->opts.threshold_pct,
		r->opts.across_devices ? "; across devices the %ceil verdict counts" : "");
	fprintf(fp, "%zu faster, %zu same, %zu slower (%zu regression%s), %zu not compared, "
		    "%zu only in BASE, %zu only in NEW\n",
		r->faster, r->same, r->slower, r->regressions, r->regressions == 1 ? "" : "s",
		r->uncompared, r->only_base, r->only_new);
}

/* ---- the command ------------------------------------------------------- */

#define COMPARE_USAGE \
	"usage: harness compare BASE.csv NEW.csv [--threshold PCT] [--min-change PCT] [--across-devices]"

static int compare_usage_error(const char *what, const char *value)
{
	if (value)
		fprintf(stderr, "harness: compare: %s '%s' (%s)\n", what, value, COMPARE_USAGE);
	else
		fprintf(stderr, "harness: compare: %s (%s)\n", what, COMPARE_USAGE);
	return COMPARE_BAD_INPUT;
}

static void compare_help(void)
{
	printf("%s\n\n"
	       "Joins the rows of two results CSVs of one kind and compares their figures:\n"
	       "  N-body rows on (variant, n, tile_p, threads_q, unroll, bodies_k, precision,\n"
	       "  mode), by interactions/s (steps/s in steps mode);\n"
	       "  SPH rows on (variant, column), by steps/s, with the per-phase times beside.\n"
	       "  same    |new/base - 1| <= max(noise, --min-change PCT (default %g)),\n"
	       "          noise = sqrt(noise_base^2 + noise_new^2) (noise_pct columns)\n"
	       "  faster / slower otherwise; SLOWER (a regression) when slower by more than\n"
	       "  --threshold PCT (default %g) beyond the noise.\n"
	       "--across-devices  allow different device_name values; also compare each row's\n"
	       "                  pct_of_ceiling, which then decides regressions.\n"
	       "A CSV whose sidecar stamps another file is refused.\n"
	       "Exit status: 0 no regression, 1 a regression, 2 bad input.\n",
	       COMPARE_USAGE, COMPARE_DEFAULT_MIN_CHANGE_PCT, COMPARE_DEFAULT_THRESHOLD_PCT);
}

/* Parses a percentage: the whole text a finite number in [0, 1000]. */
static int compare_parse_pct(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !(v >= 0 && v <= 1000))
		return -1;
	*out = v;
	return 0;
}

/* Fills opts and the two paths from argv; COMPARE_OK, COMPARE_BAD_INPUT, or -1 for --help. */
static int compare_parse_args(int argc, char **argv, struct compare_opts *o, const char **paths)
{
	int npaths = 0;
	static const char *const pct_opts[] = { "--threshold", "--min-change" };
	double *pct_dest[] = { &o->threshold_pct, &o->min_change_pct };
	o->threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT;
	o->min_change_pct = COMPARE_DEFAULT_MIN_CHANGE_PCT;
	o->across_devices = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t k = 0, len = 0;
		while (k < 2 && !(strncmp(a, pct_opts[k], len = strlen(pct_opts[k])) == 0 &&
				  (a[len] == '\0' || a[len] == '=')))
			k++;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return -1;
		if (strcmp(a, "--across-devices") == 0) {
			o->across_devices = true;
		} else if (k < 2) {
			char what[96];
			const char *v = a[len] == '=' ? a + len + 1 : (i + 1 < argc ? argv[++i] : NULL);
			snprintf(what, sizeof what, "%s needs a percentage", pct_opts[k]);
			if (!v)
				return compare_usage_error(what, NULL);
			snprintf(what, sizeof what, "%s takes a percentage in [0, 1000], not", pct_opts[k]);
			if (compare_parse_pct(v, pct_dest[k]) != 0)
				return compare_usage_error(what, v);
		} else if (a[0] == '-' && a[1] != '\0') {
			return compare_usage_error("unknown option", a);
		} else if (npaths < 2) {
			paths[npaths++] = a;
		} else {
			return compare_usage_error("one BASE and one NEW file only; extra", a);
		}
	}
	if (npaths != 2)
		return compare_usage_error("needs BASE.csv and NEW.csv", NULL);
	return COMPARE_OK;
}

int compare_command(int argc, char **argv)
{
	struct compare_opts o;
	const char *paths[2];
	char err[1024];
	struct compare_report r;
	int rc = compare_parse_args(argc, argv, &o, paths);
	if (rc < 0) {
		compare_help();
		return COMPARE_OK;
	}
	if (rc != COMPARE_OK)
		return rc;
	if (compare_files(paths[0], paths[1], &o, &r, err, sizeof err) != 0) {
		fprintf(stderr, "harness: %s\n", err);
		return COMPARE_BAD_INPUT;
	}
	compare_print(stdout, &r, paths[0], paths[1]);
	rc = compare_exit_status(&r);
	if (rc == COMPARE_REGRESSED)
		fprintf(stderr, "harness: %zu row%s slower than BASE by more than %g%% beyond the noise\n",
			r.regressions, r.regressions == 1 ? "" : "s", o.threshold_pct);
	compare_report_free(&r);
	return rc;
}
