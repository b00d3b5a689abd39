/* test_sph_checkpoint.c - checkpoints of sph physics: a restart ends bit for bit where an unbroken run does; mismatches refused */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/render/png_out.h"
#include "../../harness/sph/sph_checkpoint.h"
#include "../../harness/sph/sph_state.h"
#include "../../reference/sph_scene.h"
#include "checkpoint_run.h"

#define CK_CPU "-v sph-cpu-grid "

/* Cut in the dam break (every 300 steps: the second is the cut) and
 * restarted, the rest of it and its rows as an unbroken run's. */
Test(sph_checkpoint, a_dam_break_restarted_ends_where_an_unbroken_one_does, .timeout = 120)
{
	char dir[64];
	tmp_dir_make(dir, "ck-dam");
	ck_restart_matches(dir, CK_CPU "--check dambreak --column 6x3x12 --checkpoint-every 300", 2);
	tmp_dir_remove(dir);
}

/* Water at rest cut after its relaxing: the restart relaxes nothing and
 * keeps the relaxed height the checkpoint carries. */
Test(sph_checkpoint, water_at_rest_restarted_ends_where_an_unbroken_one_does, .timeout = 120)
{
	char dir[64];
	tmp_dir_make(dir, "ck-rest");
	ck_restart_matches(dir, CK_CPU "--check rest --rest-column 6x6x6@0 --checkpoint-every 400", 2);
	tmp_dir_remove(dir);
}

/* Two leak columns cut in the second, once the first is finished: its
 * rows come back from the checkpoint, the second goes on from its look
 * with its curves so far, the trace's among them. */
Test(sph_checkpoint, a_leak_check_restarted_in_its_second_column_ends_as_unbroken, .timeout = 180)
{
	char dir[64];
	tmp_dir_make(dir, "ck-leak");
	/* 6x6x7@4: 6,720 steps, checkpoints at 2,016, 4,032, 6,048 (3 rows),
	 * then its check (4); 8x4x8@4: the first checkpoint is the 5th row */
	ck_restart_matches(dir, CK_CPU "--check leak --leak-columns 6x6x7@4,8x4x8@4 --trace "
			   "--checkpoint-every 2000", 5);
	tmp_dir_remove(dir);
}

/* One dam-break checkpoint of dir, made by `sph physics OPTS`. */
static void ck_make(const char *dir, const char *opts)
{
	char args[1024], e[4096];
	snprintf(args, sizeof args, CK_CPU "--check dambreak --column 6x3x12 --checkpoint-every 300 "
		 "%s -q -o %s/a.csv --checkpoint %s/a.ck", opts, dir, dir);
	const int rc = cli_run_cmd("sph physics", args, e, sizeof e);
	cr_assert(rc == 0 || rc == 1, "exit %d: %s", rc, e);
}

/* `sph physics` from dir/name with OPTS is refused in one line, exit 2,
 * saying mention; no results file is written. */
static void ck_refused(const char *dir, const char *name, const char *opts, const char *mention)
{
	char args[1024], e[4096], out[128];
	snprintf(args, sizeof args, CK_CPU "--check dambreak --column 6x3x12 %s -q -o %s/r.csv "
		 "--restart %s/%s", opts, dir, dir, name);
	cr_expect_eq(cli_run_cmd("sph physics", args, e, sizeof e), 2, "%s: %s", opts, e);
	cr_expect(strstr(e, mention) && strchr(e, '\n') == strrchr(e, '\n'), "%s: %s", opts, e);
	snprintf(out, sizeof out, "%s/r.csv", dir);
	cr_expect_neq(access(out, F_OK), 0, "no results file after a refusal");
}

/* Other options than the checkpoint's are refused, naming the first
 * that differs; an option that changes nothing (the checkpoints' own,
 * the output) is not an option of the run's results. */
Test(sph_checkpoint, other_options_are_refused_naming_the_first_that_differs, .timeout = 60)
{
	char dir[64];
	tmp_dir_make(dir, "ck-opts");
	ck_make(dir, "");
	ck_refused(dir, "a.ck", "--seed 43", "(seed=42; this run has seed=43)");
	ck_refused(dir, "a.ck", "--wall-friction 0.5", "this run has wall-friction=0.5");
	ck_refused(dir, "a.ck", "--cfl 0.1", "this run has cfl=0.1");
	ck_refused(dir, "a.ck", "--check all", "this run has checks=dambreak,rest,leak");
	char args[512], e[4096];
	snprintf(args, sizeof args, CK_CPU "--check dambreak --column 6x3x12 -q -o %s/b.csv "
		 "--restart %s/a.ck --checkpoint-every 9s", dir, dir);
	const int rc = cli_run_cmd("sph physics", args, e, sizeof e);
	cr_expect(rc == 0 || rc == 1, "the same options go on: exit %d: %s", rc, e);
	tmp_dir_remove(dir);
}

/* A cut, grown or damaged checkpoint, a plain state, and no file at all
 * are each refused in one line. */
Test(sph_checkpoint, a_damaged_or_cut_checkpoint_is_refused, .timeout = 60)
{
	char dir[64], path[128], cmd[1024];
	tmp_dir_make(dir, "ck-bad");
	ck_make(dir, "");
	snprintf(path, sizeof path, "%s/a.ck", dir);
	size_t len;
	unsigned char *b = file_read_whole(path, &len);
	struct { const char *name; size_t at; } flip[] = { { "particles.ck", 2000 },
							   { "progress.ck", len - 40 } };
	for (size_t i = 0; i < 2; i++) {
		char p[128];
		snprintf(p, sizeof p, "%s/%s", dir, flip[i].name);
		b[flip[i].at] ^= 0x10;
		FILE *fp = fopen(p, "wb");
		cr_assert_not_null(fp);
		fwrite(b, 1, len, fp);
		fclose(fp);
		b[flip[i].at] ^= 0x10;
	}
	free(b);
	ck_refused(dir, "particles.ck", "", "its particles do not hash");
	ck_refused(dir, "progress.ck", "", "its progress does not hash to its checksum");
	snprintf(cmd, sizeof cmd, "head -c 3000 %s > %s/cut.ck && cat %s %s > %s/grown.ck", path, dir,
		 path, path, dir);
	cr_assert_eq(system(cmd), 0);
	ck_refused(dir, "cut.ck", "", "cut short");
	ck_refused(dir, "grown.ck", "", "cut short or grown");
	ck_refused(dir, "none.ck", "", "cannot open");
	/* a state of the flow, as sph run --states keeps: no progress */
	struct sph_column col;
	struct sph_scene sc;
	struct sph_state_meta m;
	char err[256], state[128];
	cr_assert_eq(sph_scene_column_parse("6x3x12", &col, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sph_scene_build(&col, 42, &sc, err, sizeof err), 0, "%s", err);
	sph_state_meta_of(&m, &col, 42, &sc, 0, "sph-cpu-grid");
	snprintf(state, sizeof state, "%s/plain.ck", dir);
	cr_assert_eq(sph_state_write(state, &m, sc.pos4, sc.vel4, err, sizeof err), 0, "%s", err);
	sph_scene_free(&sc);
	ck_refused(dir, "plain.ck", "", "is an SPH state, not a checkpoint");
	tmp_dir_remove(dir);
}

/* The file round trip, and the refusals a run on this build cannot
 * provoke: another binary or build, command, variant and scene. */
Test(sph_checkpoint, a_checkpoint_goes_on_only_in_its_binary_command_variant_and_scene)
{
	char dir[64], path[128], err[512];
	tmp_dir_make(dir, "ck-api");
	snprintf(path, sizeof path, "%s/x.ck", dir);
	struct sph_column col;
	struct sph_scene sc;
	cr_assert_eq(sph_scene_column_parse("6x3x12", &col, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sph_scene_build(&col, 42, &sc, err, sizeof err), 0, "%s", err);
	unsigned char progress[5] = { 1, 2, 3, 4, 5 };
	struct sph_checkpoint w = { .progress = progress, .progress_len = sizeof progress };
	sph_state_meta_of(&w.state, &col, 42, &sc, 120, "sph-cpu-grid");
	snprintf(w.command, sizeof w.command, "sph physics");
	snprintf(w.options, sizeof w.options, "a=1 b=2");
	cr_assert_eq(sph_checkpoint_write(path, &w, sc.pos4, sc.vel4, err, sizeof err), 0, "%s", err);
	struct sph_checkpoint r;
	cr_assert_eq(sph_checkpoint_read(path, &r, err, sizeof err), 0, "%s", err);
	cr_expect_eq(r.state.step, 120);
	cr_expect_eq(r.progress_len, sizeof progress);
	cr_expect_eq(memcmp(r.progress, progress, sizeof progress), 0);
	cr_expect_eq(memcmp(r.pos4, sc.pos4, 4 * sc.n * sizeof *sc.pos4), 0);
	cr_expect_eq(memcmp(r.vel4, sc.vel4, 4 * sc.n * sizeof *sc.vel4), 0);
	struct sph_state_meta want;
	sph_state_meta_of(&want, &col, 42, &sc, 0, "sph-cpu-grid");
	cr_expect_eq(sph_checkpoint_check(&r, path, "sph physics", "sph-cpu-grid", "a=1 b=2", &want,
					  err, sizeof err), 0, "%s", err);
	cr_expect_neq(sph_checkpoint_check(&r, path, "sph render", "sph-cpu-grid", "a=1 b=2", &want,
					   err, sizeof err), 0);
	cr_expect(strstr(err, "is a checkpoint of 'sph physics', not of 'sph render'"), "%s", err);
	cr_expect_neq(sph_checkpoint_check(&r, path, "sph physics", "sph-gpu-verlet", "a=1 b=2",
					   &want, err, sizeof err), 0);
	cr_expect(strstr(err, "is a checkpoint of sph-cpu-grid, not of sph-gpu-verlet"), "%s", err);
	cr_expect_neq(sph_checkpoint_check(&r, path, "sph physics", "sph-cpu-grid", "a=1 b=3", &want,
					   err, sizeof err), 0);
	cr_expect(strstr(err, "(b=2; this run has b=3)"), "%s", err);
	cr_expect_neq(sph_checkpoint_check(&r, path, "sph physics", "sph-cpu-grid", "a=1", &want,
					   err, sizeof err), 0);
	cr_expect(strstr(err, "(b=2; this run has nothing more)"), "%s", err);
	struct sph_state_meta other = want;
	other.seed = 43;
	cr_expect_neq(sph_checkpoint_check(&r, path, "sph physics", "sph-cpu-grid", "a=1 b=2", &other,
					   err, sizeof err), 0);
	cr_expect(strstr(err, "another seed"), "%s", err);
	other = want;
	other.start_fnv ^= 1;
	cr_expect_neq(sph_checkpoint_check(&r, path, "sph physics", "sph-cpu-grid", "a=1 b=2", &other,
					   err, sizeof err), 0);
	cr_expect(strstr(err, "another start"), "%s", err);
	r.binary_fnv ^= 1; /* the same commit built again, or with other flags */
	cr_expect_neq(sph_checkpoint_check(&r, path, "sph physics", "sph-cpu-grid", "a=1 b=2", &want,
					   err, sizeof err), 0);
	cr_expect(strstr(err, "was written by another build") &&
		  strstr(err, "goes on only in the binary that wrote it"), "%s", err);
	r.binary_fnv ^= 1;
	snprintf(r.state.build, sizeof r.state.build, "0123abc");
	cr_expect_neq(sph_checkpoint_check(&r, path, "sph physics", "sph-cpu-grid", "a=1 b=2", &want,
					   err, sizeof err), 0);
	cr_expect(strstr(err, "another build (0123abc"), "%s", err);
	sph_checkpoint_free(&r);
	/* the sidecar names the build, the variant, the scene and the step */
	char side[160];
	struct json_in_value v;
	snprintf(side, sizeof side, "%s.json", path);
	cr_assert_eq(json_in_read_file(side, &v, err, sizeof err), 0, "%s", err);
	cr_expect_str_eq(json_in_member(&v, "schema")->string, SPH_CHECKPOINT_FORMAT);
	cr_expect_str_eq(json_in_member(&v, "variant")->string, "sph-cpu-grid");
	cr_expect_str_eq(json_in_member(&v, "build")->string, sph_state_build());
	cr_expect_eq(json_in_member(&v, "step")->number, 120);
	cr_expect_str_eq(json_in_member(json_in_member(&v, "scene"), "column")->string, "6x3x12");
	json_in_free(&v);
	sph_scene_free(&sc);
	tmp_dir_remove(dir);
}

/* ---- sph render ----------------------------------------------------------- */

#define CK_RENDER "sph render -v sph-cpu-grid --column 6x6x7@4 --at 0,60,120,180 --width 96 " \
		  "--height 54 -q"

/* Cut after its second frame and restarted: the frames after the
 * checkpoint are those of the unbroken run with --checkpoint, byte for
 * byte; the interruption names the checkpoint; other options and another
 * command's checkpoint are refused. */
Test(sph_checkpoint, a_render_restarted_draws_the_unbroken_runs_frames, .timeout = 120)
{
	if (!png_out_available())
		cr_skip_test("this build has no libpng");
	char dir[64], line[1024], e[8192];
	tmp_dir_make(dir, "ck-render");
	snprintf(line, sizeof line, "%s " CK_RENDER " --out %s/a --checkpoint %s/a.ck",
		 cli_harness_bin(), dir, dir);
	cr_assert_eq(cli_run(line, e, sizeof e), 0, "%s", e);
	snprintf(line, sizeof line, "HARNESS_TEST_HOOKS=1 HARNESS_TEST_INTERRUPT=2:TERM %s " CK_RENDER
		 " --out %s/b --checkpoint %s/b.ck", cli_harness_bin(), dir, dir);
	cr_assert_eq(cli_run(line, e, sizeof e), 128 + SIGTERM, "%s", e);
	cr_expect(strstr(e, "the frames up to step 60 are in") &&
		  strstr(e, "the same command with --restart"), "%s", e);
	snprintf(line, sizeof line, "%s " CK_RENDER " --out %s/b --restart %s/b.ck",
		 cli_harness_bin(), dir, dir);
	cr_assert_eq(cli_run(line, e, sizeof e), 0, "%s", e);
	static const char *const steps[] = { "0", "60", "120", "180" };
	ck_frames_match(dir, "sph-cpu-grid", "6x6x7@4", steps, 4);
	snprintf(line, sizeof line, "%s " CK_RENDER " --out %s/b --restart %s/b.ck --seed 3",
		 cli_harness_bin(), dir, dir);
	cr_expect_eq(cli_run(line, e, sizeof e), 2, "%s", e);
	cr_expect(strstr(e, "(seed=42; this run has seed=3)"), "%s", e);
	ck_make(dir, "");
	snprintf(line, sizeof line, "%s " CK_RENDER " --out %s/b --restart %s/a.ck", cli_harness_bin(),
		 dir, dir);
	cr_expect_eq(cli_run(line, e, sizeof e), 2, "%s", e);
	cr_expect(strstr(e, "is a checkpoint of 'sph physics', not of 'sph render'"), "%s", e);
	tmp_dir_remove(dir);
}
