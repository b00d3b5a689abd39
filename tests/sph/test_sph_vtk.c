/* test_sph_vtk.c - the VTK PolyData writer and its time series (harness/sph/sph_vtk.c) */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../harness/sph/sph_vtk.h"
#include "../tmp_dir.h"
#include "vtk_read.h"

/* Five points in float4 (the fourth float a decoy), a vector and a scalar
 * array of them, values of every kind a float takes. */
static const float test_pos4[5 * 4] = { 0.0f, 1.0f, 2.0f, 99.0f,  -0.0f, -1.5f, 3e-39f, 99.0f,
					1e30f, 0.125f, -7.25f, 99.0f, 1.0f / 3.0f, 2e-7f, 5.5f, 99.0f,
					-1e-30f, 4096.5f, 0.1f, 99.0f };
static const float test_vel4[5 * 4] = { 1.0f, -2.0f, 3.0f, 7.0f,   0.5f, 0.25f, -0.125f, 7.0f,
					-3.5f, 1e-6f, 2.0f, 7.0f,  0.0f, 0.0f, -0.0f, 7.0f,
					123.0f, -456.0f, 789.0f, 7.0f };
static const float test_rho[5] = { 1000.0f, 999.5f, 1012.25f, 501.0f, 1e-3f };

static void write_test_points(const char *path, size_t n)
{
	const struct sph_vtk_array a[] = { { "velocity_m_per_s", 3, test_vel4, 4 },
					   { "density_kg_per_m3", 1, test_rho, 1 } };
	char err[256];
	FILE *fp = fopen(path, "wb");
	cr_assert_not_null(fp);
	cr_assert_eq(sph_vtk_polydata(fp, n, test_pos4, 4, a, 2, err, sizeof err), 0, "%s", err);
	cr_assert_eq(fclose(fp), 0);
}

/* Bit for bit: -0.0 and a denormal must survive. */
static void expect_same_float(float got, float want, const char *what, size_t i, int c)
{
	cr_expect(memcmp(&got, &want, sizeof got) == 0, "%s[%zu][%d]: %a, not %a", what, i, c,
		  (double)got, (double)want);
}

Test(sph_vtk, polydata_holds_the_points_and_arrays_bit_for_bit)
{
	char dir[64], path[128];
	tmp_dir_make(dir, "vtk-pd");
	snprintf(path, sizeof path, "%s/p.vtp", dir);
	write_test_points(path, 5);
	struct vtk_read_polydata pd;
	vtk_read_polydata(path, &pd);
	cr_assert_eq(pd.n, 5);
	cr_assert_eq(pd.na, 5, "velocity, density, the points, connectivity and offsets");
	const struct vtk_read_array *x = vtk_read_find(&pd, "Points", "position_m", "Float32", 3);
	const struct vtk_read_array *v =
		vtk_read_find(&pd, "PointData", "velocity_m_per_s", "Float32", 3);
	const struct vtk_read_array *r =
		vtk_read_find(&pd, "PointData", "density_kg_per_m3", "Float32", 1);
	for (size_t i = 0; i < 5; i++) {
		for (int c = 0; c < 3; c++) {
			expect_same_float(vtk_read_f32(x, i, c), test_pos4[4 * i + (size_t)c], "pos", i, c);
			expect_same_float(vtk_read_f32(v, i, c), test_vel4[4 * i + (size_t)c], "vel", i, c);
		}
		expect_same_float(vtk_read_f32(r, i, 0), test_rho[i], "rho", i, 0);
	}
	vtk_read_expect_verts(&pd);
	vtk_read_polydata_free(&pd);
	tmp_dir_remove(dir);
}

/* More points than a chunk of the writer, so that chunking shows. */
Test(sph_vtk, polydata_of_many_points)
{
	enum { N = 2500 };
	static float pos4[4 * N], s[N];
	for (size_t i = 0; i < N; i++) {
		for (int c = 0; c < 4; c++)
			pos4[4 * i + (size_t)c] = (float)i + 0.25f * (float)c;
		s[i] = -(float)i;
	}
	char dir[64], path[128], err[256];
	tmp_dir_make(dir, "vtk-many");
	snprintf(path, sizeof path, "%s/p.vtp", dir);
	const struct sph_vtk_array a[] = { { "s", 1, s, 1 } };
	FILE *fp = fopen(path, "wb");
	cr_assert_not_null(fp);
	cr_assert_eq(sph_vtk_polydata(fp, N, pos4, 4, a, 1, err, sizeof err), 0, "%s", err);
	cr_assert_eq(fclose(fp), 0);
	struct vtk_read_polydata pd;
	vtk_read_polydata(path, &pd);
	cr_assert_eq(pd.n, N);
	const struct vtk_read_array *x = vtk_read_find(&pd, "Points", "position_m", "Float32", 3);
	const struct vtk_read_array *sa = vtk_read_find(&pd, "PointData", "s", "Float32", 1);
	for (size_t i = 0; i < N; i++) {
		for (int c = 0; c < 3; c++)
			cr_assert_eq(vtk_read_f32(x, i, c), pos4[4 * i + (size_t)c], "%zu %d", i, c);
		cr_assert_eq(vtk_read_f32(sa, i, 0), s[i], "%zu", i);
	}
	vtk_read_expect_verts(&pd);
	vtk_read_polydata_free(&pd);
	tmp_dir_remove(dir);
}

Test(sph_vtk, polydata_of_no_points_is_a_valid_file)
{
	char dir[64], path[128];
	tmp_dir_make(dir, "vtk-empty");
	snprintf(path, sizeof path, "%s/p.vtp", dir);
	write_test_points(path, 0);
	struct vtk_read_polydata pd;
	vtk_read_polydata(path, &pd);
	cr_expect_eq(pd.n, 0);
	vtk_read_polydata_free(&pd);
	tmp_dir_remove(dir);
}

Test(sph_vtk, polydata_refuses_what_it_cannot_write)
{
	char err[256];
	FILE *fp = tmpfile();
	cr_assert_not_null(fp);
	const struct sph_vtk_array none[] = { { "a", 0, test_rho, 1 } }, five[] = { { "b", 5, test_rho, 1 } };
	cr_expect_eq(sph_vtk_polydata(fp, 1, test_pos4, 4, none, 1, err, sizeof err), -1);
	cr_expect(strstr(err, "a: 0 components") != NULL, "%s", err);
	cr_expect_eq(sph_vtk_polydata(fp, 1, test_pos4, 4, five, 1, err, sizeof err), -1);
	cr_expect(strstr(err, "b: 5 components") != NULL, "%s", err);
	/* the count is checked before any point is read */
	cr_expect_eq(sph_vtk_polydata(fp, (size_t)INT32_MAX + 1, NULL, 4, NULL, 0, err, sizeof err), -1);
	cr_expect(strstr(err, "2147483648 points") != NULL, "%s", err);
	cr_expect_eq(ftell(fp), 0, "nothing written");
	fclose(fp);
	/* a stream that cannot be written */
	fp = fopen("/dev/full", "w");
	if (fp) {
		cr_expect_eq(sph_vtk_polydata(fp, 5, test_pos4, 4, NULL, 0, err, sizeof err), -1);
		fclose(fp);
	}
}

Test(sph_vtk, collection_times_read_back_exactly_and_names_are_escaped)
{
	char dir[64], path[128], err[256];
	tmp_dir_make(dir, "vtk-pvd");
	snprintf(path, sizeof path, "%s/s.pvd", dir);
	const double dt = 0.14 * 0.02 / 25.0;
	const struct sph_vtk_dataset ds[] = { { 0.0, 0, "f-0.vtp" },
					      { 3 * dt, 0, "f-3.vtp" },
					      { 3 * dt, 1, "a&b\"<c>.vtp" },
					      { 1e-300, 0, "tiny.vtp" },
					      { 0.5, 1, "half.vtp" } };
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp);
	cr_assert_eq(sph_vtk_collection(fp, ds, 5, err, sizeof err), 0, "%s", err);
	cr_assert_eq(fclose(fp), 0);
	size_t len;
	char *text = (char *)vtk_read_file(path, &len);
	cr_expect(strstr(text, "file=\"a&amp;b&quot;&lt;c&gt;.vtp\"") != NULL, "%s", text);
	cr_expect(strstr(text, "timestep=\"0.5\"") != NULL, "the fewest digits: %s", text);
	free(text);
	struct vtk_read_dataset got[VTK_READ_MAX_DATASETS];
	cr_assert_eq(vtk_read_collection(path, got), 5);
	for (size_t k = 0; k < 5; k++) {
		cr_expect_eq(got[k].timestep, ds[k].timestep, "%zu: %.17g", k, got[k].timestep);
		cr_expect_eq(got[k].part, ds[k].part);
	}
	cr_expect_str_eq(got[1].file, "f-3.vtp");
	tmp_dir_remove(dir);
}

Test(sph_vtk, file_names)
{
	char buf[64];
	cr_assert_eq(sph_vtk_file_name(buf, sizeof buf, "d/e", "v-c", SPH_VTK_FLUID, 300), 0);
	cr_expect_str_eq(buf, "d/e/v-c-fluid-300.vtp");
	cr_assert_eq(sph_vtk_file_name(buf, sizeof buf, NULL, "v-c", SPH_VTK_BOUNDARY, 300), 0);
	cr_expect_str_eq(buf, "v-c-boundary.vtp");
	cr_assert_eq(sph_vtk_file_name(buf, sizeof buf, "d", "v-c", SPH_VTK_PVD, 0), 0);
	cr_expect_str_eq(buf, "d/v-c.pvd");
	cr_expect_eq(sph_vtk_file_name(buf, 10, "d", "v-c", SPH_VTK_PVD, 0), 0, "d/v-c.pvd and its NUL fit");
	cr_expect_eq(sph_vtk_file_name(buf, 9, "d", "v-c", SPH_VTK_PVD, 0), -1, "too long");
}

static const unsigned long test_steps[] = { 0, 3, 10 };

/* A whole series of the test points into dir; 0, or -1 (with err) from
 * the step that failed. */
static int write_test_series(struct sph_vtk_series *s, char *err, size_t errlen)
{
	const struct sph_vtk_array a[] = { { "density_kg_per_m3", 1, test_rho, 1 } };
	if (sph_vtk_series_boundary(s, 2, test_vel4, 4, NULL, 0, err, errlen) != 0)
		return -1;
	for (size_t k = 0; k < 3; k++)
		if (sph_vtk_series_step(s, test_steps[k], 0.5 * (double)test_steps[k], 5, test_pos4, 4,
					a, 1, err, errlen) != 0)
			return -1;
	return 0;
}

/* A whole series of the test points committed in dir, as an earlier run
 * would have left it; then s is open again for a second run. */
static void commit_test_series(struct sph_vtk_series *s, const char *dir)
{
	char err[512];
	cr_assert_eq(sph_vtk_series_open(s, dir, "v-c", test_steps, 3, err, sizeof err), 0, "%s", err);
	cr_assert_eq(write_test_series(s, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sph_vtk_series_commit(s, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sph_vtk_series_open(s, dir, "v-c", test_steps, 3, err, sizeof err), 0, "%s", err);
}

Test(sph_vtk, series_writes_its_files_then_the_collection)
{
	char dir[64], sdir[128], path[256], err[512];
	tmp_dir_make(dir, "vtk-series");
	snprintf(sdir, sizeof sdir, "%s/a/b", dir);
	struct sph_vtk_series s;
	cr_assert_eq(sph_vtk_series_open(&s, sdir, "v-c", test_steps, 3, err, sizeof err), 0, "%s", err);
	struct stat st;
	cr_assert(stat(sdir, &st) == 0 && S_ISDIR(st.st_mode), "the directory is created, parents too");
	cr_assert_eq(write_test_series(&s, err, sizeof err), 0, "%s", err);
	snprintf(path, sizeof path, "%s/v-c.pvd", sdir);
	cr_expect(access(path, F_OK) != 0, "no .pvd before commit");
	cr_expect_eq(tmp_dir_entries(sdir), 4, "four temporary files before commit");
	cr_assert_eq(sph_vtk_series_commit(&s, err, sizeof err), 0, "%s", err);
	struct vtk_read_dataset ds[VTK_READ_MAX_DATASETS];
	cr_assert_eq(vtk_read_collection(path, ds), 6);
	for (size_t k = 0; k < 3; k++) {
		char want[64];
		snprintf(want, sizeof want, "v-c-fluid-%lu.vtp", test_steps[k]);
		cr_expect_eq(ds[2 * k].part, 0);
		cr_expect_str_eq(ds[2 * k].file, want);
		cr_expect_eq(ds[2 * k + 1].part, 1);
		cr_expect_str_eq(ds[2 * k + 1].file, "v-c-boundary.vtp");
		cr_expect_eq(ds[2 * k].timestep, 0.5 * (double)test_steps[k]);
		cr_expect_eq(ds[2 * k + 1].timestep, ds[2 * k].timestep);
		snprintf(path, sizeof path, "%s/%s", sdir, want);
		struct vtk_read_polydata pd;
		vtk_read_points(path, &pd, 5, 1);
		vtk_read_polydata_free(&pd);
	}
	snprintf(path, sizeof path, "%s/v-c-boundary.vtp", sdir);
	struct vtk_read_polydata pd;
	vtk_read_points(path, &pd, 2, 0);
	vtk_read_polydata_free(&pd);
	cr_expect_eq(tmp_dir_entries(sdir), 5, "the files of the series and nothing else");
	sph_vtk_series_abort(&s); /* harmless after commit */
	cr_expect_eq(tmp_dir_entries(sdir), 5);
	tmp_dir_remove(dir);
}

Test(sph_vtk, series_refuses_paths_it_cannot_write_and_leaves_nothing)
{
	char dir[64], sdir[128], path[256], err[512];
	struct sph_vtk_series s;
	tmp_dir_make(dir, "vtk-refuse");
	/* a regular file where the directory should be: untouched */
	snprintf(path, sizeof path, "%s/file", dir);
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fputs("keep\n", fp);
	fclose(fp);
	cr_expect_eq(sph_vtk_series_open(&s, path, "v-c", test_steps, 3, err, sizeof err), -1);
	cr_expect(strstr(err, "not a directory") && strstr(err, path), "%s", err);
	struct stat st;
	cr_expect(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 5);
	/* under a regular file: cannot be created */
	snprintf(sdir, sizeof sdir, "%s/file/sub", dir);
	cr_expect_eq(sph_vtk_series_open(&s, sdir, "v-c", test_steps, 3, err, sizeof err), -1);
	cr_expect(strstr(err, sdir) != NULL, "%s", err);
	/* a directory where a step's file goes: refused, and the directory open made taken back */
	snprintf(sdir, sizeof sdir, "%s/new", dir);
	cr_assert_eq(sph_vtk_series_open(&s, sdir, "v-c", test_steps, 3, err, sizeof err), 0, "%s", err);
	sph_vtk_series_abort(&s);
	cr_expect(access(sdir, F_OK) != 0, "abort takes back the directory open made");
	snprintf(sdir, sizeof sdir, "%s/old", dir);
	cr_assert_eq(mkdir(sdir, 0777), 0);
	snprintf(path, sizeof path, "%s/v-c-fluid-10.vtp", sdir);
	cr_assert_eq(mkdir(path, 0777), 0);
	cr_expect_eq(sph_vtk_series_open(&s, sdir, "v-c", test_steps, 3, err, sizeof err), -1);
	cr_expect(strstr(err, "v-c-fluid-10.vtp") != NULL, "%s", err);
	cr_expect_eq(tmp_dir_entries(sdir), 1, "nothing written");
	/* too many steps */
	unsigned long many[SPH_VTK_MAX_STEPS + 1] = { 0 };
	cr_expect_eq(sph_vtk_series_open(&s, dir, "v-c", many, SPH_VTK_MAX_STEPS + 1, err, sizeof err),
		     -1);
	tmp_dir_remove(dir);
}

Test(sph_vtk, series_takes_its_steps_in_order_and_only_whole)
{
	char dir[64], err[512];
	struct sph_vtk_series s;
	const struct sph_vtk_array a[] = { { "density_kg_per_m3", 1, test_rho, 1 } };
	tmp_dir_make(dir, "vtk-order");
	cr_assert_eq(sph_vtk_series_open(&s, dir, "v-c", test_steps, 3, err, sizeof err), 0, "%s", err);
	cr_expect_eq(sph_vtk_series_step(&s, 3, 0.0, 5, test_pos4, 4, a, 1, err, sizeof err), -1,
		     "step 0 comes first");
	cr_expect_eq(sph_vtk_series_step(&s, 0, 0.0, 5, test_pos4, 4, a, 1, err, sizeof err), 0, "%s", err);
	cr_expect_eq(sph_vtk_series_commit(&s, err, sizeof err), -1);
	cr_expect(strstr(err, "not complete") != NULL, "%s", err);
	cr_expect_eq(tmp_dir_entries(dir), 0, "a refused commit leaves nothing");
	tmp_dir_remove(dir);
}

/* A run that fails before commit leaves the directory as it was: the
 * series of an earlier run of the same name whole, no temporary file. */
Test(sph_vtk, abort_leaves_an_earlier_series_whole)
{
	char dir[64], path[256], err[512];
	struct sph_vtk_series s;
	tmp_dir_make(dir, "vtk-abort");
	commit_test_series(&s, dir);
	snprintf(path, sizeof path, "%s/v-c.pvd", dir);
	size_t len0, len1;
	unsigned char *before = vtk_read_file(path, &len0);
	cr_assert_eq(sph_vtk_series_boundary(&s, 1, test_pos4, 4, NULL, 0, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sph_vtk_series_step(&s, 0, 9.0, 1, test_pos4, 4, NULL, 0, err, sizeof err), 0, "%s", err);
	sph_vtk_series_abort(&s);
	unsigned char *after = vtk_read_file(path, &len1);
	cr_expect(len0 == len1 && memcmp(before, after, len0) == 0, "the old .pvd is unchanged");
	free(before);
	free(after);
	snprintf(path, sizeof path, "%s/v-c-fluid-0.vtp", dir);
	struct vtk_read_polydata pd;
	vtk_read_polydata(path, &pd);
	cr_expect_eq(pd.n, 5, "the old step 0, not the aborted one");
	vtk_read_polydata_free(&pd);
	cr_expect_eq(tmp_dir_entries(dir), 5, "no temporary file left");
	tmp_dir_remove(dir);
}

/* A commit that fails half way (here a directory has taken a step's
 * place since open) removes what it committed and leaves no .pvd, the
 * old one included: a .pvd never names files of another run. */
Test(sph_vtk, a_failed_commit_leaves_no_collection)
{
	char dir[64], path[256], err[512];
	struct sph_vtk_series s;
	tmp_dir_make(dir, "vtk-commit");
	commit_test_series(&s, dir);
	cr_assert_eq(write_test_series(&s, err, sizeof err), 0, "%s", err);
	snprintf(path, sizeof path, "%s/v-c-fluid-10.vtp", dir);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkdir(path, 0777), 0);
	snprintf(path, sizeof path, "%s/v-c-fluid-10.vtp/x", dir);
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fclose(fp);
	cr_expect_eq(sph_vtk_series_commit(&s, err, sizeof err), -1);
	cr_expect(strstr(err, "v-c-fluid-10.vtp") != NULL, "%s", err);
	static const char *const gone[] = { "v-c.pvd", "v-c-boundary.vtp", "v-c-fluid-0.vtp",
					    "v-c-fluid-3.vtp" };
	for (size_t k = 0; k < 4; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, gone[k]);
		cr_expect(access(path, F_OK) != 0, "%s is left", gone[k]);
	}
	cr_expect_eq(tmp_dir_entries(dir), 1, "only the directory in the way");
	tmp_dir_remove(dir);
}
