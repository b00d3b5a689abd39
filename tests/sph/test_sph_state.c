/* test_sph_state.c - the flow's state files and the rate of the whole flow */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../harness/core/sysinfo.h"
#include "../../harness/sph/sph_flow.h"
#include "../../harness/sph/sph_state.h"
#include "../../reference/sph_scene.h"
#include "../../variants/sph_registry.h"

#define STATE_COLUMN "6x6x7@4"

static void build(struct sph_column *col, struct sph_scene *sc)
{
	char err[256];
	cr_assert_eq(sph_scene_column_parse(STATE_COLUMN, col, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sph_scene_build(col, 7, sc, err, sizeof err), 0, "%s", err);
}

static const struct sph_variant *cpu_grid(void)
{
	for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
		if (strcmp(sph_variants[i].name, "sph-cpu-grid") == 0)
			return &sph_variants[i];
	cr_assert_fail("no sph-cpu-grid");
	return NULL;
}

/* Runs v from the scene for steps steps; its positions and velocities. */
static void run_directly(const struct sph_variant *v, const struct sph_scene *sc, int steps,
			 float *pos4, float *vel4)
{
	void *ctx;
	char err[256];
	struct sph_phase_times t = { 0 };
	const struct sph_input in = { sc->n, sc->pos4, sc->vel4, sc->nb, sc->bnd4 };
	cr_assert_eq(v->ops->create(&ctx, &in, &sc->p, err, sizeof err), 0, "%s", err);
	cr_assert_eq(steps ? v->ops->steps(ctx, steps, &t) : 0, 0);
	cr_assert_eq(v->ops->read(ctx, pos4, vel4, NULL, NULL), 0);
	v->ops->destroy(ctx);
}

static char *tmp_dir(void)
{
	char *d = strdup("/tmp/harness-state-XXXXXX");
	cr_assert_not_null(mkdtemp(d));
	return d;
}

static void rm_rf(const char *d)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
	cr_assert_eq(system(cmd), 0);
}

static size_t entries(const char *d)
{
	size_t n = 0;
	DIR *dir = opendir(d);
	cr_assert_not_null(dir);
	for (struct dirent *e; (e = readdir(dir));)
		n += e->d_name[0] != '.';
	closedir(dir);
	return n;
}

/* A state written and read back is the same particles, bit for bit, and
 * the same meta; one of another seed, step or producer is another flow. */
Test(sph_state, a_state_reads_back_as_written)
{
	struct sph_column col;
	struct sph_scene sc;
	build(&col, &sc);
	char *d = tmp_dir(), path[512], err[512];
	snprintf(path, sizeof path, "%s/s.sphstate", d);
	float *pos = malloc(4 * sc.n * sizeof(float)), *vel = malloc(4 * sc.n * sizeof(float));
	run_directly(cpu_grid(), &sc, 3, pos, vel);
	struct sph_state_meta m, back;
	sph_state_meta_of(&m, &col, 7, &sc, 3, "sph-cpu-grid");
	m.clamps = 2;
	cr_assert_eq(sph_state_write(path, &m, pos, vel, err, sizeof err), 0, "%s", err);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq((size_t)st.st_size, sph_state_file_bytes(sc.n));
	float *p2 = calloc(4 * sc.n, sizeof(float)), *v2 = calloc(4 * sc.n, sizeof(float));
	cr_assert_eq(sph_state_read(path, &back, p2, v2, sc.n, err, sizeof err), 0, "%s", err);
	cr_expect_eq(memcmp(pos, p2, 4 * sc.n * sizeof(float)), 0);
	cr_expect_eq(memcmp(vel, v2, 4 * sc.n * sizeof(float)), 0);
	cr_expect_eq(back.step, 3);
	cr_expect_eq(back.clamps, 2);
	cr_expect_eq(back.n, sc.n);
	cr_expect_eq(back.nb, sc.nb);
	cr_expect_float_eq(back.time_s, 3 * sc.p.dt, 1e-15);
	cr_expect_str_eq(back.producer, "sph-cpu-grid");
	cr_expect_str_eq(back.build, sph_state_build());
	cr_expect_str_eq(back.col.name, col.name);
	cr_expect_eq(back.payload_fnv, sph_state_payload_hash(pos, vel, sc.n));
	char why[64];
	cr_expect(sph_state_same_flow(&back, &m, true, why, sizeof why), "%s", why);
	struct sph_state_meta other = m;
	other.seed = 8;
	cr_expect(!sph_state_same_flow(&other, &m, false, why, sizeof why));
	cr_expect_str_eq(why, "another seed");
	other = m;
	other.step = 4;
	cr_expect(!sph_state_same_flow(&other, &m, false, why, sizeof why));
	cr_expect_str_eq(why, "another step");
	other = m;
	snprintf(other.producer, sizeof other.producer, "sph-gpu-verlet");
	cr_expect(sph_state_same_flow(&other, &m, false, why, sizeof why), "the producer not asked");
	cr_expect(!sph_state_same_flow(&other, &m, true, why, sizeof why));
	cr_expect_str_eq(why, "another producer");
	other = m;
	other.walls_fnv ^= 1;
	cr_expect(!sph_state_same_flow(&other, &m, false, why, sizeof why));
	cr_expect_str_eq(why, "other walls");
	free(pos);
	free(vel);
	free(p2);
	free(v2);
	sph_scene_free(&sc);
	rm_rf(d);
	free(d);
}

/* Writes len bytes of b at offset of path. */
static void poke(const char *path, long offset, const void *b, size_t len)
{
	FILE *fp = fopen(path, "r+b");
	cr_assert_not_null(fp);
	cr_assert_eq(fseek(fp, offset, SEEK_SET), 0);
	cr_assert_eq(fwrite(b, 1, len, fp), len);
	fclose(fp);
}

/* A damaged, cut, foreign or other-version file is refused in one line
 * that says which. */
Test(sph_state, a_damaged_state_is_refused_saying_why)
{
	struct sph_column col;
	struct sph_scene sc;
	build(&col, &sc);
	char *d = tmp_dir(), path[512], err[512];
	snprintf(path, sizeof path, "%s/s.sphstate", d);
	struct sph_state_meta m, back;
	sph_state_meta_of(&m, &col, 7, &sc, 0, "sph-cpu-grid");
	float *p = calloc(4 * sc.n, sizeof(float)), *v = calloc(4 * sc.n, sizeof(float));
	const long end = (long)sph_state_file_bytes(sc.n);
	struct { long at; const char *says; int cut; } cases[] = {
		{ end - 1, "damaged", 0 },               /* the last velocity's byte */
		{ end - (long)(8 * sc.n * sizeof(float)), "damaged", 0 }, /* the first position */
		{ 0, "not an SPH state file", 0 },
		{ 8, "version", 0 },
		{ end - 4, "cut short", 1 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		cr_assert_eq(sph_state_write(path, &m, sc.pos4, sc.vel4, err, sizeof err), 0, "%s", err);
		if (cases[k].cut) {
			cr_assert_eq(truncate(path, cases[k].at), 0);
		} else {
			const unsigned char x = 0x5a;
			poke(path, cases[k].at, &x, 1);
		}
		cr_expect_eq(sph_state_read(path, &back, p, v, sc.n, err, sizeof err), -1,
			     "case %zu read", k);
		cr_expect(strstr(err, cases[k].says) && strstr(err, path), "case %zu: %s", k, err);
	}
	cr_assert_eq(sph_state_write(path, &m, sc.pos4, sc.vel4, err, sizeof err), 0, "%s", err);
	cr_expect_eq(sph_state_read(path, &back, p, v, sc.n + 1, err, sizeof err), -1);
	cr_expect(strstr(err, "fluid particles"), "%s", err);
	snprintf(path, sizeof path, "%s/none.sphstate", d);
	cr_expect_eq(sph_state_read(path, &back, p, v, sc.n, err, sizeof err), -1);
	cr_expect(strstr(err, "cannot open"), "%s", err);
	free(p);
	free(v);
	sph_scene_free(&sc);
	rm_rf(d);
	free(d);
}

/* The weights are the steps of flow each moment stands for, by the
 * trapezoid rule: half the gaps to its neighbours. */
Test(sph_flow, a_moment_weighs_half_the_gaps_to_its_neighbours)
{
	const unsigned long s[] = { 20, 100, 300, 301 };
	double w[4];
	cr_assert_eq(sph_flow_weights(s, 4, w), 0);
	cr_expect_float_eq(w[0], 40, 1e-12);
	cr_expect_float_eq(w[1], 140, 1e-12);
	cr_expect_float_eq(w[2], 100.5, 1e-12);
	cr_expect_float_eq(w[3], 0.5, 1e-12);
	cr_assert_eq(sph_flow_weights(s, 2, w), 0);
	cr_expect_float_eq(w[0], 40, 1e-12);
	cr_expect_float_eq(w[1], 40, 1e-12);
	const unsigned long repeat[] = { 20, 20 }, down[] = { 100, 20 };
	cr_expect_eq(sph_flow_weights(s, 1, w), -1, "one moment is no stretch of flow");
	cr_expect_eq(sph_flow_weights(repeat, 2, w), -1);
	cr_expect_eq(sph_flow_weights(down, 2, w), -1);
}

/* The flow's seconds a step are its steps' time over its steps; its
 * noise that of a sum of independent times. */
Test(sph_flow, the_flow_is_its_steps_over_their_time)
{
	const struct sph_flow_timing m[3] = {
		{ 1e-3, 0.9e-3, 1.2e-3, 1.0, { 0.1, 0.3, 0.5, 0.1 } },
		{ 2e-3, 1.9e-3, 2.4e-3, 2.0, { 0.4, 0.6, 0.9, 0.1 } },
		{ 4e-3, 3.8e-3, 4.1e-3, 0.5, { 1.5, 1.0, 1.4, 0.1 } },
	};
	const double w[3] = { 10, 30, 20 };
	struct sph_flow_timing f;
	sph_flow_combine(m, w, 3, &f);
	/* 60 steps: 10 of 1 ms, 30 of 2 ms, 20 of 4 ms = 150 ms */
	cr_expect_float_eq(f.median_s, 0.150 / 60, 1e-15);
	cr_expect_float_eq(f.min_s, (10 * 0.9e-3 + 30 * 1.9e-3 + 20 * 3.8e-3) / 60, 1e-15);
	cr_expect_float_eq(f.max_s, (10 * 1.2e-3 + 30 * 2.4e-3 + 20 * 4.1e-3) / 60, 1e-15);
	/* spreads of 10 x 1 ms x 1 %, 30 x 2 ms x 2 %, 20 x 4 ms x 0.5 %:
	 * 0.1, 1.2 and 0.4 ms of 150 */
	cr_expect_float_eq(f.noise_pct, 100 * sqrt(0.01 + 1.44 + 0.16) / 150, 1e-12);
	cr_expect_float_eq(f.phase_ms[0], (10 * 0.1 + 30 * 0.4 + 20 * 1.5) / 60, 1e-12);
	cr_expect_float_eq(f.phase_ms[2], (10 * 0.5 + 30 * 0.9 + 20 * 1.4) / 60, 1e-12);
}

/* The producer's states are those a variant reaches running the flow from
 * step 0 itself, bit for bit, at every moment asked (once each, in
 * order); temporary ones leave no file behind. */
Test(sph_flow, the_states_are_the_flow_run_from_its_start, .timeout = 60)
{
	struct sph_column col;
	struct sph_scene sc;
	build(&col, &sc);
	char *d = tmp_dir(), err[512];
	setenv("TMPDIR", d, 1);
	const unsigned long steps[] = { 5, 0, 5, 2 };
	struct sph_flow_states fs;
	cr_assert_eq(sph_flow_produce(&fs, cpu_grid(), &col, 7, &sc, steps, 4, NULL, NULL, err,
				      sizeof err), 0, "%s", err);
	cr_expect_eq(fs.k, 3);
	cr_expect_eq(fs.step[0], 0);
	cr_expect_eq(fs.step[1], 2);
	cr_expect_eq(fs.step[2], 5);
	cr_expect_eq(entries(d), 0, "temporary states leave no file in TMPDIR");
	float *p = malloc(4 * sc.n * sizeof(float)), *v = malloc(4 * sc.n * sizeof(float));
	float *q = malloc(4 * sc.n * sizeof(float)), *u = malloc(4 * sc.n * sizeof(float));
	for (size_t i = 0; i < fs.k; i++) {
		struct sph_state_meta m;
		cr_assert_eq(sph_flow_load(&fs, fs.step[i], p, v, &m, err, sizeof err), 0, "%s", err);
		run_directly(cpu_grid(), &sc, (int)fs.step[i], q, u);
		cr_expect_eq(memcmp(p, q, 4 * sc.n * sizeof(float)), 0, "positions at step %lu", fs.step[i]);
		cr_expect_eq(memcmp(v, u, 4 * sc.n * sizeof(float)), 0, "velocities at step %lu", fs.step[i]);
		cr_expect_eq(m.step, fs.step[i]);
	}
	cr_expect_eq(sph_flow_load(&fs, 3, p, v, &(struct sph_state_meta){ 0 }, err, sizeof err), -1);
	cr_expect(strstr(err, "step 3"), "%s", err);
	sph_flow_states_free(&fs);
	unsetenv("TMPDIR");
	free(p);
	free(v);
	free(q);
	free(u);
	sph_scene_free(&sc);
	rm_rf(d);
	free(d);
}

/* Kept states are files in the folder, read back (not made again) by a
 * later run of a clean build; a file cut short there is made again. */
Test(sph_flow, kept_states_are_read_back_by_a_clean_build, .timeout = 60)
{
	struct sph_column col;
	struct sph_scene sc;
	build(&col, &sc);
	char *d = tmp_dir(), err[512], path[1200];
	const unsigned long steps[] = { 0, 4 };
	struct sph_flow_states fs, again;
	cr_assert_eq(sph_flow_produce(&fs, cpu_grid(), &col, 7, &sc, steps, 2, d, NULL, err,
				      sizeof err), 0, "%s", err);
	cr_expect(!fs.reused);
	cr_expect_eq(entries(d), 2, "one file a moment");
	cr_expect_gt(strlen(fs.path[1]), 0);
	cr_assert_eq(sph_flow_produce(&again, cpu_grid(), &col, 7, &sc, steps, 2, d, NULL, err,
				      sizeof err), 0, "%s", err);
	cr_expect_eq(again.reused, !sysinfo_git_dirty(),
		     "a clean build reads them back; one with uncommitted changes makes them anew");
	cr_expect_eq(again.meta[1].payload_fnv, fs.meta[1].payload_fnv);
	snprintf(path, sizeof path, "%s", fs.path[1]);
	sph_flow_states_free(&again);
	cr_assert_eq(truncate(path, 100), 0);
	cr_assert_eq(sph_flow_produce(&again, cpu_grid(), &col, 7, &sc, steps, 2, d, NULL, err,
				      sizeof err), 0, "%s", err);
	cr_expect(!again.reused, "a file cut short is made again");
	struct sph_state_meta m;
	float *p = malloc(4 * sc.n * sizeof(float)), *v = malloc(4 * sc.n * sizeof(float));
	cr_expect_eq(sph_flow_load(&again, 4, p, v, &m, err, sizeof err), 0, "%s", err);
	cr_expect_eq(m.payload_fnv, fs.meta[1].payload_fnv, "the same flow made again");
	sph_flow_states_free(&fs);
	sph_flow_states_free(&again);
	free(p);
	free(v);
	sph_scene_free(&sc);
	rm_rf(d);
	free(d);
}
