/* compare_table.c - compare's table: every pair and its verdict printed, why a run did not pass, and the verdicts file */
#define _POSIX_C_SOURCE 200809L
#include "compare.h"

#include <math.h>
#include <string.h>

#include "../core/json_out.h"
#include "../core/results.h"
#include "compare_judge.h"

/* ---- printing ---------------------------------------------------------- */

/* The verdict as printed: SLOWER when it is a regression that counts. */
static const char *compare_verdict_word(const struct compare_entry *e,
					const struct compare_judgement *j)
{
	switch (j->verdict) {
	case COMPARE_SAME: return e->untimed ? "valid in both" : "same";
	case COMPARE_FASTER: return "faster";
	case COMPARE_SLOWER: return j->regression && compare_counting(e) == j ? "SLOWER" : "slower";
	case COMPARE_INCONCLUSIVE: return "inconclusive";
	default: return "-";
	}
}

/* Why a joined pair was not compared, or NULL when it was. */
static const char *compare_why_not(const struct compare_entry *e)
{
	if (!e->in_new)
		return "only in BASE";
	if (!e->in_base)
		return !e->new.valid ? "only in NEW, invalid"
		       : !e->untimed && isnan(e->new.value) ? "only in NEW, not timed" : "only in NEW";
	if (!e->base.valid && !e->new.valid)
		return "invalid in both";
	if (!e->base.valid)
		return "invalid in BASE";
	if (!e->new.valid)
		return "invalid in NEW";
	if (!e->untimed && isnan(e->base.value))
		return "not timed in BASE";
	if (!e->untimed && isnan(e->new.value))
		return "not timed in NEW";
	return NULL;
}

/* What the entry says in the verdict column and the verdict file. */
static const char *compare_entry_word(const struct compare_entry *e)
{
	const char *why = compare_why_not(e);
	return why ? why : compare_verdict_word(e, compare_counting(e));
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

/* Width of shown key column i when it holds words: its longest cell or
 * heading, at least 6. */
static int compare_shown_width(const struct compare_report *r, size_t i)
{
	size_t w = strlen(r->kind->shown_heading[i]);
	for (size_t k = 0; k < r->count; k++) {
		const char *v = compare_key_value(r, &r->entries[k], r->kind->shown[i]);
		if (v && strlen(v) > w)
			w = strlen(v);
	}
	return w > 6 ? (int)w : 6;
}

/* A key cell or heading: numbers right in 9, words left in their width. */
static void compare_print_shown(FILE *fp, const struct compare_report *r, size_t i,
				const char *text)
{
	if (compare_is_numeric(r->kind, r->kind->shown[i]))
		fprintf(fp, " %9s", text);
	else
		fprintf(fp, " %-*s", compare_shown_width(r, i), text);
}

static void compare_print_header(FILE *fp, const struct compare_report *r)
{
	const struct compare_kind *kind = r->kind;
	bool more = r->opts.across_devices || kind->details[0];
	fprintf(fp, "%-*s", compare_name_width(r), "variant");
	for (size_t i = 0; kind->shown[i]; i++)
		compare_print_shown(fp, r, i, kind->shown_heading[i]);
	if (r->untimed) {
		fprintf(fp, " %-8s %-8s  verdict\n", "base", "new");
		return;
	}
	fprintf(fp, " %10s %10s %8s %7s  %-*s", "base", "new", "new/base", "resol", more ? 12 : 0,
		"verdict");
	if (r->opts.across_devices)
		fprintf(fp, " %10s %10s %8s  %-*s", "base%ceil", "new%ceil", "new/base",
			kind->details[0] ? 12 : 0, "verdict");
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
		compare_print_shown(fp, r, i, compare_key_value(r, e, kind->shown[i]));
	if (e->untimed) {
		fprintf(fp, " %-8s %-8s  %s\n", !e->in_base ? "-" : e->base.valid ? "valid" : "invalid",
			!e->in_new ? "-" : e->new.valid ? "valid" : "invalid", compare_entry_word(e));
		return;
	}
	compare_num(fp, e->in_base ? e->base.value : NAN, " %10.4g");
	compare_num(fp, e->in_new ? e->new.value : NAN, " %10.4g");
	compare_num(fp, why ? NAN : e->raw.ratio, " %8.3f");
	if (why) {
		fprintf(fp, " %7s  %s\n", "-", why);
		return;
	}
	bool more = r->opts.across_devices || kind->details[0];
	fprintf(fp, " %6.*f%%  %-*s", e->raw.resolution_pct < 1 ? 2 : 1, e->raw.resolution_pct,
		more ? 12 : 0, compare_verdict_word(e, &e->raw));
	if (r->opts.across_devices) {
		compare_num(fp, e->base.pct_of_ceiling, " %9.2f%%");
		compare_num(fp, e->new.pct_of_ceiling, " %9.2f%%");
		compare_num(fp, e->ceiling.ratio, " %8.3f");
		fprintf(fp, "  %-*s", kind->details[0] ? 12 : 0,
			e->counts_ceiling ? compare_verdict_word(e, &e->ceiling)
					  : "(no ceiling: raw counts)");
	}
	compare_print_details(fp, kind, e);
	fputc('\n', fp);
}

/* "auto N=16384 mode=forces P=1": a key as a summary names it. */
static void compare_key_short(const struct compare_report *r, const struct compare_entry *e,
			      char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "%s", e->key.cells[0]);
	for (size_t i = 0; r->kind->shown[i] && n < len; i++) {
		const char *v = compare_key_value(r, e, r->kind->shown[i]);
		if (v && v[0]) /* an empty optional key says nothing */
			n += (size_t)snprintf(out + n, len - n, " %s=%s", r->kind->shown_heading[i], v);
	}
}

/* Appends "; COUNT WHAT (row, row, row, ...)" for the entries of r that
 * pick selects, when there are any. Returns the new length. */
static size_t compare_name_rows(const struct compare_report *r,
				bool (*pick)(const struct compare_report *r, const struct compare_entry *e),
				const char *what, char *out, size_t len, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < r->count; i++)
		count += pick(r, &r->entries[i]);
	if (count == 0 || n >= len)
		return n;
	n += (size_t)snprintf(out + n, len - n, "%s%zu row%s %s (", n ? "; " : "", count,
			      count == 1 ? "" : "s", what);
	for (size_t i = 0, named = 0; i < r->count && n < len; i++) {
		if (!pick(r, &r->entries[i]))
			continue;
		char key[256];
		compare_key_short(r, &r->entries[i], key, sizeof key);
		if (named++ == 3) {
			n += (size_t)snprintf(out + n, len - n, ", ...");
			break;
		}
		n += (size_t)snprintf(out + n, len - n, "%s%s", named > 1 ? ", " : "", key);
	}
	if (n < len)
		n += (size_t)snprintf(out + n, len - n, ")");
	return n < len ? n : len - 1;
}

static bool compare_is_regression(const struct compare_report *r, const struct compare_entry *e)
{
	(void)r;
	return e->in_base && e->in_new && compare_counting(e)->regression;
}

static bool compare_is_failed_new(const struct compare_report *r, const struct compare_entry *e)
{
	(void)r;
	return e->in_new && compare_side_failed(e, &e->new) &&
	       (!e->in_base || !compare_side_failed(e, &e->base));
}

static bool compare_is_inconclusive(const struct compare_report *r, const struct compare_entry *e)
{
	(void)r;
	return e->in_base && e->in_new && compare_counting(e)->verdict == COMPARE_INCONCLUSIVE;
}

static bool compare_is_missing(const struct compare_report *r, const struct compare_entry *e)
{
	(void)r;
	return e->in_base && (!e->in_new || compare_side_failed(e, &e->base));
}

void compare_why_not_passed(const struct compare_report *r, char *out, size_t len)
{
	size_t n = 0;
	int st = compare_exit_status(r);
	char what[96];
	out[0] = '\0';
	if (st == COMPARE_OK)
		return;
	snprintf(what, sizeof what, "slower by more than %g%% beyond their resolution",
		 r->opts.threshold_pct);
	n = compare_name_rows(r, compare_is_regression, what, out, len, n);
	n = compare_name_rows(r, compare_is_failed_new, "failed validation or timing in NEW", out,
			      len, n);
	if (st == COMPARE_REGRESSED) {
		snprintf(out + n, len - n, ": a regression (exit 1)");
		return;
	}
	if (compare_compared(r) == 0)
		n += (size_t)snprintf(out + n, len - n, "%snothing compared: no row is in both files "
				      "with a figure on each side", n ? "; " : "");
	if (!r->opts.allow_inconclusive) {
		snprintf(what, sizeof what, "inconclusive (too noisy to decide at %g%%)",
			 fmax(r->opts.threshold_pct, r->opts.min_change_pct));
		n = compare_name_rows(r, compare_is_inconclusive, what, out, len, n);
	}
	if (!r->opts.allow_missing) {
		n = compare_name_rows(r, compare_is_missing, "of BASE not compared (missing in NEW, or failed in BASE)",
				      out, len, n);
		if (r->skipped_new && n < len)
			n += (size_t)snprintf(out + n, len - n, "%sNEW's run skipped %s", n ? "; " : "",
					      r->skipped_note);
		for (int k = 0; k < 2; k++)
			if (r->incomplete[k] && n < len)
				n += (size_t)snprintf(out + n, len - n, "%s%s's run was %s", n ? "; " : "",
						      k ? "NEW" : "BASE", r->incomplete_note[k]);
	}
	if (n < len)
		snprintf(out + n, len - n, ": not a pass (exit 3)");
}

/* The verdict line: the exit status and what it rests on. */
static void compare_print_verdict(FILE *fp, const struct compare_report *r)
{
	int st = compare_exit_status(r);
	if (st == COMPARE_REGRESSED) {
		fprintf(fp, "verdict: REGRESSION (exit 1)\n");
		return;
	}
	if (st == COMPARE_UNDECIDED) {
		fprintf(fp, "verdict: NOT A PASS (exit 3): %s\n",
			compare_compared(r) == 0 ? "nothing was compared"
						 : "rows undecided or not measured (see above)");
		return;
	}
	if (r->untimed)
		fprintf(fp, "verdict: pass (exit 0): nothing timed to compare; %zu row%s valid in both, "
			"none failed in NEW", compare_compared(r), compare_compared(r) == 1 ? "" : "s");
	else
		fprintf(fp, "verdict: pass (exit 0): %zu row%s compared and decided, none slower by more "
			"than %g%%", compare_compared(r), compare_compared(r) == 1 ? "" : "s",
			r->opts.threshold_pct);
	if (r->inconclusive)
		fprintf(fp, "; %zu inconclusive accepted (--allow-inconclusive)", r->inconclusive);
	if (r->only_base + r->uncompared + r->skipped_new + r->incomplete[0] + r->incomplete[1])
		fprintf(fp, "; %zu of BASE not compared%s%s accepted (--allow-missing)",
			r->only_base + r->uncompared,
			r->skipped_new ? " and the variants NEW skipped" : "",
			r->incomplete[0] + r->incomplete[1] ? " and the rows an interrupted run never ran" : "");
	fprintf(fp, "\n");
}

/* A line per between-run floor the pairs were judged with, and one for
 * the pairs judged without one. */
static void compare_print_floors(FILE *fp, const struct compare_report *r)
{
	for (size_t i = 0; i < r->count; i++) {
		const struct floor_class *f = r->entries[i].floor;
		bool seen = false;
		for (size_t q = 0; q < i && f && !seen; q++)
			seen = r->entries[q].floor == f;
		if (!f || seen)
			continue;
		size_t rows = 0;
		for (size_t q = 0; q < r->count; q++)
			rows += r->entries[q].floor == f;
		fprintf(fp, "floor %.2f%%: %zu pair%s of %s %s rows on %s, calls of %s 100 us (from %d "
			    "pairs of separate runs, %s)\n", f->floor_pct, rows, rows == 1 ? "" : "s",
			f->device, r->kind->name, f->device_name, f->min_call_s > 0 ? "at least" : "under",
			f->pairs, f->source);
	}
	if (r->unfloored)
		fprintf(fp, "no floor: %zu pair%s on a device, kind or time per call that no separate "
			    "runs calibrated: their resolution is their noise alone, blind to what two "
			    "runs differ by\n", r->unfloored, r->unfloored == 1 ? "" : "s");
}

void compare_print(FILE *fp, const struct compare_report *r, const char *base_path,
		   const char *new_path)
{
	fprintf(fp, "BASE %s%s%s%s\nNEW  %s%s%s%s\n", base_path, r->notes[0][0] ? " (" : "",
		r->notes[0], r->notes[0][0] ? ")" : "", new_path, r->notes[1][0] ? " (" : "",
		r->notes[1], r->notes[1][0] ? ")" : "");
	fprintf(fp, "%s rows; figures: %s%s\n\n", r->kind->name,
		r->untimed && !r->kind->untimed ? "none timed, the rows' validation" : r->kind->unit,
		r->opts.across_devices ? "; %ceil: share of the row's own device's ceiling" : "");
	compare_print_header(fp, r);
	for (size_t i = 0; i < r->count; i++)
		compare_print_entry(fp, r, &r->entries[i]);
	double t = r->opts.threshold_pct, floor = r->opts.min_change_pct;
	if (r->untimed) {
		fprintf(fp, "\n%s: valid in both is the pass, valid in BASE and not in NEW a "
			    "regression\n", r->resolution_rule);
	} else {
		fprintf(fp, "\nresol: the change a row can tell from none: %s.\n", r->resolution_rule);
		compare_print_floors(fp, r);
		fprintf(fp, "SLOWER (a regression): slowdown - resol > %g%% (and slowdown > %g%%); "
			    "decided, no regression: slowdown + resol <= %g%%, then same (|change| within "
			    "max(resol, %g%%)), faster or slower; else inconclusive%s\n",
			t, floor, fmax(t, floor), floor,
			r->opts.across_devices ? "; across devices the %ceil verdict counts" : "");
	}
	if (r->untimed)
		fprintf(fp, "%zu valid in both, %zu failed in NEW, %zu not compared, %zu only in BASE, "
			    "%zu only in NEW\n", r->same, r->failed_new, r->uncompared, r->only_base,
			r->only_new);
	else
		fprintf(fp, "%zu faster, %zu same, %zu slower (%zu regression%s), %zu inconclusive, "
			    "%zu failed in NEW, %zu not compared, %zu only in BASE, %zu only in NEW\n",
			r->faster, r->same, r->slower, r->regressions, r->regressions == 1 ? "" : "s",
			r->inconclusive, r->failed_new, r->uncompared, r->only_base, r->only_new);
	if (r->skipped_new)
		fprintf(fp, "NEW's run skipped %s\n", r->skipped_note);
	for (int k = 0; k < 2; k++)
		if (r->incomplete[k])
			fprintf(fp, "%s's run was %s\n", k ? "NEW" : "BASE", r->incomplete_note[k]);
	compare_print_verdict(fp, r);
}

/* ---- the verdict file ---------------------------------------------------- */

static const char *const compare_verdict_columns[] = {
	"metric", "base_value", "new_value", "ratio", "change_pct", "noise_pct", "floor_pct",
	"resolution_pct", "threshold_pct", "rounds", "verdict",
};

#define COMPARE_VERDICT_NCOLS (sizeof compare_verdict_columns / sizeof *compare_verdict_columns)

/* What the callbacks of compare_write_verdicts see. */
struct compare_verdicts_ctx {
	const struct compare_report *r;
	const char *base_path, *new_path;
};

/* A number into cell, "" for NAN. */
static void compare_cell(char *cell, double v, const char *fmt)
{
	if (isnan(v))
		cell[0] = '\0';
	else
		snprintf(cell, RESULTS_CELL, fmt, v);
}

static void compare_verdict_row(const void *ctx_, size_t row, char (*cells)[RESULTS_CELL])
{
	const struct compare_verdicts_ctx *ctx = ctx_;
	const struct compare_report *r = ctx->r;
	const struct compare_entry *e = &r->entries[row];
	const struct compare_judgement *j = compare_counting(e);
	size_t c = 0, nkeys = 0;
	bool judged = e->in_base && e->in_new && j->verdict != COMPARE_UNCOMPARED;
	while (r->kind->keys[nkeys])
		nkeys++;
	for (; c < nkeys; c++)
		snprintf(cells[c], RESULTS_CELL, "%s", c < e->key.count ? e->key.cells[c] : "");
	const char *mode = r->kind->mode_col ? compare_key_value(r, e, r->kind->mode_col) : NULL;
	snprintf(cells[c++], RESULTS_CELL, "%s",
		 e->counts_ceiling ? "pct_of_ceiling"
		 : mode && strcmp(mode, r->kind->mode_when[1]) == 0 ? r->kind->metric[1]
								     : r->kind->metric[0]);
	compare_cell(cells[c++], !e->in_base ? NAN : e->counts_ceiling ? e->base.pct_of_ceiling : e->base.value, "%.6g");
	compare_cell(cells[c++], !e->in_new ? NAN : e->counts_ceiling ? e->new.pct_of_ceiling : e->new.value, "%.6g");
	compare_cell(cells[c++], judged ? j->ratio : NAN, "%.6g");
	compare_cell(cells[c++], judged ? 100.0 * (j->ratio - 1.0) : NAN, "%.4g");
	compare_cell(cells[c++], judged ? j->noise_pct : NAN, "%.4g");
	compare_cell(cells[c++], judged && e->floor ? e->floor->floor_pct : NAN, "%.4g");
	compare_cell(cells[c++], judged ? j->resolution_pct : NAN, "%.4g");
	compare_cell(cells[c++], r->opts.threshold_pct, "%g");
	if (r->rounds > 0)
		snprintf(cells[c++], RESULTS_CELL, "%d", r->rounds);
	else
		cells[c++][0] = '\0';
	snprintf(cells[c], RESULTS_CELL, "%s", compare_entry_word(e));
}

static void compare_verdict_json(struct json_out *j, const void *ctx_)
{
	const struct compare_verdicts_ctx *ctx = ctx_;
	const struct compare_report *r = ctx->r;
	char why[2048];
	json_kv_string(j, "kind", r->kind->name);
	json_kv_string(j, "base_csv", ctx->base_path);
	json_kv_string(j, "new_csv", ctx->new_path);
	json_kv_double(j, "threshold_pct", r->opts.threshold_pct);
	json_kv_double(j, "min_change_pct", r->opts.min_change_pct);
	json_kv_bool(j, "across_devices", r->opts.across_devices);
	json_kv_bool(j, "allow_missing", r->opts.allow_missing);
	json_kv_bool(j, "allow_inconclusive", r->opts.allow_inconclusive);
	json_kv_string(j, "resolution", r->resolution_rule);
	json_kv_int(j, "rounds", r->rounds);
	json_kv_int(j, "pairs_with_floor", (long long)r->floored);
	json_kv_int(j, "pairs_without_floor", (long long)r->unfloored);
	json_kv_string(j, "rule", "change = 100 (new/base - 1), slowdown = -change; SLOWER (a regression) "
				  "when slowdown - resolution > threshold and slowdown > min_change; "
				  "decided, no regression, when slowdown + resolution <= max(threshold, "
				  "min_change): same when |change| <= max(resolution, min_change), else "
				  "faster or slower; otherwise inconclusive");
	json_key(j, "counts");
	json_begin_object(j);
	json_kv_int(j, "faster", (long long)r->faster);
	json_kv_int(j, "same", (long long)r->same);
	json_kv_int(j, "slower", (long long)r->slower);
	json_kv_int(j, "regressions", (long long)r->regressions);
	json_kv_int(j, "inconclusive", (long long)r->inconclusive);
	json_kv_int(j, "failed_in_new", (long long)r->failed_new);
	json_kv_int(j, "not_compared", (long long)r->uncompared);
	json_kv_int(j, "only_in_base", (long long)r->only_base);
	json_kv_int(j, "only_in_new", (long long)r->only_new);
	json_kv_int(j, "skipped_by_new", (long long)r->skipped_new);
	json_kv_int(j, "never_ran_in_base", (long long)r->incomplete[0]);
	json_kv_int(j, "never_ran_in_new", (long long)r->incomplete[1]);
	json_end_object(j);
	json_kv_int(j, "exit_status", compare_exit_status(r));
	compare_why_not_passed(r, why, sizeof why);
	json_kv_string(j, "why_not_a_pass", why);
}

int compare_write_verdicts(const char *csv_path, const struct compare_report *r,
			   const char *base_path, const char *new_path, int argc, char **argv,
			   char *err, size_t errlen)
{
	const char *cols[COMPARE_MAX_KEYS + COMPARE_VERDICT_NCOLS];
	size_t ncols = 0;
	for (; r->kind->keys[ncols]; ncols++)
		cols[ncols] = r->kind->keys[ncols];
	for (size_t i = 0; i < COMPARE_VERDICT_NCOLS; i++)
		cols[ncols++] = compare_verdict_columns[i];
	struct compare_verdicts_ctx ctx = { r, base_path, new_path };
	struct results_table t = { .schema = "harness-verdicts/1", .columns = cols, .ncols = ncols,
				   .nrows = r->count, .rows = r->entries,
				   .format = compare_verdict_row, .json = compare_verdict_json,
				   .ctx = &ctx };
	struct results_meta meta = { argc, argv, NULL, NULL, 0, NULL, NULL };
	return results_write_table(csv_path, &t, &meta, err, errlen);
}
