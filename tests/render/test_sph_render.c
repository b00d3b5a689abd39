/* test_sph_render.c - bin/harness sph render: frames written whole, bad input refused (suite sph_render) */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>

#ifdef HARNESS_HAVE_PNG
#include <png.h>
#endif
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/sph/sph_render.h"
#include "../../harness/core/sysinfo.h"
#include "../../reference/sph_scene.h"
#include "../cli_run.h"
#include "../tmp_dir.h"

#ifdef HARNESS_HAVE_PNG
static int render_cli(const char *args, char *e, size_t elen)
{
	return cli_run_cmd("sph render", args, e, elen);
}
#endif

static void expect_render_usage(const char *args, const char *mention)
{
	cli_expect_usage("sph render", args, mention);
}

/* The render command needs libpng; a build without it skips, saying so. */
static void need_png(void)
{
#ifndef HARNESS_HAVE_PNG
	cr_skip_test("built without libpng: sph render writes no frames");
#endif
}

#ifdef HARNESS_HAVE_PNG
/* Whether path holds a PNG of width x height that libpng reads whole. */
static int png_is(const char *path, int width, int height)
{
	png_image im;
	memset(&im, 0, sizeof im);
	im.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&im, path))
		return 0;
	int ok = (int)im.width == width && (int)im.height == height;
	png_image_free(&im);
	return ok;
}
#endif

Test(sph_render, bad_input_exits_2_with_one_line_and_writes_nothing)
{
	char dir[64], args[512], sub[128];
	need_png();
	tmp_dir_make(dir, "sph-render-bad");
	snprintf(sub, sizeof sub, "%s/frames", dir);
	const char *ok = "--variant sph-cpu-grid --column 6x6x6@2 --at 0";
	snprintf(args, sizeof args, "%s --out %s --width 0", ok, sub);
	expect_render_usage(args, "--width");
	snprintf(args, sizeof args, "%s --out %s --height 9000", ok, sub);
	expect_render_usage(args, "--height");
	snprintf(args, sizeof args, "%s --out %s --res 1", ok, sub);
	expect_render_usage(args, "--res");
	snprintf(args, sizeof args, "%s --out %s --res 4096", ok, sub);
	expect_render_usage(args, "--res");
	/* within the limits one by one, beyond memory together */
	snprintf(args, sizeof args,
		 "--variant sph-cpu-grid --column 40x40x20@1 --at 0 --out %s --res 1024 --width 8192 --height 8192",
		 sub);
	expect_render_usage(args, "GiB");
	snprintf(args, sizeof args, "--variant nosuch --at 0 --out %s", sub);
	expect_render_usage(args, "nosuch");
	snprintf(args, sizeof args, "%s --out %s --at 5,3", "--variant sph-cpu-grid", sub);
	expect_render_usage(args, "--at");
	expect_render_usage("--variant sph-cpu-grid --at 0", "--out");
	expect_render_usage("--variant sph-cpu-grid --at 0 --out /proc/nope/frames", "/proc/nope");
	snprintf(args, sizeof args, "%s --out %s stray", ok, sub);
	expect_render_usage(args, "stray");
	snprintf(args, sizeof args, "%s --out %s --shading glossy", ok, sub);
	expect_render_usage(args, "--shading");
	snprintf(args, sizeof args, "%s --out %s --normals smooth", ok, sub);
	expect_render_usage(args, "--normals 'smooth': field or kernel");
	snprintf(args, sizeof args, "--variant sph-gpu-verlet --column 6x6x6@2 --at 0 --out %s "
		 "--normals kernel", sub);
	expect_render_usage(args, "--normals kernel renders through the double reference");
	cr_expect(access(sub, F_OK) != 0 || rmdir(sub) == 0, "%s holds files after bad input", sub);
	tmp_dir_remove(dir);
}

/* Two frames of a small column: whole PNGs of the asked size, named by
 * variant, column and step. */
Test(sph_render, frames_are_whole_pngs, .timeout = 60)
{
	need_png();
#ifdef HARNESS_HAVE_PNG
	char dir[64], args[512], e[4096], path[256];
	tmp_dir_make(dir, "sph-render-ok");
	snprintf(args, sizeof args,
		 "--variant sph-cpu-grid --column 6x6x6@2 --at 0,20 --out %s --width 48 --height 27 --res 32 -q",
		 dir);
	cr_assert_eq(render_cli(args, e, sizeof e), 0, "%s", e);
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof path, "%s/sph-cpu-grid-6x6x6@2-%d.png", dir, k ? 20 : 0);
		cr_expect(png_is(path, 48, 27), "%s is not a 48 x 27 PNG", path);
		unlink(path);
	}
	/* and in the paper's shading */
	snprintf(args, sizeof args,
		 "--variant sph-cpu-grid --column 6x6x6@2 --at 20 --out %s --width 48 --height 27 --res 32 "
		 "--shading paper -q",
		 dir);
	cr_assert_eq(render_cli(args, e, sizeof e), 0, "%s", e);
	snprintf(path, sizeof path, "%s/sph-cpu-grid-6x6x6@2-20.png", dir);
	cr_expect(png_is(path, 48, 27), "%s is not a 48 x 27 PNG", path);
	unlink(path);
	/* with the kernel normals: the frame, and its line naming the
	 * reference's stages, the normals' among them, and its speckle */
	char cmd[1024], out[4096];
	snprintf(cmd, sizeof cmd,
		 "%s sph render --variant sph-cpu-grid --column 6x6x6@2 --at 20 --out %s --width 48 "
		 "--height 27 --res 32 --shading paper --normals kernel 2>/dev/null",
		 cli_harness_bin(), dir);
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	cr_expect(png_is(path, 48, 27), "%s is not a 48 x 27 PNG", path);
	cr_expect(strstr(out, "reference kernel normals: surface ") && strstr(out, " s, normals ") &&
			  strstr(out, " s, raycast ") && strstr(out, "; speckle "),
		  "%s", out);
	unlink(path);
	tmp_dir_remove(dir);
#endif
}

/* --out DIR/ (a trailing '/', as shells complete directories): the
 * frames go in DIR and their line names each with one '/' before it. */
Test(sph_render, a_directory_given_with_its_slash_names_frames_with_one, .timeout = 60)
{
	need_png();
#ifdef HARNESS_HAVE_PNG
	char dir[64], cmd[1024], out[4096], want[300], path[256];
	tmp_dir_make(dir, "sph-render-slash");
	snprintf(cmd, sizeof cmd,
		 "%s sph render --variant sph-cpu-grid --column 6x6x6@2 --at 0 --out %s/ --width 48 "
		 "--height 27 --res 32 2>/dev/null",
		 cli_harness_bin(), dir);
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	snprintf(path, sizeof path, "%s/sph-cpu-grid-6x6x6@2-0.png", dir);
	snprintf(want, sizeof want, "wrote %s: ", path);
	cr_expect(strstr(out, want) != NULL, "no '%s' in:\n%s", want, out);
	cr_expect(strstr(out, "//") == NULL, "a double slash:\n%s", out);
	cr_expect(png_is(path, 48, 27), "%s is not a 48 x 27 PNG", path);
	unlink(path);
	tmp_dir_remove(dir);
#endif
}

/* --at in seconds of flow: each the nearest step of the column's dt, the
 * frame named by that step; times that round to one step, or past the
 * largest step, are one line and exit 2. */
Test(sph_render, at_takes_seconds_of_flow, .timeout = 60)
{
	need_png();
#ifdef HARNESS_HAVE_PNG
	char dir[64], args[512], e[4096], path[256];
	struct sph_column c;
	struct sph_params p;
	cr_assert_eq(sph_scene_column_parse("6x6x6@2", &c, e, sizeof e), 0);
	sph_scene_box(&c, &p);
	const long step = lround(0.002 / p.dt);
	cr_assert(step > 2 && step < 100, "dt %g", p.dt);
	tmp_dir_make(dir, "sph-render-at");
	snprintf(args, sizeof args,
		 "--variant sph-cpu-grid --column 6x6x6@2 --at 2,0.002s --out %s --width 48 --height 27 "
		 "--res 32 -q",
		 dir);
	cr_assert_eq(render_cli(args, e, sizeof e), 0, "%s", e);
	snprintf(path, sizeof path, "%s/sph-cpu-grid-6x6x6@2-%ld.png", dir, step);
	cr_expect(png_is(path, 48, 27), "%s is not a 48 x 27 PNG", path);
	unlink(path);
	snprintf(path, sizeof path, "%s/sph-cpu-grid-6x6x6@2-2.png", dir);
	unlink(path);
	tmp_dir_remove(dir);
#endif
	expect_render_usage("--variant sph-cpu-grid --column 6x6x6@2 --at 0.002s,0.00201s --out /tmp/never",
			    "ascending");
	expect_render_usage("--variant sph-cpu-grid --column 6x6x6@2 --at 1000s --out /tmp/never",
			    "--at");
	expect_render_usage("--variant sph-cpu-grid --column 6x6x6@2 --at 0.1x --out /tmp/never",
			    "--at");
	cr_expect(access("/tmp/never", F_OK) != 0, "/tmp/never was made");
}

/* The render's own memory reckoning: particles, field and image together
 * against what is available, one line naming both amounts. */
Test(sph_render, memory_check_counts_particles_field_and_image)
{
	char err[512] = "";
	const double avail = (double)sysinfo_mem_available();
	if (avail == 0)
		cr_skip_test("this machine does not say how much memory is available");
	cr_expect_eq(sph_render_check_memory("small", 16128, 1e6, 1280.0 * 720, err, sizeof err), 0,
		     "%s", err);
	/* the field alone beyond memory: refused, and no particles fit beside it */
	const double voxels = avail / SPH_RENDER_BYTES_PER_VOXEL + 1e6;
	cr_expect_eq(sph_render_check_memory("--column X", 16128, voxels, 0, err, sizeof err), -1);
	cr_expect(strstr(err, "--column X needs about") && strstr(err, "GiB is available") &&
			  strstr(err, "(allowed here: particles <= 0)"),
		  "%s", err);
	/* particles and image beyond memory together */
	const size_t n = (size_t)(avail / SPH_RENDER_BYTES_PER_PARTICLE);
	cr_expect_eq(sph_render_check_memory("both", n, 0, 1e6, err, sizeof err), -1);
}

/* A column larger than memory is refused before the scene is built: exit
 * 2, one line, nothing written. */
Test(sph_render, a_column_larger_than_memory_exits_2_first)
{
	char dir[64], args[512], sub[128];
	need_png();
	/* at most 32 GiB, so that a machine with more refuses it too */
	setenv("HARNESS_MEMORY", "32G", 1);
	tmp_dir_make(dir, "sph-render-mem");
	snprintf(sub, sizeof sub, "%s/frames", dir);
	snprintf(args, sizeof args, "--variant sph-cpu-grid --column 512x512x512 --at 0 --out %s",
		 sub);
	expect_render_usage(args, "--column 512x512x512 at --res ");
	expect_render_usage(args, "GiB is available (allowed here: particles <= ");
	cr_expect(access(sub, F_OK) != 0, "%s was made", sub);
	tmp_dir_remove(dir);
}
