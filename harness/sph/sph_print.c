/* sph_print.c - bin/harness sph's rows printed: the table, the CSV and JSON columns, the notes */
#define _GNU_SOURCE
#include "sph_print.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/json_out.h"
#include "../core/repetitions.h"
#include "../render/render_run.h"
#include "../core/results.h"
#include "../core/skips.h"
#include "sph_validate.h"
#include "sph_row.h"
#include "sph_window.h"
#include "../core/keep.h"

static const char *const sph_columns_csv[] = {
	"variant", "method", "device", "device_name", "column", "n", "boundary_particles", "seed",
	"warm_steps", "window_steps", "window_fnv1a64", "flow_to_steps", "state_fnv1a64", "clamps",
	"valid", "rho_max_rel_err", "acc_max_rel_rms_err", "tol_rho", "tol_acc",
	"neighbour_pairs", "reference_pairs", "near_h_pairs", "candidate_pairs",
	"candidates_per_neighbour", "aux_bytes", "aux_bytes_per_particle", "samples",
	"time_min_step_s", "time_median_step_s", "time_max_step_s", "noise_pct", "noise_met",
	"steps_per_s", "build_ms", "density_ms", "force_ms", "integrate_ms",
};
#define SPH_NCOLS (sizeof sph_columns_csv / sizeof sph_columns_csv[0])

/* With --render, after those: the rendering pipeline's row. The fps are
 * the paper's (Tables 1 and 2): physics = steps_per_s; extraction =
 * 1 / extraction; rendering = 1 / (field + raycast); overall = 1 / (one
 * step + extraction + field + raycast). */
static const char *const sph_render_columns_csv[] = {
	"render_valid", "shading", "surface_particles", "surface_mismatches", "surface_borderline",
	"field_max_ulps", "field_worst_bound_ratio", "image_check_px", "image_psnr_db",
	"image_max_diff", "converged_res", "converged_samples_per_unit", "converged_psnr_db",
	"converged_holes_pct", "width", "height", "field_res", "voxels", "voxels_set", "frames",
	"frame_noise_pct", "extraction_ms", "field_ms", "raycast_ms", "physics_fps",
	"extraction_fps", "rendering_fps", "overall_fps",
};
#define SPH_RENDER_NCOLS (sizeof sph_render_columns_csv / sizeof sph_render_columns_csv[0])

static void sph_num(char *cell, double v)
{
	if (isnan(v))
		cell[0] = '\0';
	else
		snprintf(cell, 64, "%.6g", v);
}

static void sph_format(const void *ctx, size_t r, char (*c)[RESULTS_CELL])
{
	const struct sph_row *row = &((const struct sph_row *)ctx)[r];
	size_t i = 0;
	double ms[4];
	sph_row_phase_ms(row, ms);
	snprintf(c[i++], 64, "%s", row->v->name);
	snprintf(c[i++], 64, "%s", row->v->method);
	snprintf(c[i++], 64, "%s", variant_device_name(row->v->device));
	snprintf(c[i++], 64, "%s", row->device_name);
	snprintf(c[i++], 64, "%s", row->col.name);
	snprintf(c[i++], 64, "%zu", row->n);
	snprintf(c[i++], 64, "%zu", row->nb);
	snprintf(c[i++], 64, "%llu", (unsigned long long)row->seed);
	snprintf(c[i++], 64, "%d", row->warm_steps);
	if (row->timed)
		snprintf(c[i++], 64, "%d", row->window_steps);
	else
		c[i++][0] = '\0';
	if (row->timed && !row->flow_to)
		snprintf(c[i++], 64, "%016llx", (unsigned long long)row->window_fnv1a64);
	else
		c[i++][0] = '\0';
	if (row->flow_to)
		snprintf(c[i++], 64, "%lu", row->flow_to);
	else
		c[i++][0] = '\0';
	if (!row->flow_to)
		snprintf(c[i++], 64, "%016llx", (unsigned long long)row->state_fnv1a64);
	else
		c[i++][0] = '\0';
	snprintf(c[i++], 64, "%llu", row->clamps);
	snprintf(c[i++], 64, "%d", row->val.pass ? 1 : 0);
	snprintf(c[i++], 64, "%.3e", row->val.rho_err);
	snprintf(c[i++], 64, "%.3e", row->val.acc_err);
	snprintf(c[i++], 64, "%.0e", SPH_VALIDATE_RHO_TOL);
	snprintf(c[i++], 64, "%.0e", SPH_VALIDATE_ACC_TOL);
	if (row->flow_to) {
		/* pairs are of one state: its moments' rows hold them */
		for (int k = 0; k < 5; k++)
			c[i++][0] = '\0';
	} else {
		snprintf(c[i++], 64, "%llu", row->counts.neighbours);
		snprintf(c[i++], 64, "%llu", row->val.ref_pairs);
		snprintf(c[i++], 64, "%llu", row->val.near_h);
		snprintf(c[i++], 64, "%llu", row->counts.candidates);
		sph_num(c[i++], row->counts.neighbours ? (double)row->counts.candidates /
							      (double)row->counts.neighbours : NAN);
	}
	snprintf(c[i++], 64, "%zu", row->counts.aux_bytes);
	sph_num(c[i++], (double)row->counts.aux_bytes / (double)row->n);
	if (!row->timed) {
		while (i < SPH_NCOLS)
			c[i++][0] = '\0';
		return;
	}
	snprintf(c[i++], 64, "%zu", row->t.count);
	sph_num(c[i++], row->t.s.min);
	sph_num(c[i++], row->t.s.median);
	sph_num(c[i++], row->t.s.max);
	sph_num(c[i++], 100.0 * row->t.s.rel_stddev);
	snprintf(c[i++], 64, "%d", row->t.noise_met ? 1 : 0);
	sph_num(c[i++], 1.0 / row->t.s.median);
	for (int k = 0; k < 4; k++)
		sph_num(c[i++], ms[k]);
}

static void sph_format_render(const struct sph_row *row, char (*c)[RESULTS_CELL])
{
	const struct render_run_result *r = &row->r;
	size_t i = 0;
	snprintf(c[i++], 64, "%d", r->done && r->valid ? 1 : 0);
	if (!r->done) {
		while (i < SPH_RENDER_NCOLS)
			c[i++][0] = '\0';
		return;
	}
	snprintf(c[i++], 64, "%s", render_shading_name(r->shading));
	if (row->flow_to) {
		/* the checks are of one state each: its moments' rows hold them */
		while (i < 14)
			c[i++][0] = '\0';
		snprintf(c[i++], 64, "%d", r->width);
		snprintf(c[i++], 64, "%d", r->height);
		snprintf(c[i++], 64, "%d", r->res);
		c[i++][0] = '\0';
		c[i++][0] = '\0';
		goto timed;
	}
	snprintf(c[i++], 64, "%zu", r->surface_count);
	snprintf(c[i++], 64, "%zu", r->surface.mismatches);
	snprintf(c[i++], 64, "%zu", r->surface.borderline);
	snprintf(c[i++], 64, "%llu", r->field.max_ulps);
	sph_num(c[i++], r->field.worst_ratio);
	snprintf(c[i++], 64, "%dx%d", RENDER_RUN_CHECK_W, RENDER_RUN_CHECK_H);
	sph_num(c[i++], isinf(r->image.psnr_db) ? 999.0 : r->image.psnr_db);
	sph_num(c[i++], r->image.max_diff);
	snprintf(c[i++], 64, "%d", r->converge_res);
	sph_num(c[i++], r->converge_samples);
	sph_num(c[i++], isinf(r->converge.psnr_db) ? 999.0 : r->converge.psnr_db);
	sph_num(c[i++], 100.0 * r->converge.holes.share);
	snprintf(c[i++], 64, "%d", r->width);
	snprintf(c[i++], 64, "%d", r->height);
	snprintf(c[i++], 64, "%d", r->res);
	snprintf(c[i++], 64, "%zu", r->voxels);
	snprintf(c[i++], 64, "%zu", r->voxels_set);
timed:
	if (!r->timed || !row->timed) {
		while (i < SPH_RENDER_NCOLS)
			c[i++][0] = '\0';
		return;
	}
	const struct render_fps f = render_run_fps(r, row->t.s.median);
	snprintf(c[i++], 64, "%zu", r->frames);
	sph_num(c[i++], r->frame_noise_pct);
	sph_num(c[i++], 1e3 * r->extraction_s);
	sph_num(c[i++], 1e3 * r->field_s);
	sph_num(c[i++], 1e3 * r->raycast_s);
	sph_num(c[i++], f.physics);
	sph_num(c[i++], f.extraction);
	sph_num(c[i++], f.rendering);
	sph_num(c[i++], f.overall);
}

struct sph_table_ctx {
	const struct sph_row *rows;
	size_t nrows;
	bool render;
	double samples_per_unit;	/* of the rendering rows (0: derived per column,
					 * reference/render_ref.h) */
};

static void sph_format_table(const void *ctx, size_t r, char (*cells)[RESULTS_CELL])
{
	const struct sph_table_ctx *t = ctx;
	sph_format(t->rows, r, cells);
	if (t->render)
		sph_format_render(&t->rows[r], cells + SPH_NCOLS);
}

static void sph_json(struct json_out *j, const void *ctx)
{
	const struct sph_table_ctx *t = ctx;
	json_key(j, "validation");
	json_begin_object(j);
	json_kv_string(j, "rho_max_rel_err", "max_i |rho_i - rho_ref_i| / rho0, every particle");
	json_kv_string(j, "acc_max_rel_rms_err", "max_i |a_i - a_ref_i| / rms_i |a_ref_i|, every particle");
	json_kv_string(j, "pairs", "variant pair count = reference's, +- pairs with |r^2/h^2 - 1| < 1e-4");
	json_kv_string(j, "positions", "the flow's state at warm_steps (moments, below), from which the variant was created");
	json_end_object(j);
	json_kv_string(j, "physics", "reference/sph_ref.h: Mueller 2003, clamped pressure, walls of boundary particles (Akinci 2012) with a last-resort reflective clamp, symplectic Euler");
	json_kv_string(j, "pairs_counted", "fluid-fluid and fluid-boundary, i != j, in the density pass");
	json_kv_string(j, "clamps", "coordinates the last-resort clamp put back on a wall: the flow's up to warm_steps (its states' maker), the variant's own from its state (and the rendering's frames), plus one timed window's (every window is the same steps); a flow row: its moments' largest");
	json_kv_string(j, "window", "every timed call starts a fresh context from the positions and velocities validated after warm_steps and runs the same window_steps steps (the context's start untimed); every window must end on the same positions and velocities, bit for bit (window_fnv1a64: FNV-1a 64 over the fluid's positions then velocities as floats, in the original order, hashed again with each other); a sample's seconds_per_call are seconds per step, its windows' seconds over their steps");
	if (t->render) {
		json_key(j, "rendering");
		json_begin_object(j);
		json_kv_string(j, "pipeline", "Goswami et al. 2010 section 4 (reference/render_ref.h): surface particles by the variant's own neighbour search, compacted with CUB select; distance field rasterised on the GPU; one thread per pixel raycast (kernels/render/render_gpu.h)");
		json_kv_string(j, "validated", "surface flags vs render_ref_surface on the variant's positions (borderline particles within float rounding of a threshold excused and counted); field vs render_ref_field of the same surface particles, every voxel; image vs render_ref_raycast at image_check_px, PSNR >= 40 dB; converged: the same image against the GPU raycast of the same particles at converged_res and converged_samples_per_unit (twice the derived field resolution within 2^31 voxels and 40 % of the GPU's memory, four times its samples), PSNR >= 30 dB and holes (silhouette pixels of the converged image where the image's opacity is below half of it) <= 1 %");
		json_kv_string(j, "fps", "physics = steps_per_s; extraction = 1 / extraction_ms; rendering = 1 / (field_ms + raycast_ms); overall = 1 / (one step + extraction + field + raycast), as the paper's Tables 1 and 2");
		char timing[320];
		snprintf(timing, sizeof timing, "medians over the same %d frames for every variant (render_run.h: from the validated state after warm_steps, before the physics timing), each one step, extraction, field, raycast, CUDA events per stage; extraction includes the neighbour structure's build on the frame's positions", RENDER_RUN_FRAMES);
		json_kv_string(j, "timing", timing);
		json_kv_string(j, "camera", "render_camera_default: the whole box from the front, 20 degrees above, 40 degree vertical field of view; 1280 x 720 by default (the paper does not state its resolution)");
		json_kv_double(j, "samples_per_unit", t->samples_per_unit);
		json_end_object(j);
	}
	json_kv_string(j, "moments", "each row's state is that of the flow at warm_steps, made once per column by the variant the states list names (the fastest that ran there: sph-gpu-verlet, else sph-cpu-grid) and read by every variant: all rows of a column time the same water (state_fnv1a64: the payload hash of sph-state/1, harness/sph/sph_state.h)");
	json_kv_string(j, "flow", "a row with flow_to_steps is the whole flow from warm_steps to flow_to_steps: its seconds per step T / (flow_to_steps - warm_steps) with T = sum w_i t_i over its moments' rows (t_i their median seconds per step, w_i the steps each stands for by the trapezoid rule), so steps_per_s is the rate of that stretch of a run; min and max alike; its noise sqrt(sum (w_i t_i noise_i)^2) / T; its phases the same weighted mean; samples the moments' together; valid when all are, its errors their largest (harness/sph/sph_flow.h)");
	size_t resumed = 0;
	for (size_t r = 0; r < t->nrows; r++)
		resumed += t->rows[r].resumed;
	if (resumed) {
		json_key(j, "resumed");
		json_begin_object(j);
		json_kv_string(j, "how", "these rows were measured by an earlier, interrupted process of the same binary with the same arguments and taken back from its journal (OUT.rows, harness/sph/sph_journal.h) by --resume; the others by this one");
		json_key(j, "rows");
		json_begin_array(j);
		for (size_t r = 0; r < t->nrows; r++)
			if (t->rows[r].resumed) {
				char label[KEEP_LABEL];
				sph_row_label(t->rows[r].v->name, t->rows[r].col.name,
					      (unsigned long)t->rows[r].warm_steps, t->rows[r].flow_to, label,
					      sizeof label);
				json_string(j, label);
			}
		json_end_array(j);
		json_end_object(j);
	}
	json_key(j, "states");
	json_begin_array(j);
	for (size_t r = 0; r < t->nrows; r++) {
		const struct sph_row *row = &t->rows[r];
		bool seen = row->flow_to || !row->state_by;
		for (size_t q = 0; q < r && !seen; q++)
			seen = !t->rows[q].flow_to && t->rows[q].state_by &&
			       strcmp(t->rows[q].col.name, row->col.name) == 0 &&
			       t->rows[q].warm_steps == row->warm_steps;
		if (seen)
			continue;
		char fnv[24];
		snprintf(fnv, sizeof fnv, "%016llx", (unsigned long long)row->state_fnv1a64);
		json_begin_object(j);
		json_kv_string(j, "column", row->col.name);
		json_kv_int(j, "step", row->warm_steps);
		json_kv_double(j, "time_s", row->warm_steps * row->dt);
		json_kv_string(j, "by", row->state_by);
		json_kv_string(j, "fnv1a64", fnv);
		json_kv_int(j, "clamps", (long long)row->state_clamps);
		json_kv_bool(j, "reused", row->state_reused);
		json_end_object(j);
	}
	json_end_array(j);
	json_key(j, "samples");
	json_begin_array(j);
	for (size_t r = 0; r < t->nrows; r++)
		results_json_samples(j, t->rows[r].v->name, t->rows[r].n, &t->rows[r].t,
				     t->rows[r].timed && !t->rows[r].flow_to);
	json_end_array(j);
}

/* Under a table with a row whose clamps are not 0. */
static void sph_print_clamp_note(const struct sph_row *rows, size_t nrows)
{
	for (size_t r = 0; r < nrows; r++)
		if (rows[r].clamps) {
			printf("clamps: coordinates the last-resort clamp put back onto a wall; a row "
			       "with any (!) is of water that left the walls\n");
			return;
		}
}

static void sph_print(const struct sph_row *rows, size_t nrows)
{
	size_t reps = 0; /* the repetitions a row had (--repetitions), 0 when none */
	bool moments = false; /* rows after different warm-ups: the column says which */
	for (size_t r = 0; r < nrows && !reps; r++)
		reps = rows[r].timed && rows[r].t.nreps > 1 ? rows[r].t.nreps : 0;
	for (size_t r = 1; r < nrows; r++)
		moments = moments || rows[r].warm_steps != rows[0].warm_steps || rows[r].flow_to;
	printf("%-20s %8s", "variant", "N");
	if (moments)
		printf(" %7s", "after");
	printf(" %-5s %9s %9s %9s %9s", "valid", "rho_err", "acc_err", "ms/step", "steps/s");
	if (reps)
		printf(" %10s", "reps range");
	printf(" %8s %8s %8s %8s %7s %7s\n", "build", "density", "force", "integr", "aux B/p",
	       "clamps");
	for (size_t r = 0; r < nrows; r++) {
		const struct sph_row *row = &rows[r];
		double ms[4];
		sph_row_phase_ms(row, ms);
		printf("%-20s %8zu", row->v->name, row->n);
		if (moments && row->flow_to)
			printf(" %7s", "flow");
		else if (moments)
			printf(" %7d", row->warm_steps);
		printf(" %-5s %9.2e %9.2e", row->val.pass ? "ok" : "FAIL", row->val.rho_err,
		       row->val.acc_err);
		char range[32];
		repetitions_cell(range, sizeof range, &row->t);
		if (row->timed)
			printf(" %9.3f %9.1f", 1e3 * row->t.s.median, 1.0 / row->t.s.median);
		else
			printf(" %9s %9s", "-", "-");
		if (reps)
			printf(" %10s", range);
		if (row->timed)
			printf(" %8.3f %8.3f %8.3f %8.3f", ms[0], ms[1], ms[2], ms[3]);
		else
			printf(" %8s %8s %8s %8s", "-", "-", "-", "-");
		printf(" %7.1f %6llu%s\n", (double)row->counts.aux_bytes / (double)row->n, row->clamps,
		       row->clamps ? "!" : " ");
	}
	sph_print_clamp_note(rows, nrows);
	for (size_t r = 0; r < nrows; r++)
		if (rows[r].flow_to) {
			printf("flow: the rate of the whole flow from the first moment to the last, "
			       "each moment weighing the steps it stands for\n");
			break;
		}
	if (reps)
		repetitions_note(stdout, reps);
}

static void sph_print_render(const struct sph_row *rows, size_t nrows)
{
	printf("%-20s %8s %-5s %8s %7s %9s %8s %8s %8s %8s %8s %8s %8s\n", "variant", "N", "valid",
	       "surface", "psnr", "field/bd", "extr ms", "field", "raycast", "phys fps", "extr fps",
	       "rend fps", "overall");
	for (size_t r = 0; r < nrows; r++) {
		const struct render_run_result *x = &rows[r].r;
		if (!x->done)
			continue;
		printf("%-20s %8zu %-5s %8zu %7.1f %9.3f", rows[r].v->name, rows[r].n,
		       !x->valid ? "FAIL" : rows[r].clamps ? "ok!" : "ok", x->surface_count,
		       x->image.psnr_db, x->field.worst_ratio);
		if (x->timed && rows[r].timed) {
			const struct render_fps f = render_run_fps(x, rows[r].t.s.median);
			printf(" %8.3f %8.3f %8.3f %8.0f %8.0f %8.0f %8.0f\n", 1e3 * x->extraction_s,
			       1e3 * x->field_s, 1e3 * x->raycast_s, f.physics, f.extraction,
			       f.rendering, f.overall);
		} else {
			printf("\n");
		}
	}
}

/* The one line that names what a run or suite skipped (unless quiet). */
void sph_say_skipped(const struct sph_options *o, const char *suite,
		     const struct skips *skipped)
{
	char prefix[160];
	snprintf(prefix, sizeof prefix, "harness: sph: %s%s%s", suite ? "suite " : "",
		 suite ? suite : "", suite ? ": " : "");
	if (!o->quiet)
		skips_say(stderr, skipped, prefix);
}

/* Prints the table (unless quiet) and writes out with its sidecar (inc:
 * an interrupted run's; NULL: a whole one). 0, or -1 with err. */
int sph_write(int argc, char **argv, const struct sph_options *o, const char *out,
	      const struct sph_row *rows, size_t nrows, const struct skips *skipped, bool render,
	      const struct results_incomplete *inc, char *err, size_t errlen)
{
	if (!o->quiet) {
		sph_print(rows, nrows);
		if (render)
			sph_print_render(rows, nrows);
	}
	if (!out)
		return 0;
	struct sph_table_ctx tc = { rows, nrows, render, o->ro.samples_per_unit };
	const char *cols[SPH_NCOLS + SPH_RENDER_NCOLS];
	memcpy(cols, sph_columns_csv, sizeof sph_columns_csv);
	memcpy(cols + SPH_NCOLS, sph_render_columns_csv, sizeof sph_render_columns_csv);
	struct results_table t = { .schema = render ? "sph-harness-render/1" : "sph-harness-results/1",
				   .columns = cols,
				   .ncols = SPH_NCOLS + (render ? SPH_RENDER_NCOLS : 0),
				   .nrows = nrows, .rows = rows,
				   .format = sph_format_table, .json = sph_json, .ctx = &tc };
	struct results_meta meta = { argc, argv, &o->timing, NULL, 0, skipped, inc };
	return results_write_table(out, &t, &meta, err, errlen);
}
