/* test_sph_run.c - bin/harness sph as a user runs it */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../harness/core/csv_table.h"
#include "../../harness/core/gpu_device.h"
#include "../../harness/core/json_in.h"
#include "../../harness/core/stats.h"
#include "../../harness/sph/sph_row.h"
#include "../../harness/sph/sph_run.h"
#include "../../variants/sph_registry.h"
#include "../../harness/core/sysinfo.h"
#include "../../reference/sph_scene.h"
#include "../cli_run.h"
#include "../tmp_dir.h"
#include "vtk_read.h"

static const char *sph_bin(void)
{
	return cli_harness_bin();
}

static int sph_cli(const char *args, char *errtext, size_t len)
{
	return cli_run_cmd("sph", args, errtext, len);
}

static void expect_sph_usage(const char *args, const char *mention)
{
	cli_expect_usage("sph", args, mention);
}

Test(sph_run, user_errors)
{
	expect_sph_usage("launch", "launch");
	expect_sph_usage("check --column 12345", "12345");
	expect_sph_usage("check --variant sph-nosuch", "sph-nosuch");
	/* the line names every SPH variant, the last of the registry too */
	expect_sph_usage("check --variant sph-nosuch", sph_variants[SPH_VARIANT_COUNT - 1].name);
	expect_sph_usage("check --warm-steps 2.5", "2.5");
	expect_sph_usage("check --warm-steps -1", "--warm-steps");
	expect_sph_usage("run --max-noise 101", "--max-noise");
	expect_sph_usage("check --frob", "--frob");
	expect_sph_usage("run --render --shading glossy", "--shading");
	expect_sph_usage("check --out /nonexistent-dir/s.csv", "/nonexistent-dir");
}

/* A column larger than the memory the harness may use is refused before any work,
 * in one line saying how much it needs and how much there is. */
Test(sph_run, a_column_larger_than_memory_exits_2_first)
{
	const struct sph_column big = { "512x512x512", 512, 512, 512, 0, 4.0, 0.0, 0, 0, 0 };
	/* at most 32 GiB, so that a machine with more refuses it too */
	setenv("HARNESS_MEMORY", "32G", 1);
	char err[512], dir[] = "/tmp/harness-sph-mem-XXXXXX", args[512];
	cr_assert_eq(sph_run_check_memory(&big, err, sizeof err), -1);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(args, sizeof args, "check --column 512x512x512 --out %s/s.csv", dir);
	expect_sph_usage(args, "--column 512x512x512 needs about 96.0 GiB of memory");
	expect_sph_usage("run --column 16128,512x512x512", "GiB is available (allowed here: particles <= ");
	expect_sph_usage("snapshot --variant sph-cpu-grid --column 512x512x512 --at 0 --out /tmp/s.csv",
			 "512x512x512 needs");
	snprintf(args, sizeof args, "%s/s.csv", dir);
	cr_expect(access(args, F_OK) != 0, "nothing written");
	rmdir(dir);
}

Test(sph_run, list_and_help)
{
	char e[4096];
	cr_assert_eq(sph_cli("list", e, sizeof e), 0, "%s", e);
	cr_assert_eq(sph_cli("--help", e, sizeof e), 0, "%s", e);
}

Test(sph_run, check_writes_a_validated_row, .timeout = 120)
{
	char dir[] = "/tmp/harness-sph-out-XXXXXX", out[256], args[512], e[4096];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/s.csv", dir);
	snprintf(args, sizeof args, "check --variant sph-cpu-grid --column 16128 --warm-steps 5 --out %s", out);
	cr_assert_eq(sph_cli(args, e, sizeof e), 0, "%s", e);
	struct csv_table t;
	char err[256];
	cr_assert_eq(csv_table_read(out, &t, err, sizeof err), 0, "%s", err);
	cr_assert_eq(t.nrows, 1);
	long long valid, pairs, ref;
	cr_assert_eq(csv_table_long(&t, 0, "valid", &valid, err, sizeof err), 0, "%s", err);
	cr_assert_eq(csv_table_long(&t, 0, "neighbour_pairs", &pairs, err, sizeof err), 0, "%s", err);
	cr_assert_eq(csv_table_long(&t, 0, "reference_pairs", &ref, err, sizeof err), 0, "%s", err);
	cr_expect_eq(valid, 1);
	cr_expect_gt(pairs, 16128LL * 10);
	cr_expect_eq(csv_table_cell(&t, 0, (size_t)csv_table_col(&t, "steps_per_s"))[0], '\0',
		     "check does not time");
	csv_table_free(&t);
	char side[300];
	snprintf(side, sizeof side, "%s/s.meta.json", dir);
	cr_expect(access(side, F_OK) == 0, "the sidecar is there");
	unlink(out);
	unlink(side);
	rmdir(dir);
}

Test(sph_run, suite_errors)
{
	expect_sph_usage("run --suite sph-nosuch", "sph-nosuch");
	expect_sph_usage("run --suite sph-table --column 16128", "--suite");
	expect_sph_usage("check --suite sph-table", "--suite");
	expect_sph_usage("run --out-dir /tmp/x", "--out-dir");
}

Test(sph_run, snapshot_writes_every_particle_at_each_step, .timeout = 120)
{
	char dir[] = "/tmp/harness-sph-snap-XXXXXX", out[256], args[512], e[4096];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/c.csv", dir);
	snprintf(args, sizeof args, "snapshot --variant sph-cpu-grid --column 16128 --at 0,3 --out %s", out);
	cr_assert_eq(sph_cli(args, e, sizeof e), 0, "%s", e);
	struct csv_table t;
	char err[256];
	cr_assert_eq(csv_table_read(out, &t, err, sizeof err), 0, "%s", err);
	cr_expect_eq(t.nrows, 2 * 16128);
	long long step;
	cr_assert_eq(csv_table_long(&t, t.nrows - 1, "step", &step, err, sizeof err), 0, "%s", err);
	cr_expect_eq(step, 3);
	csv_table_free(&t);
	unlink(out);
	rmdir(dir);
	expect_sph_usage("snapshot --variant sph-cpu-grid --column 16128 --out /tmp/x.csv", "--at");
	expect_sph_usage("snapshot --variant sph-cpu-grid --at 5,3 --out /tmp/x.csv", "ascending");
}

Test(sph_run, run_suite_sph_goes_to_the_sph_command)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s run --suite sph-nosuch 2>&1 >/dev/null | grep -q 'harness: sph: unknown suite'", sph_bin());
	cr_expect_eq(system(cmd), 0, "harness run --suite sph-* is the sph command's");
}

/* sph-memory with no GPU visible, on every machine: its GPU lines are
 * skipped and named in the sidecar, the CPU variant still runs, and the
 * suite succeeds. (With a GPU its GPU lines take some 100 s; the suite's
 * own runs measure them.) */
Test(sph_run, quiet_suite_skips_what_cannot_run_here, .timeout = 120)
{
	char dir[] = "/tmp/harness-sph-suite-XXXXXX", line[1024], e[4096];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(line, sizeof line,
		 "CUDA_VISIBLE_DEVICES= %s sph run --suite sph-memory --out-dir %s --quiet --warm-steps 2",
		 cli_harness_bin(), dir);
	cr_expect_eq(cli_run(line, e, sizeof e), 0, "%s", e);
	char out[300], side[300], text[16384];
	snprintf(out, sizeof out, "%s/sph-memory.csv", dir);
	snprintf(side, sizeof side, "%s/sph-memory.meta.json", dir);
	cr_expect(access(out, F_OK) == 0);
	FILE *fp = fopen(side, "r");
	cr_assert_not_null(fp, "%s", side);
	text[fread(text, 1, sizeof text - 1, fp)] = '\0';
	fclose(fp);
	cr_expect(strstr(text, "\"skipped\"") && strstr(text, "\"variant\": \"sph-gpu-verlet\""),
		  "the GPU lines are named as skipped: %.400s", text);
	unlink(out);
	unlink(side);
	rmdir(dir);
}

Test(sph_run, timing_options_follow_the_shared_rules)
{
	expect_sph_usage("run --min-time 3 --max-time 1", "--max-time");
	expect_sph_usage("run --max-time 0", "--max-time");
}

/* The rendering options: bad values, --render where it does not belong,
 * and (on a machine without a GPU) --render itself, each one line and
 * exit 2 before anything runs. */
Test(sph_run, render_user_errors)
{
	expect_sph_usage("run --render --width 0", "--width");
	expect_sph_usage("run --render --height 9000", "--height");
	expect_sph_usage("run --render --res 1", "--res");
	expect_sph_usage("run --render --samples 0", "--samples");
	expect_sph_usage("snapshot --render -v sph-cpu-grid --at 1 --out /tmp/x.csv", "--render");
	if (gpu_device_count() <= 0)
		expect_sph_usage("check --render -v sph-cpu-grid --column 6x6x7@4", "needs a GPU");
}

/* A suite none of whose lines can run here (the rendering table without
 * a GPU) writes no file: asked for by name, one line and exit 2. */
Test(sph_run, suite_that_cannot_run_here_writes_nothing)
{
	if (gpu_device_count() > 0)
		cr_skip_test("the rendering suite runs here: this test needs a machine without a GPU");
	char dir[] = "/tmp/harness-sph-render-suite-XXXXXX", args[512], out[300];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(args, sizeof args, "run --suite sph-render-table --out-dir %s --quiet", dir);
	expect_sph_usage(args, "needs a GPU");
	snprintf(out, sizeof out, "%s/sph-render-table.csv", dir);
	cr_expect(access(out, F_OK) != 0, "%s was written", out);
	rmdir(dir);
}

/* sph run leaves out the variants that cannot run here and says so once,
 * in one line naming them, which the sidecar lists too. */
Test(sph_run, skipped_variants_are_named_once)
{
	if (gpu_device_count() > 0)
		cr_skip_test("nothing is skipped here: this test needs a machine without a GPU");
	char dir[] = "/tmp/harness-sph-skipped-XXXXXX", cmd[1024], err[8192], side[300];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof cmd, "%s sph run --column 6x6x7@4 --warm-steps 1 --min-time 0.01 "
		 "--max-time 0.02 --out %s/s.csv", cli_harness_bin(), dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 0, "%s", err);
	cr_expect(strncmp(err, "harness: sph: skipped ", 22) == 0 && strstr(err, "sph-gpu-brute"),
		  "%s", err);
	/* the line of a busy machine's warning (results.h) may follow: not
	 * another line of skipped variants */
	char *busy = strstr(err, "\nharness: warning: the machine was busy");
	if (busy)
		busy[1] = '\0';
	cr_expect(strchr(err, '\n') == strrchr(err, '\n'), "one line: %s", err);
	snprintf(side, sizeof side, "%s/s.meta.json", dir);
	struct json_in_value v;
	cr_assert_eq(json_in_read_file(side, &v, err, sizeof err), 0, "%s", err);
	const struct json_in_value *sk = json_in_member(&v, "skipped");
	cr_expect(sk && sk->type == JSON_IN_ARRAY && sk->count >= 9, "the sidecar lists them");
	json_in_free(&v);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

/* One row of out: its valid cell and whether it was timed. */
static void sph_row_verdict(const char *out, long long *valid, int *timed)
{
	struct csv_table t;
	char err[256];

	cr_assert_eq(csv_table_read(out, &t, err, sizeof err), 0, "%s", err);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(csv_table_long(&t, 0, "valid", valid, err, sizeof err), 0, "%s", err);
	*timed = csv_table_cell(&t, 0, (size_t)csv_table_col(&t, "steps_per_s"))[0] != '\0';
	csv_table_free(&t);
}

/*
 * A variant that fails validation fails the command: sph check and sph
 * run exit 1 after one "FAILED validation" line, and the row is written
 * with valid 0 and no timing. The bug is planted through the registry's
 * hook (HARNESS_PLANT_DROP_WALL: the variant is given the walls less the
 * boundary particle nearest the first fluid particle); the same command
 * without it exits 0 with a valid row, so the hook, not the column,
 * makes the difference.
 */
Test(sph_run, a_variant_failing_validation_exits_1, .timeout = 120)
{
	static const char *const cmds[] = { "check", "run --min-time 0.01 --max-time 0.05" };
	char dir[] = "/tmp/harness-sph-fail-XXXXXX", out[256], line[1024], e[4096];
	long long valid;
	int timed;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/s.csv", dir);
	for (int c = 0; c < 2; c++) {
		for (int plant = 0; plant < 2; plant++) {
			snprintf(line, sizeof line,
				 "%s%s sph %s --variant sph-cpu-grid --column 8x8x10 --warm-steps 2 "
				 "--quiet --out %s",
				 plant ? "HARNESS_PLANT_DROP_WALL=sph-cpu-grid " : "", sph_bin(),
				 cmds[c], out);
			const int rc = cli_run(line, e, sizeof e);
			sph_row_verdict(out, &valid, &timed);
			if (plant) {
				cr_expect_eq(rc, 1, "planted, sph %s: exit %d: %s", cmds[c], rc, e);
				cr_expect(strstr(e, "FAILED validation") != NULL, "sph %s: %s", cmds[c], e);
				cr_expect_eq(valid, 0, "planted, sph %s: the row says valid", cmds[c]);
				cr_expect(!timed, "planted, sph %s: a failed row was timed", cmds[c]);
			} else {
				cr_expect_eq(rc, 0, "sph %s: exit %d: %s", cmds[c], rc, e);
				cr_expect_eq(valid, 1, "sph %s", cmds[c]);
				cr_expect_eq(timed, c == 1, "sph %s: only run times", cmds[c]);
			}
		}
	}
	char side[300];
	snprintf(side, sizeof side, "%s/s.meta.json", dir);
	unlink(out);
	unlink(side);
	rmdir(dir);
}

/* --filter, --min-samples and --repetitions, as for harness run: only the
 * variants the regex names, at least K samples in every repetition, each
 * repetition's samples in the sidecar and the row's median the median of
 * their medians. */
Test(sph_run, filter_min_samples_and_repetitions, .timeout = 120)
{
	char dir[] = "/tmp/harness-sph-reps-XXXXXX", out[256], cmd[1024], text[16384];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/s.csv", dir);
	snprintf(cmd, sizeof cmd, "%s sph run --filter '^sph-cpu' --column 12x12x12 --warm-steps 2 "
		 "--min-samples 7 --min-time 0 --max-noise 100 --repetitions 2 --out %s", sph_bin(), out);
	cr_assert_eq(cli_run_stdout(cmd, text, sizeof text), 0, "%s", text);
	cr_expect(strstr(text, "reps range") && strstr(text, "2 repetitions a row"), "%s", text);
	struct csv_table t;
	char err[256];
	cr_assert_eq(csv_table_read(out, &t, err, sizeof err), 0, "%s", err);
	cr_assert_eq(t.nrows, 1, "sph-cpu-grid alone");
	cr_expect_str_eq(csv_table_named(&t, 0, "variant"), "sph-cpu-grid");
	char side_path[300];
	snprintf(side_path, sizeof side_path, "%s/s.meta.json", dir);
	struct json_in_value side;
	cr_assert_eq(json_in_read_file(side_path, &side, err, sizeof err), 0, "%s", err);
	const struct json_in_value *reps =
		json_in_member(&json_in_member(&side, "samples")->items[0], "repetitions");
	cr_assert(reps && reps->type == JSON_IN_ARRAY && reps->count == 2, "two repetitions");
	double med[2];
	for (size_t k = 0; k < 2; k++) {
		const struct json_in_value *s = json_in_member(&reps->items[k], "seconds_per_call");
		cr_assert(s && s->type == JSON_IN_ARRAY);
		cr_expect_geq(s->count, 7, "--min-samples 7 in repetition %zu", k);
		double x[64];
		size_t n = s->count < 64 ? s->count : 64;
		cr_assert_eq(n, s->count, "a short run: few samples");
		for (size_t i = 0; i < n; i++)
			x[i] = s->items[i].number;
		med[k] = stats_median(x, n);
	}
	char want[64];
	snprintf(want, sizeof want, "%.6g", stats_median(med, 2));
	cr_expect_str_eq(csv_table_named(&t, 0, "time_median_step_s"), want);
	json_in_free(&side);
	csv_table_free(&t);
	unlink(out);
	unlink(side_path);
	rmdir(dir);
}

/* The column, steps and file prefix of the --format vtk tests. */
#define VTK_ARGS "snapshot --variant sph-cpu-grid --column 8x8x10 --at 0,3,8"
#define VTK_BASE "sph-cpu-grid-8x8x10"
static const unsigned long vtk_steps[] = { 0, 3, 8 };

/* Cell (row, name) of t must read as printf's fmt of x. */
static void expect_cell_printed(const struct csv_table *t, size_t row, const char *name,
				const char *fmt, double x)
{
	char want[64];
	const int col = csv_table_col(t, name);
	cr_assert_geq(col, 0, "no column %s", name);
	snprintf(want, sizeof want, fmt, x);
	cr_assert_str_eq(csv_table_cell(t, row, (size_t)col), want, "row %zu, %s", row, name);
}

static void expect_same_bits(float got, float want, const char *what, size_t i)
{
	cr_assert(memcmp(&got, &want, sizeof got) == 0, "%s of particle %zu: %a, not %a", what, i,
		  (double)got, (double)want);
}

/*
 * sph snapshot --format vtk writes, into the directory of --out (created
 * with its parents), the time series a ParaView user opens: a .pvd whose
 * Collection has, for each step of --at, the fluid's file (part 0) and
 * the boundary's (part 1) at timestep = step dt, and .vtp files that hold
 * the particles of the CSV snapshot of the same run: positions, speeds
 * and densities as the CSV prints them, velocities and everything else
 * bit for bit as the variant, run here, returns them, the pressure of the
 * equation of state, and the scene's walls with their psi.
 */
Test(sph_run, snapshot_vtk_is_the_csv_snapshot_for_paraview, .timeout = 120)
{
	char dir[64], args[512], e[4096], path[300], vdir[128], err[256];
	tmp_dir_make(dir, "sph-vtk");
	snprintf(args, sizeof args, VTK_ARGS " --out %s/c.csv", dir);
	cr_assert_eq(sph_cli(args, e, sizeof e), 0, "%s", e);
	snprintf(vdir, sizeof vdir, "%s/v/w", dir);
	snprintf(args, sizeof args, VTK_ARGS " --format vtk --out %s", vdir);
	cr_assert_eq(sph_cli(args, e, sizeof e), 0, "%s", e);

	struct sph_column col;
	struct sph_scene sc;
	cr_assert_eq(sph_scene_column_parse("8x8x10", &col, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sph_scene_build(&col, 42, &sc, err, sizeof err), 0, "%s", err);
	const int vi = sph_variant_one("sph-cpu-grid", err, sizeof err);
	cr_assert_geq(vi, 0, "%s", err);
	const struct sph_ops *ops = sph_variants[vi].ops;
	const struct sph_input in = { sc.n, sc.pos4, sc.vel4, sc.nb, sc.bnd4 };
	void *ctx = NULL;
	cr_assert_eq(ops->create(&ctx, &in, &sc.p, err, sizeof err), 0, "%s", err);
	float *pos4 = malloc(4 * sc.n * sizeof(float)), *vel4 = malloc(4 * sc.n * sizeof(float));
	float *rho = malloc(sc.n * sizeof(float));
	cr_assert(pos4 && vel4 && rho);

	struct csv_table t;
	snprintf(path, sizeof path, "%s/c.csv", dir);
	cr_assert_eq(csv_table_read(path, &t, err, sizeof err), 0, "%s", err);
	cr_assert_eq(t.nrows, 3 * sc.n);
	snprintf(path, sizeof path, "%s/" VTK_BASE ".pvd", vdir);
	struct vtk_read_dataset ds[VTK_READ_MAX_DATASETS];
	cr_assert_eq(vtk_read_collection(path, ds), 6, "two parts at each of three steps");
	size_t pressed = 0, moving = 0;
	unsigned long done = 0;
	for (size_t k = 0; k < 3; k++) {
		char want[128];
		const double time = (double)vtk_steps[k] * sc.p.dt;
		snprintf(want, sizeof want, VTK_BASE "-fluid-%lu.vtp", vtk_steps[k]);
		cr_expect_eq(ds[2 * k].part, 0);
		cr_expect_str_eq(ds[2 * k].file, want);
		cr_expect_eq(ds[2 * k].timestep, time, "step %lu at %.17g s", vtk_steps[k], ds[2 * k].timestep);
		cr_expect_eq(ds[2 * k + 1].part, 1);
		cr_expect_str_eq(ds[2 * k + 1].file, VTK_BASE "-boundary.vtp");
		cr_expect_eq(ds[2 * k + 1].timestep, time);

		struct sph_phase_times ph = { 0 };
		cr_assert(vtk_steps[k] == done || ops->steps(ctx, (int)(vtk_steps[k] - done), &ph) == 0);
		done = vtk_steps[k];
		cr_assert_eq(ops->evaluate(ctx, 0), 0);
		cr_assert_eq(ops->read(ctx, pos4, vel4, rho, NULL), 0);

		snprintf(path, sizeof path, "%s/%s", vdir, ds[2 * k].file);
		struct vtk_read_polydata pd;
		const struct vtk_read_array *x = vtk_read_points(path, &pd, sc.n, 3);
		const struct vtk_read_array *v =
			vtk_read_find(&pd, "PointData", "velocity_m_per_s", "Float32", 3);
		const struct vtk_read_array *r =
			vtk_read_find(&pd, "PointData", "density_kg_per_m3", "Float32", 1);
		const struct vtk_read_array *pr =
			vtk_read_find(&pd, "PointData", "pressure_Pa", "Float32", 1);
		for (size_t i = 0; i < sc.n; i++) {
			const size_t row = k * sc.n + i;
			double sp2 = 0;
			for (int c = 0; c < 3; c++) {
				const float xc = vtk_read_f32(x, i, c), vc = vtk_read_f32(v, i, c);
				static const char *const names[] = { "x_m", "y_m", "z_m" };
				expect_cell_printed(&t, row, names[c], "%.7g", xc);
				expect_same_bits(xc, pos4[4 * i + (size_t)c], "position", i);
				expect_same_bits(vc, vel4[4 * i + (size_t)c], "velocity", i);
				sp2 += (double)vc * vc;
			}
			const float ri = vtk_read_f32(r, i, 0), pi = vtk_read_f32(pr, i, 0);
			expect_cell_printed(&t, row, "step", "%.0f", (double)vtk_steps[k]);
			expect_cell_printed(&t, row, "time_s", "%.6g", time);
			expect_cell_printed(&t, row, "speed_m_per_s", "%.5g", sqrt(sp2));
			expect_cell_printed(&t, row, "rho_kg_per_m3", "%.6g", ri);
			expect_same_bits(ri, rho[i], "density", i);
			expect_same_bits(pi, (float)sph_ref_pressure(&sc.p, ri), "pressure", i);
			pressed += pi > 0.0f;
			moving += sp2 > 0.0;
		}
		vtk_read_polydata_free(&pd);
	}
	cr_expect_gt(pressed, 0, "some water is compressed: the pressure check tells something");
	cr_expect_gt(moving, sc.n, "the water moves: the velocity check tells something");

	snprintf(path, sizeof path, "%s/" VTK_BASE "-boundary.vtp", vdir);
	struct vtk_read_polydata pd;
	const struct vtk_read_array *x = vtk_read_points(path, &pd, sc.nb, 1);
	const struct vtk_read_array *psi = vtk_read_find(&pd, "PointData", "psi_kg", "Float32", 1);
	for (size_t b = 0; b < sc.nb; b++) {
		for (int c = 0; c < 3; c++)
			expect_same_bits(vtk_read_f32(x, b, c), sc.bnd4[4 * b + (size_t)c], "wall", b);
		expect_same_bits(vtk_read_f32(psi, b, 0), (float)(sc.bnd4[4 * b + 3] * sc.p.mass),
				 "psi", b);
	}
	vtk_read_polydata_free(&pd);
	cr_expect_eq(tmp_dir_entries(vdir), 5, "three steps, the walls, the .pvd: nothing else");

	csv_table_free(&t);
	ops->destroy(ctx);
	free(pos4);
	free(vel4);
	free(rho);
	sph_scene_free(&sc);
	tmp_dir_remove(dir);
}

/* Bad input to --format and to --out with it: one line, exit 2, nothing
 * written (a directory --out would have created included). */
Test(sph_run, snapshot_vtk_user_errors)
{
	char dir[64], args[512], path[300];
	tmp_dir_make(dir, "sph-vtk-bad");
	snprintf(args, sizeof args, VTK_ARGS " --format nosuch --out %s/n", dir);
	expect_sph_usage(args, "--format 'nosuch': allowed are csv, vtk");
	expect_sph_usage("check --format vtk --column 8x8x10", "--format goes with snapshot");
	expect_sph_usage(VTK_ARGS " --format vtk", "--out");
	/* --out a regular file: left as it was */
	snprintf(path, sizeof path, "%s/f", dir);
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fputs("mine\n", fp);
	fclose(fp);
	snprintf(args, sizeof args, VTK_ARGS " --format vtk --out %s", path);
	expect_sph_usage(args, "not a directory");
	struct stat st;
	cr_expect(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 5, "%s untouched", path);
	snprintf(args, sizeof args, VTK_ARGS " --format vtk --out %s/sub", path);
	expect_sph_usage(args, "sub");
	/* a directory where a step's file goes */
	snprintf(path, sizeof path, "%s/d", dir);
	cr_assert_eq(mkdir(path, 0777), 0);
	snprintf(path, sizeof path, "%s/d/" VTK_BASE "-fluid-3.vtp", dir);
	cr_assert_eq(mkdir(path, 0777), 0);
	snprintf(args, sizeof args, VTK_ARGS " --format vtk --out %s/d", dir);
	expect_sph_usage(args, VTK_BASE "-fluid-3.vtp");
	snprintf(path, sizeof path, "%s/d", dir);
	cr_expect_eq(tmp_dir_entries(path), 1, "nothing written beside it");
	/* csv's --out must be a file */
	snprintf(args, sizeof args, VTK_ARGS " --format csv --out %s", dir);
	expect_sph_usage(args, "is a directory");
	/* a column beyond memory: refused before the directory is made */
	setenv("HARNESS_MEMORY", "32G", 1);
	snprintf(args, sizeof args,
		 "snapshot --variant sph-cpu-grid --column 512x512x512 --at 0 --format vtk --out %s/m", dir);
	expect_sph_usage(args, "512x512x512 needs");
	snprintf(path, sizeof path, "%s/n", dir);
	cr_expect(access(path, F_OK) != 0, "--format nosuch made %s", path);
	snprintf(path, sizeof path, "%s/m", dir);
	cr_expect(access(path, F_OK) != 0, "a refused column made %s", path);
	cr_expect_eq(tmp_dir_entries(dir), 2, "only the file and the directory the test made");
	tmp_dir_remove(dir);
}

/*
 * A run that fails while it writes (here the files may grow no larger
 * than half way between the boundary's file and a step's, so the walls
 * are written and the first step is not) exits 1 with one line and
 * leaves nothing of itself: no .vtp, no .pvd, no temporary file, not the
 * directory it made; where an earlier series of the same name was, that
 * one is left whole.
 */
Test(sph_run, snapshot_vtk_that_fails_writing_leaves_nothing, .timeout = 120)
{
	char dir[64], args[512], e[4096], path[300], ok[128];
	tmp_dir_make(dir, "sph-vtk-fail");
	snprintf(ok, sizeof ok, "%s/ok", dir);
	static const char *const run = "snapshot --variant sph-cpu-grid --column 16x16x16@0 --at 0,2";
	snprintf(args, sizeof args, "%s --format vtk --out %s", run, ok);
	cr_assert_eq(sph_cli(args, e, sizeof e), 0, "%s", e);
	struct stat sb, sf;
	snprintf(path, sizeof path, "%s/sph-cpu-grid-16x16x16@0-boundary.vtp", ok);
	cr_assert_eq(stat(path, &sb), 0);
	snprintf(path, sizeof path, "%s/sph-cpu-grid-16x16x16@0-fluid-0.vtp", ok);
	cr_assert_eq(stat(path, &sf), 0);
	cr_assert_lt(sb.st_size, sf.st_size, "the column's walls must take the smaller file");
	snprintf(path, sizeof path, "%s/sph-cpu-grid-16x16x16@0.pvd", ok);
	size_t len0, len1;
	unsigned char *before = vtk_read_file(path, &len0);

	struct rlimit was, lim;
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &was), 0);
	lim = was;
	lim.rlim_cur = (rlim_t)(sb.st_size + sf.st_size) / 2;
	signal(SIGXFSZ, SIG_IGN); /* a write past the limit then fails with EFBIG */
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	snprintf(args, sizeof args, "%s --format vtk --out %s/new", run, dir);
	const int rc_new = sph_cli(args, e, sizeof e);
	char e2[4096];
	snprintf(args, sizeof args, "%s --format vtk --out %s", run, ok);
	const int rc_old = sph_cli(args, e2, sizeof e2);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &was), 0);

	cr_expect_eq(rc_new, 1, "exit %d: %s", rc_new, e);
	cr_expect(strncmp(e, "harness: sph: ", 14) == 0 && strstr(e, "fluid-0.vtp") &&
		  strchr(e, '\n') == strrchr(e, '\n'), "one line naming the file: %s", e);
	snprintf(path, sizeof path, "%s/new", dir);
	cr_expect(access(path, F_OK) != 0, "%s is left", path);
	cr_expect_eq(rc_old, 1, "exit %d: %s", rc_old, e2);
	cr_expect_eq(tmp_dir_entries(ok), 4, "the earlier series, no temporary file");
	snprintf(path, sizeof path, "%s/sph-cpu-grid-16x16x16@0.pvd", ok);
	unsigned char *after = vtk_read_file(path, &len1);
	cr_expect(len0 == len1 && memcmp(before, after, len0) == 0, "the earlier .pvd is unchanged");
	free(before);
	free(after);
	tmp_dir_remove(dir);
}

/* sph run's row of sph-cpu-grid on a small column with a window of steps
 * steps after warm steps (env before the command: test hooks); its exit
 * status, the window's columns into hash and samples (when it wrote them)
 * and its stderr into e. */
static int window_row(const char *env, int warm, int steps, char *hash, size_t *samples, char *e,
		      size_t elen)
{
	char dir[] = "/tmp/harness-sph-window-XXXXXX", out[256], cmd[1024], err[256];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/w.csv", dir);
	snprintf(cmd, sizeof cmd, "%s %s sph run -v sph-cpu-grid --column 6x6x7@4 --warm-steps %d "
		 "%s%.0d --min-samples 4 --min-time 0 --max-time 0.01 --quiet --out %s",
		 env, sph_bin(), warm, steps ? "--window-steps " : "", steps, out);
	const int st = cli_run(cmd, e, elen);
	hash[0] = '\0';
	*samples = 0;
	struct csv_table t;
	if (csv_table_read(out, &t, err, sizeof err) == 0) {
		cr_assert_eq(t.nrows, 1);
		snprintf(hash, 17, "%s", csv_table_named(&t, 0, "window_fnv1a64"));
		*samples = (size_t)atol(csv_table_named(&t, 0, "samples"));
		if (st != 0)
			cr_expect_str_eq(csv_table_named(&t, 0, "window_steps"), "", "an untimed row");
		else if (steps)
			cr_expect_eq(atoi(csv_table_named(&t, 0, "window_steps")), steps);
		else
			cr_expect_str_eq(csv_table_named(&t, 0, "window_steps"), "16",
					 "the CPU's default window");
		csv_table_free(&t);
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
	return st;
}

/*
 * Every timed call of an SPH row starts again from the state validated
 * after the warm-up and runs the same window of steps: every window ends
 * on the same positions and velocities, bit for bit, in every sample and
 * in every run; the window's end depends on where it starts and on how
 * many steps it runs; and a window that goes on from the last one's end
 * (the timing that follows the flow), even one step further, is caught.
 */
Test(sph_run, every_timed_window_is_the_same_steps, .timeout = 120)
{
	char a[17], b[17], c[17], d[17], e[4096];
	size_t na, nb, nc, nd;
	cr_assert_eq(window_row("", 5, 4, a, &na, e, sizeof e), 0, "%s", e);
	cr_expect_eq(strlen(a), 16, "a window hash: '%s'", a);
	cr_expect_geq(na, 4, "--min-samples past --max-time");
	cr_assert_eq(window_row("", 5, 4, b, &nb, e, sizeof e), 0, "%s", e);
	cr_expect_str_eq(a, b, "two runs' windows end on the same state");
	cr_assert_eq(window_row("", 6, 4, c, &nc, e, sizeof e), 0, "%s", e);
	cr_expect_str_neq(a, c, "a window from another state ends elsewhere");
	cr_assert_eq(window_row("", 5, 5, d, &nd, e, sizeof e), 0, "%s", e);
	cr_expect_str_neq(a, d, "a longer window ends elsewhere");
	cr_assert_eq(window_row("", 5, 0, d, &nd, e, sizeof e), 0, "%s", e);

	cr_expect_eq(window_row("HARNESS_TEST_HOOKS=1 HARNESS_TEST_DRIFT=sph-cpu-grid:1", 5, 4, d,
				&nd, e, sizeof e), 1, "a drifting window must fail the row");
	cr_expect(strstr(e, "sph-cpu-grid on 6x6x7@4") &&
		  strstr(e, "ended on other positions or velocities than the first one"), "%s", e);
	cr_expect_str_eq(d, "", "a row whose windows differ has no window hash");
}

/*
 * --warm-steps takes moments of the flow, steps or seconds (to the
 * nearest step of the column's time step): each gives rows of its own,
 * validated and timed from its own state, that compare keeps apart; a
 * moment past the limit is refused before any work.
 */
Test(sph_run, each_moment_of_the_flow_is_a_row_of_its_own, .timeout = 120)
{
	char dir[] = "/tmp/harness-sph-moments-XXXXXX", out[256], cmd[1024], e[4096], err[256];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/m.csv", dir);
	const struct sph_column *col = NULL;
	struct sph_column c;
	cr_assert_eq(sph_scene_column_parse("6x6x7@4", &c, err, sizeof err), 0, "%s", err);
	col = &c;
	struct sph_params p;
	sph_scene_box(col, &p);
	/* 3.4 steps of flow: the nearest step is 3 */
	snprintf(cmd, sizeof cmd, "%s sph run -v sph-cpu-grid --column 6x6x7@4 --warm-steps 0,%.6gs,7 "
		 "--window-steps 2 --min-samples 3 --min-time 0 --max-time 0.01 --out %s",
		 sph_bin(), 3.4 * p.dt, out);
	char text[8192];
	cr_assert_eq(cli_run_stdout(cmd, text, sizeof text), 0, "%s", text);
	cr_expect(strstr(text, "after"), "the table says which moment a row is of:\n%s", text);
	struct csv_table t;
	cr_assert_eq(csv_table_read(out, &t, err, sizeof err), 0, "%s", err);
	cr_assert_eq(t.nrows, 4, "three moments and the whole flow");
	const char *want[3] = { "0", "3", "7" };
	double med[3];
	for (size_t r = 0; r < 3; r++) {
		cr_expect_str_eq(csv_table_named(&t, r, "warm_steps"), want[r]);
		cr_expect_str_eq(csv_table_named(&t, r, "valid"), "1");
		cr_expect_str_eq(csv_table_named(&t, r, "flow_to_steps"), "");
		cr_assert_eq(csv_table_double(&t, r, "time_median_step_s", &med[r], err, sizeof err), 0,
			     "%s", err);
		for (size_t q = 0; q < r; q++) {
			cr_expect_str_neq(csv_table_named(&t, r, "window_fnv1a64"),
					  csv_table_named(&t, q, "window_fnv1a64"),
					  "moments %zu and %zu timed the same state", q, r);
			cr_expect_str_neq(csv_table_named(&t, r, "state_fnv1a64"),
					  csv_table_named(&t, q, "state_fnv1a64"),
					  "moments %zu and %zu started from the same state", q, r);
		}
	}
	/* the whole flow, steps 0 to 7: the moments stand for 1.5, 3.5 and 2
	 * steps (half the gaps to their neighbours), so 7 steps take
	 * 1.5 t0 + 3.5 t3 + 2 t7 */
	cr_expect_str_eq(csv_table_named(&t, 3, "warm_steps"), "0");
	cr_expect_str_eq(csv_table_named(&t, 3, "flow_to_steps"), "7");
	cr_expect_str_eq(csv_table_named(&t, 3, "valid"), "1");
	cr_expect_str_eq(csv_table_named(&t, 3, "window_fnv1a64"), "", "a flow row times no window of its own");
	double rate;
	cr_assert_eq(csv_table_double(&t, 3, "steps_per_s", &rate, err, sizeof err), 0, "%s", err);
	const double flow = 7.0 / (1.5 * med[0] + 3.5 * med[1] + 2.0 * med[2]);
	cr_expect(fabs(rate / flow - 1) < 2e-5, "the flow's rate %g, not 7 steps over their time, %g",
		  rate, flow);
	csv_table_free(&t);
	snprintf(cmd, sizeof cmd, "%s compare %s %s 2>/dev/null", sph_bin(), out, out);
	cli_run_stdout(cmd, text, sizeof text);
	cr_expect(strstr(text, "0 only in BASE, 0 only in NEW") && strstr(text, "after"), "%s", text);
	snprintf(cmd, sizeof cmd, "%s sph run -v sph-cpu-grid --column 6x6x7@4 --warm-steps 20,1e4s "
		 "--out %s/never.csv", sph_bin(), dir);
	cr_expect_eq(cli_run(cmd, e, sizeof e), 2);
	cr_expect(strstr(e, "--warm-steps '20,1e4s'") && strstr(e, "<= 1000000"), "%s", e);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

/*
 * A long flow's progress moves with the steps done: making the flow's
 * states reports its part every few steps, so the line (printed here
 * every 0.2 s off a terminal, $HARNESS_PROGRESS_INTERVAL) climbs while
 * they are made, each line after the first part with the time left from
 * the rate so far, instead of standing at 0 % while its estimate grows.
 */
Test(sph_run, the_progress_of_a_long_flow_moves_with_its_steps, .timeout = 120)
{
	char cmd[1024];
	static char err[1 << 16];
	snprintf(cmd, sizeof cmd, "HARNESS_PROGRESS_INTERVAL=0.2 %s sph run -v sph-cpu-grid --column "
		 "12x12x14 --warm-steps 0,1500 --window-steps 2 --min-time 0 --max-time 0.01 "
		 "--out /dev/null 2>&1 >/dev/null", sph_bin());
	FILE *fp = popen(cmd, "r");
	cr_assert_not_null(fp);
	size_t len = fread(err, 1, sizeof err - 1, fp);
	err[len] = '\0';
	cr_assert_eq(pclose(fp), 0, "%s", err);
	int last = -1, lines = 0, rising = 0;
	for (char *line = strtok(err, "\n"); line; line = strtok(NULL, "\n")) {
		if (!strstr(line, "the flow of 12x12x14 to step 1500, by sph-cpu-grid"))
			continue;
		const char *done = strstr(line, "% done");
		cr_assert_not_null(done, "%s", line);
		const char *num = done;
		while (num > line && (num[-1] >= '0' && num[-1] <= '9'))
			num--;
		const int pct = atoi(num);
		cr_expect_geq(pct, last, "the line went back: %s", line);
		rising += pct > last;
		last = pct;
		lines++;
		/* once a part is done (before it there is no rate to go by) */
		if (pct > 0)
			cr_expect(strstr(line, " left"), "a line without the time left: %s", line);
	}
	cr_expect_geq(lines, 4, "the flow's states took several lines");
	cr_expect_geq(rising, 4, "and the part done rose on %d of them", rising);
}
