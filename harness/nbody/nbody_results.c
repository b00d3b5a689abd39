/* nbody_results.c - the N-body result row: its CSV columns, its part of the sidecar, its table on screen */
#define _POSIX_C_SOURCE 200809L
#include "nbody_results.h"

#include <math.h>
#include <string.h>

#include "../core/json_out.h"
#include "../core/repetitions.h"

const char *const results_columns[] = {
	"variant", "family", "precision", "device", "device_name", "n",
	"tile_p", "threads_q", "unroll", "bodies_k", "ic", "seed", "eps", "mode", "dt",
	"valid", "validated_bodies", "rel_l2_err", "max_norm_err", "tol_max_norm_err",
	"samples", "reps_per_sample", "time_min_s", "time_median_s", "time_max_s",
	"time_stddev_s", "noise_pct", "noise_met", "interactions_per_s",
	"flops_per_interaction", "gflop_per_s", "steps_per_s", "sm_clock_start_mhz",
	"sm_clock_end_mhz", "clock_dropped", "ceiling_interactions_per_s", "pct_of_ceiling",
	"ranks", "gpus", "rank_devices", "rank_time_min_s", "rank_time_avg_s", "rank_time_max_s",
	"comm_time_s", "comm_share_pct", "comm_algbw_gbps", "comm_busbw_gbps", "single_max_diff",
	"single_diff_bound", "grid", "rank_sent_bytes", "rank_recv_bytes",
};
/* The columns from "ranks" on, written for untimed rows too. */
#define RESULTS_RANK_COLUMNS 15
const size_t results_column_count = sizeof results_columns / sizeof results_columns[0];

/* Interactions in one timed call: N^2 as the chapter counts them (the
 * self-term included), per force evaluation or per whole step. */
static double results_interactions(const struct result_row *r)
{
	return (double)r->n * (double)r->n;
}

double results_interactions_per_s(const struct result_row *r)
{
	if (!r->timed || !(r->t.s.median > 0))
		return NAN;
	return results_interactions(r) / r->t.s.median;
}

double results_gflops(const struct result_row *r)
{
	return results_interactions_per_s(r) * RESULTS_FLOPS_PER_INTERACTION * 1e-9;
}

bool results_clock_dropped(const struct result_row *r)
{
	return r->clock_end_mhz < r->clock_start_mhz * (1.0 - RESULTS_CLOCK_DROP);
}

double results_comm_share(const struct result_row *r)
{
	if (!r->timed || !(r->t.s.median > 0))
		return NAN;
	return 100.0 * r->comm_time / r->t.s.median;
}

/* nccl-tests' all-gather: algbw = bytes / time, with bytes the whole
 * gathered buffer; busbw = algbw (P - 1) / P, which is what a rank sends
 * per second, and is taken as that for every exchange (dist-2d's too). */
double results_algbw(const struct result_row *r)
{
	return r->timed && r->comm_time > 0 ? r->comm_bytes / r->comm_time * 1e-9 : NAN;
}

double results_busbw(const struct result_row *r)
{
	return r->timed && r->comm_time > 0 ? r->rank_sent / r->comm_time * 1e-9 : NAN;
}

double results_steps_per_s(const struct result_row *r)
{
	if (!r->steps_mode || !r->timed || !(r->t.s.median > 0))
		return NAN;
	return 1.0 / r->t.s.median;
}

/* %.6g for measured figures; empty for NaN so a reader sees "no value". */
static void results_num(char *cell, double v)
{
	if (isnan(v))
		cell[0] = '\0';
	else
		snprintf(cell, 64, "%.6g", v);
}

void results_format(const struct result_row *r, char (*c)[RESULTS_CELL])
{
	const struct variant *v = r->v;
	size_t i = 0;
	snprintf(c[i++], 64, "%s", v->name);
	snprintf(c[i++], 64, "%s", v->family);
	snprintf(c[i++], 64, "%s", variant_precision_name(v->precision));
	snprintf(c[i++], 64, "%s", variant_device_name(v->device));
	snprintf(c[i++], 64, "%s", r->device_name);
	snprintf(c[i++], 64, "%zu", r->n);
	snprintf(c[i++], 64, "%d", v->tile_p);
	snprintf(c[i++], 64, "%d", v->threads_q);
	snprintf(c[i++], 64, "%d", v->unroll);
	snprintf(c[i++], 64, "%d", v->bodies_k);
	snprintf(c[i++], 64, "%s", r->ic);
	snprintf(c[i++], 64, "%llu", (unsigned long long)r->seed);
	snprintf(c[i++], 64, "%.9g", r->eps);
	snprintf(c[i++], 64, "%s", r->steps_mode ? "steps" : "forces");
	if (r->steps_mode)
		snprintf(c[i++], 64, "%.9g", r->dt);
	else
		c[i++][0] = '\0';
	snprintf(c[i++], 64, "%d", r->val.pass ? 1 : 0);
	snprintf(c[i++], 64, "%zu", r->val.checked);
	snprintf(c[i++], 64, "%.3e", r->val.rel_l2);
	snprintf(c[i++], 64, "%.3e", r->val.max_norm);
	snprintf(c[i++], 64, "%.3e", r->val.tol.max_norm);
	if (r->timed) {
		snprintf(c[i++], 64, "%zu", r->t.count);
		snprintf(c[i++], 64, "%d", r->t.reps_per_sample);
		results_num(c[i++], r->t.s.min);
		results_num(c[i++], r->t.s.median);
		results_num(c[i++], r->t.s.max);
		results_num(c[i++], r->t.s.stddev);
		results_num(c[i++], 100.0 * r->t.s.rel_stddev);
		snprintf(c[i++], 64, "%d", r->t.noise_met ? 1 : 0);
		results_num(c[i++], results_interactions_per_s(r));
		snprintf(c[i++], 64, "%d", RESULTS_FLOPS_PER_INTERACTION);
		results_num(c[i++], results_gflops(r));
		results_num(c[i++], results_steps_per_s(r));
		results_num(c[i++], r->clock_start_mhz);
		results_num(c[i++], r->clock_end_mhz);
		if (isnan(r->clock_start_mhz) || isnan(r->clock_end_mhz))
			c[i++][0] = '\0';
		else
			snprintf(c[i++], 64, "%d", results_clock_dropped(r) ? 1 : 0);
		results_num(c[i++], r->ceiling);
		results_num(c[i++], 100.0 * results_interactions_per_s(r) / r->ceiling);
	} else {
		while (i < results_column_count - RESULTS_RANK_COLUMNS)
			c[i++][0] = '\0';
	}
	snprintf(c[i++], 64, "%d", r->ranks);
	snprintf(c[i++], 64, "%d", r->gpus);
	snprintf(c[i++], RESULTS_CELL, "%s", r->rank_devices[0] ? r->rank_devices : r->device_name);
	results_num(c[i++], r->timed ? r->rank_time_min : NAN);
	results_num(c[i++], r->timed ? r->rank_time_avg : NAN);
	results_num(c[i++], r->timed ? r->rank_time_max : NAN);
	results_num(c[i++], r->timed ? r->comm_time : NAN);
	results_num(c[i++], results_comm_share(r));
	results_num(c[i++], results_algbw(r));
	results_num(c[i++], results_busbw(r));
	results_num(c[i++], r->single_diff);
	results_num(c[i++], r->single_bound);
	if (r->grid_rows > 0)
		snprintf(c[i++], 64, "%dx%d", r->grid_rows, r->grid_cols);
	else
		c[i++][0] = '\0';
	results_num(c[i++], r->rank_sent);
	results_num(c[i++], r->rank_recv);
}

static void results_json_rows(struct json_out *j, const void *rows_, size_t nrows)
{
	const struct result_row *rows = rows_;
	json_key(j, "samples");
	json_begin_array(j);
	for (size_t r = 0; r < nrows; r++)
		results_json_samples(j, rows[r].v->name, rows[r].n, &rows[r].t, rows[r].timed);
	json_end_array(j);
}

/* The N-body part of the sidecar: validation rules, flop count, samples. */
static void results_json_nbody(struct json_out *j, const void *ctx)
{
	const struct results_table *t = ctx;
	json_key(j, "validation");
	json_begin_object(j);
	json_kv_int(j, "all_bodies_up_to_n", VALIDATE_FULL_MAX);
	json_kv_int(j, "sample_bodies_above", VALIDATE_SAMPLE);
	json_kv_string(j, "sample_rule", "random bodies drawn with the run's seed, plus the first and the last, each against all N");
	json_kv_string(j, "max_norm_err", "max_i |a_i - a_ref_i| / sum_j |f_ij|");
	json_kv_string(j, "rel_l2_err", "sqrt(sum |a - a_ref|^2 / sum |a_ref|^2)");
	json_end_object(j);
	json_kv_string(j, "flop_count", "20 flops per interaction (GPU Gems 3 ch. 31, Listing 31-1)");
	results_json_rows(j, t->rows, t->nrows);
}

static void results_format_nbody(const void *ctx, size_t row, char (*cells)[RESULTS_CELL])
{
	const struct results_table *t = ctx;
	results_format(&((const struct result_row *)t->rows)[row], cells);
}

int results_write(const char *csv_path, const struct result_row *rows, size_t nrows,
		  const struct results_meta *meta, char *err, size_t errlen)
{
	struct results_table t = {
		.schema = "nbody-harness-results/1", .columns = results_columns,
		.ncols = results_column_count, .nrows = nrows, .rows = rows,
		.format = results_format_nbody, .json = results_json_nbody,
	};
	t.ctx = &t;
	return results_write_table(csv_path, &t, meta, err, errlen);
}

/* Writes a per-row array of raw samples: what every timed row measured. */
/* "12.3 ms" style: three significant digits with an SI prefix. */
static void results_fmt_time(char *buf, size_t len, double s)
{
	if (isnan(s))
		snprintf(buf, len, "-");
	else if (s >= 1)
		snprintf(buf, len, "%.3g s", s);
	else if (s >= 1e-3)
		snprintf(buf, len, "%.3g ms", s * 1e3);
	else
		snprintf(buf, len, "%.3g us", s * 1e6);
}

/* A figure printed with fmt, or a dash where there is none (NaN: a column
 * that check does not measure, or a row that was not timed). */
static void results_fmt_figure(char *buf, size_t len, const char *fmt, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
}

void results_print_table(FILE *fp, const struct result_row *rows, size_t nrows)
{
	bool steps = false;
	size_t reps = 0; /* the repetitions a row had (--repetitions), 0 when none */
	for (size_t r = 0; r < nrows; r++) {
		steps = steps || rows[r].steps_mode;
		if (!reps && rows[r].timed && rows[r].t.nreps > 1)
			reps = rows[r].t.nreps;
	}
	fprintf(fp, "%-18s %9s %-5s %9s %10s %8s", "variant", "N", "valid", "max_err", "median",
		"noise");
	if (reps)
		fprintf(fp, " %10s", "reps range");
	fprintf(fp, " %13s %9s%s\n", "interact/s", "GFLOP/s", steps ? "    steps/s" : "");
	for (size_t r = 0; r < nrows; r++) {
		const struct result_row *row = &rows[r];
		char med[32], noise[32];
		results_fmt_time(med, sizeof med, row->timed ? row->t.s.median : NAN);
		if (row->timed && row->t.count < 2)
			snprintf(noise, sizeof noise, "1 sample"); /* no spread to measure */
		else if (row->timed)
			snprintf(noise, sizeof noise, "%.2f%%%s", 100.0 * row->t.s.rel_stddev,
				 row->t.noise_met ? "" : "*");
		else
			snprintf(noise, sizeof noise, "-");
		char ips[32], gflops[32], sps[32];
		results_fmt_figure(ips, sizeof ips, "%.3e", results_interactions_per_s(row));
		results_fmt_figure(gflops, sizeof gflops, "%.1f", results_gflops(row));
		results_fmt_figure(sps, sizeof sps, "%.1f", results_steps_per_s(row));
		fprintf(fp, "%-18s %9zu %-5s %9.2e %10s %8s", row->v->name, row->n,
			row->val.pass ? "ok" : "FAIL", row->val.max_norm, med, noise);
		if (reps) {
			char range[32];
			repetitions_cell(range, sizeof range, &row->t);
			fprintf(fp, " %10s", range);
		}
		fprintf(fp, " %13s %9s", ips, gflops);
		if (steps)
			fprintf(fp, " %10s", sps);
		fputc('\n', fp);
	}
	bool missed = false, single = false;
	for (size_t r = 0; r < nrows; r++) {
		missed = missed || (rows[r].timed && rows[r].t.count >= 2 && !rows[r].t.noise_met);
		single = single || (rows[r].timed && rows[r].t.count < 2);
	}
	if (missed)
		fprintf(fp, "* noise target not met within --max-time; the median is still the figure to quote\n");
	if (single)
		fprintf(fp, "1 sample: one call outlasted --max-time; its noise is unknown (compare and ab "
			    "call such a row inconclusive unless ab has three rounds of it)\n");
	if (reps)
		repetitions_note(fp, reps);
}
