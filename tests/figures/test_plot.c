/* test_plot.c - harness plot: data files for gnuplot, every figure script, the default directory */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../harness/figures/plot.h"
#include "../../harness/figures/plot_scaling.h"

#define FIX "tests/fixtures/results/"
#define H200 FIX "suites-h200"
#define A100 FIX "suites-a100"

/* ---- helpers --------------------------------------------------------------- */

static void make_dir(char *templ)
{
	cr_assert_not_null(mkdtemp(templ), "mkdtemp: %s", strerror(errno));
}

static int remove_entry(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(p);
}

static void remove_tree(const char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void need_gnuplot(void)
{
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		cr_skip_test("gnuplot is not installed (apt-get install gnuplot-nox)");
}

/* Runs plot_command with the words of args, stdout sent to /dev/null and
 * stderr to errfile (when not NULL). */
static int plot(const char *args, const char *errfile)
{
	char buf[4096], *argv[64];
	int argc = 0;
	snprintf(buf, sizeof buf, "plot %s", args);
	for (char *w = strtok(buf, " "); w && argc < 63; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	fflush(stdout);
	int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
	int null = open("/dev/null", O_WRONLY);
	int efd = errfile ? open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600) : null;
	dup2(null, STDOUT_FILENO);
	dup2(efd, STDERR_FILENO);
	int rc = plot_command(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(out);
	close(err);
	if (efd != null)
		close(efd);
	close(null);
	return rc;
}

static size_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

/* Whether path holds a PNG (its signature) of at least a few kilobytes. */
static bool is_png(const char *path)
{
	unsigned char sig[8] = { 0 };
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return false;
	size_t n = fread(sig, 1, 8, fp);
	fclose(fp);
	return n == 8 && memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0 && file_size(path) > 4096;
}

static bool file_has(const char *path, const char *text)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return false;
	fseek(fp, 0, SEEK_END);
	long len = ftell(fp);
	rewind(fp);
	char *buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
	size_t n = buf ? fread(buf, 1, (size_t)len, fp) : 0;
	fclose(fp);
	if (!buf)
		return false;
	buf[n] = '\0';
	bool has = strstr(buf, text) != NULL;
	free(buf);
	return has;
}

static size_t count_words(const char *s)
{
	size_t n = 0;
	for (const char *p = s; *p; p++)
		n += *p != ' ' && (p == s || p[-1] == ' ');
	return n;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- the data files gnuplot reads ------------------------------------------- */

/* Collects a suite's fixture into c. */
static void collect(const char *suite, const char *dir, struct plot_curves *c)
{
	char path[256], err[512];
	struct csv_table t;
	snprintf(path, sizeof path, "%s/%s.csv", dir, suite);
	cr_assert_eq(csv_table_read(path, &t, err, sizeof err), 0, "%s", err);
	cr_assert_eq(plot_collect(plot_suite_find(suite), &t, NULL, c, err, sizeof err), 0, "%s",
		     err);
	csv_table_free(&t);
}

static char *write_curves(const struct plot_curves *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	cr_assert_eq(plot_write_curves(fp, c, "test"), 0);
	fclose(fp);
	return text;
}

Test(plot, curves_by_n_in_order)
{
	struct plot_curves c = { 0 };
	collect("fig31-5", H200, &c);
	cr_expect_eq(c.ncurves, 3);
	cr_expect_eq(c.npoints, 18, "3 N x 6 unroll factors");
	char *text = write_curves(&c);
	const char *a = strstr(text, "\"N = 1,024\""), *b = strstr(text, "\"N = 4,096\""),
		   *d = strstr(text, "\"N = 16,384\"");
	cr_assert(a && b && d, "%s", text);
	cr_expect(a < b && b < d, "curves sorted by N:\n%s", text);
	/* blocks are separated by two blank lines, as gnuplot's index needs */
	size_t blocks = 1;
	for (const char *p = text; (p = strstr(p, "\n\n\n")); p += 3)
		blocks++;
	cr_expect_eq(blocks, 3, "%s", text);
	/* within a block, x ascends: unroll 1 first, then 2 */
	const char *one = strstr(a, "\n1 "), *two = strstr(a, "\n2 ");
	cr_expect(one && two && one < two, "%s", text);
	free(text);
	plot_curves_free(&c);
}

Test(plot, curves_by_variant_keep_row_order)
{
	struct plot_curves c = { 0 };
	collect("fig31-6", H200, &c);
	cr_assert_eq(c.ncurves, 2);
	char *text = write_curves(&c);
	const char *u4 = strstr(text, "\"unrolled-u4\""), *au = strstr(text, "\"auto\"");
	cr_expect(u4 && au && u4 < au, "%s", text);
	free(text);
	plot_curves_free(&c);
}

/* Speedup over cpu-portable at the same N, relative-to-first, and invalid
 * rows left out. */
Test(plot, derived_columns)
{
	struct plot_curves c = { 0 };
	collect("cpu-speedup", H200, &c);
	cr_expect_eq(c.npoints, 9, "the invalid cpu-simd row at N = 2048 is left out");
	for (size_t i = 0; i < c.npoints; i++) {
		const struct plot_point *p = &c.points[i];
		const char *title = c.curves[p->curve].title;
		cr_expect_neq(p->x, 2048);
		if (strcmp(title, "cpu-portable") == 0)
			cr_expect_float_eq(p->speedup, 1.0, 1e-12);
		if (strcmp(title, "auto") == 0 && p->x == 16384)
			cr_expect_float_eq(p->speedup / (1.6e12 * 16384 / (16384 + 8192) / 3e8), 1,
					   1e-5);
		if (p->x == 1024)
			cr_expect_float_eq(p->rel_first, 1.0, 1e-12);
		if (strcmp(title, "cpu-simd") == 0)
			cr_expect(isnan(p->pct_of_ceiling), "CPU rows have no ceiling");
	}
	plot_curves_free(&c);
}

Test(plot, compare_titles_name_devices)
{
	char err[512];
	struct plot_curves c = { 0 };
	struct csv_table t;
	cr_assert_eq(csv_table_read(A100 "/fig31-6.csv", &t, err, sizeof err), 0, "%s", err);
	cr_assert_eq(plot_collect(plot_suite_find("fig31-6"), &t, " [a100]", &c, err, sizeof err),
		     0, "%s", err);
	csv_table_free(&t);
	char *text = write_curves(&c);
	cr_expect(strstr(text, "\"NVIDIA A100-SXM4-80GB [a100]: auto\"") != NULL, "%s", text);
	free(text);
	plot_curves_free(&c);
}

Test(plot, malformed_cell_is_reported)
{
	char err[512] = "";
	struct plot_curves c = { 0 };
	struct csv_table t;
	cr_assert_eq(csv_table_read(FIX "compare/malformed.csv", &t, err, sizeof err), 0);
	cr_expect_eq(plot_collect(plot_suite_find("fig31-6"), &t, NULL, &c, err, sizeof err), -1);
	cr_expect(strstr(err, "malformed.csv:3:") && strstr(err, "'fast'"), "%s", err);
	csv_table_free(&t);
	plot_curves_free(&c);
}

Test(plot, published_numbers_flattened)
{
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	cr_assert_eq(plot_write_published(fp, "results/published", err, sizeof err), 0, "%s", err);
	fclose(fp);
	cr_expect(strstr(text, "\"gpugems3_ch31\" \"steps_per_s\" 38 16384 \"steps/s\" "
			       "\"GeForce 8800 GTX\"\n") != NULL, "%s", text);
	cr_expect(strstr(text, "\"cpu_interactions_per_s\" 20000000 NaN") != NULL, "%s", text);
	cr_expect(strstr(text, "\"goswami2010_sph\" \"overall_fps\" 3 255600") != NULL);
	free(text);
}

/* ---- the default --from ------------------------------------------------------ */

/* Copies the H200 fig31-6 fixture into root/sub with a sidecar naming gpu
 * and cpu, modified at mtime. */
static void plant(const char *root, const char *sub, const char *gpu, const char *cpu,
		  time_t mtime)
{
	char dir[512], path[600], cmd[1400];
	snprintf(dir, sizeof dir, "%s/%s", root, sub);
	snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp " H200 "/fig31-6.csv '%s/'", dir, dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(path, sizeof path, "%s/fig31-6.meta.json", dir);
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fprintf(fp, "{\n  \"schema\": \"nbody-harness-results/1\",\n  \"host\": {\n"
		    "    \"hostname\": \"h\",\n    \"cpu_model\": \"%s\"\n  },\n  \"gpus\": [", cpu);
	if (gpu)
		fprintf(fp, "\n    {\n      \"index\": 0,\n      \"name\": \"%s\"\n    }\n  ", gpu);
	fprintf(fp, "],\n  \"samples\": [ { \"name\": \"not a gpu\" } ]\n}\n");
	fclose(fp);
	snprintf(path, sizeof path, "%s/fig31-6.csv", dir);
	struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };
	cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* The default directory for fig31-6 under root on the machine with GPU gpu
 * (NULL: none) and CPU cpu; NULL when none fits. *why (when why is not
 * NULL) gets the reason. */
static const char *find_from_why(const char *root, const char *gpu, const char *cpu,
				 enum plot_from_why *why)
{
	static char out[1024];
	const struct plot_machine m = { gpu, cpu };
	enum plot_from_why w = plot_find_from(root, "fig31-6", &m, out, sizeof out);
	if (why)
		*why = w;
	return w == PLOT_FROM_NONE ? NULL : out;
}

static const char *find_from(const char *root, const char *gpu, const char *cpu)
{
	return find_from_why(root, gpu, cpu, NULL);
}

Test(plot, default_directory_is_newest_for_this_device)
{
	char root[] = "/tmp/test_plot_root.XXXXXX", want[600];
	enum plot_from_why why;
	make_dir(root);
	plant(root, "old-h200", "NVIDIA H200", "AMD EPYC", 1000000);
	plant(root, "new-h200", "NVIDIA H200", "AMD EPYC", 2000000);
	plant(root, "local/run-a100", "NVIDIA A100-SXM4-80GB", "Intel Xeon", 3000000);
	plant(root, "cpu-only", NULL, "Intel Xeon", 4000000);

	snprintf(want, sizeof want, "%s/new-h200", root);
	cr_expect_str_eq(find_from_why(root, "NVIDIA H200", "AMD EPYC", &why), want);
	cr_expect_eq(why, PLOT_FROM_MATCH);
	snprintf(want, sizeof want, "%s/local/run-a100", root);
	cr_expect_str_eq(find_from(root, "NVIDIA A100-SXM4-80GB", "Intel Xeon"), want,
			 "the user's own runs, two levels deep");
	snprintf(want, sizeof want, "%s/cpu-only", root);
	cr_expect_str_eq(find_from(root, NULL, "Intel Xeon"), want, "CPU model without a GPU");
	cr_expect_null(find_from(root, "NVIDIA H20", "Intel Xeon"), "a prefix is not a match");
	cr_expect_null(find_from(root, "not a gpu", "Intel Xeon"), "only names under \"gpus\" count");
	cr_expect_null(find_from(root, "NVIDIA B200", "Intel Xeon"),
		       "with a GPU, the CPU's name does not match");

	/* no match: results/h200 when it holds the suite */
	plant(root, "h200", "NVIDIA H200", "AMD EPYC", 500000);
	snprintf(want, sizeof want, "%s/h200", root);
	cr_expect_str_eq(find_from_why(root, "NVIDIA B200", "AMD EPYC", &why), want);
	cr_expect_eq(why, PLOT_FROM_DEFAULT);
	remove_tree(root);
}

/* A GPU host's sidecar records its CPU too, and the GPU hosts' CPU name is
 * common ("Intel(R) Xeon(R) Processor" of a virtual machine): a machine of
 * that CPU without a GPU must not take their GPU rows for its own, however
 * new, but draw from the default and say so; results it measured on its
 * CPU alone are its own. */
Test(plot, gpu_results_are_not_a_cpu_only_machines_by_the_cpu_name)
{
	char root[] = "/tmp/test_plot_cpuname.XXXXXX", want[600];
	const char *cpu = "Intel(R) Xeon(R) Processor";
	enum plot_from_why why;
	make_dir(root);
	plant(root, "h200x4/tc-splits", "NVIDIA H200", cpu, 3000000);
	plant(root, "h200x4", "NVIDIA H200", cpu, 2000000);
	cr_expect_null(find_from(root, NULL, cpu), "GPU rows taken by the CPU's name");
	plant(root, "h200", "NVIDIA H200", cpu, 1000000);
	snprintf(want, sizeof want, "%s/h200", root);
	cr_expect_str_eq(find_from_why(root, NULL, cpu, &why), want);
	cr_expect_eq(why, PLOT_FROM_DEFAULT, "not a match: the default");
	plant(root, "dev-cpu", NULL, cpu, 500000);
	snprintf(want, sizeof want, "%s/dev-cpu", root);
	cr_expect_str_eq(find_from_why(root, NULL, cpu, &why), want, "its own CPU rows, though older");
	cr_expect_eq(why, PLOT_FROM_MATCH);
	remove_tree(root);

	/* the committed results, on such a machine: results/h200, the default */
	cr_expect_str_eq(find_from_why("results", NULL, cpu, &why), "results/h200");
	cr_expect_eq(why, PLOT_FROM_DEFAULT);
}

/* A machine's own folder, or the user's own runs, win over a newer
 * special-purpose sub-folder (tc-splits/ of a few variants); that one is
 * taken only where it is all this machine measured. */
Test(plot, default_directory_prefers_a_machines_folder_to_its_sub_folders)
{
	char root[] = "/tmp/test_plot_subdir.XXXXXX", want[600];
	make_dir(root);
	plant(root, "h200x4/tc-splits", "NVIDIA H200", "AMD EPYC", 3000000);
	snprintf(want, sizeof want, "%s/h200x4/tc-splits", root);
	cr_expect_str_eq(find_from(root, "NVIDIA H200", "AMD EPYC"), want, "the only match");
	plant(root, "h200", "NVIDIA H200", "AMD EPYC", 1000000);
	snprintf(want, sizeof want, "%s/h200", root);
	cr_expect_str_eq(find_from(root, "NVIDIA H200", "AMD EPYC"), want,
			 "a newer sub-folder replaced the machine's folder");
	plant(root, "local/mine", "NVIDIA H200", "AMD EPYC", 2000000);
	snprintf(want, sizeof want, "%s/local/mine", root);
	cr_expect_str_eq(find_from(root, "NVIDIA H200", "AMD EPYC"), want, "the user's newer run");
	remove_tree(root);
}

Test(plot, sidecar_matching)
{
	const struct plot_machine h200 = { "NVIDIA H200", "Intel Xeon" },
				  a100 = { "NVIDIA A100-SXM4-80GB", "AMD EPYC 9654 96-Core Processor" },
				  epyc_9654 = { NULL, "AMD EPYC 9654 96-Core Processor" },
				  epyc = { "", "AMD EPYC" };
	cr_expect(plot_sidecar_matches(H200 "/fig31-6.csv", &h200));
	cr_expect_not(plot_sidecar_matches(H200 "/fig31-6.csv", &epyc_9654),
		      "GPU rows matched a machine without a GPU by its CPU");
	cr_expect_not(plot_sidecar_matches(H200 "/fig31-6.csv", &a100));
	cr_expect(plot_sidecar_matches(H200 "/scaling-p1.csv", &epyc), "CPU rows, no GPU recorded");
	cr_expect_not(plot_sidecar_matches(H200 "/scaling-p1.csv", &h200));
	cr_expect_not(plot_sidecar_matches(FIX "compare/malformed.csv", &h200), "no sidecar");
}

/* The line of a figure drawn without --from says why its directory. */
Test(plot, default_directory_says_why)
{
	char out[1024];
	const struct plot_machine gpu = { "NVIDIA B200", "AMD EPYC" }, cpu = { NULL, "AMD EPYC" };
	plot_from_says(PLOT_FROM_MATCH, &gpu, H200 "/fig31-6.csv", out, sizeof out);
	cr_expect_str_eq(out, " (newest measured on this machine's GPU, NVIDIA B200)");
	plot_from_says(PLOT_FROM_MATCH, &cpu, H200 "/scaling-p1.csv", out, sizeof out);
	cr_expect_str_eq(out, " (newest measured on this CPU, AMD EPYC, without a GPU)");
	plot_from_says(PLOT_FROM_DEFAULT, &cpu, H200 "/fig31-6.csv", out, sizeof out);
	cr_expect_str_eq(out, " (the default: nothing under results/ measured on this CPU, AMD "
			      "EPYC, without a GPU; these on NVIDIA H200)");
	plot_from_says(PLOT_FROM_DEFAULT, &gpu, H200 "/scaling-p1.csv", out, sizeof out);
	cr_expect_str_eq(out, " (the default: nothing under results/ measured on this machine's "
			      "GPU, NVIDIA B200; these on AMD EPYC)");
}

/* ---- every figure script, through gnuplot ---------------------------------------- */

/* Cases are indices into plot_suites: Criterion copies parameters into the
 * test's process as bytes, so they must hold no pointers. */
ParameterizedTestParameters(plot, every_script_renders)
{
	static size_t index[32];
	size_t n = plot_suite_count < 32 ? plot_suite_count : 32;
	for (size_t i = 0; i < n; i++)
		index[i] = i;
	return cr_make_param_array(size_t, index, n);
}

ParameterizedTest(size_t *index, plot, every_script_renders)
{
	char out[] = "/tmp/test_plot_out.XXXXXX", args[512], png[600], svg[600], errf[600];
	const struct plot_suite *s = &plot_suites[*index];
	need_gnuplot();
	make_dir(out);
	snprintf(args, sizeof args, "--suite %s --from " H200 " --out %s", s->name, out);
	snprintf(png, sizeof png, "%s/%s.png", out, s->name);
	snprintf(svg, sizeof svg, "%s/%s.svg", out, s->name);
	snprintf(errf, sizeof errf, "%s/stderr", out);
	cr_expect_eq(plot(args, errf), 0, "plot %s failed", s->name);
	cr_expect(is_png(png), "%s is not a non-empty PNG", png);
	cr_expect(file_has(svg, "<svg"), "%s is not an SVG", svg);
	cr_expect_eq(file_size(errf), 0, "gnuplot complained about %s.gp", s->name);
	remove_tree(out);
}

Test(plot, compare_renders_devices_together)
{
	char out[] = "/tmp/test_plot_cmp.XXXXXX", args[512], png[600], errf[600];
	need_gnuplot();
	make_dir(out);
	snprintf(errf, sizeof errf, "%s/stderr", out);
	snprintf(args, sizeof args, "--suite cpu-speedup --compare " H200 " " A100 " --out %s", out);
	cr_expect_eq(plot(args, errf), 0);
	snprintf(png, sizeof png, "%s/compare-cpu-speedup.png", out);
	cr_expect(is_png(png), "%s", png);
	cr_expect_eq(file_size(errf), 0, "gnuplot complained about compare.gp");
	remove_tree(out);
}

/* The intermediate files go to a temporary directory that is removed. */
Test(plot, leaves_no_temporary_files)
{
	char out[] = "/tmp/test_plot_tmp.XXXXXX", args[512];
	need_gnuplot();
	make_dir(out);
	setenv("TMPDIR", out, 1);
	snprintf(args, sizeof args, "--suite fig31-7 --from " H200 " --out %s/figs", out);
	cr_expect_eq(plot(args, NULL), 0);
	DIR *d = opendir(out);
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d));)
		cr_expect(strncmp(e->d_name, "harness-plot", 12) != 0, "left behind: %s", e->d_name);
	closedir(d);
	remove_tree(out);
}

/* A script gnuplot rejects: exit 1, and no figure appears. */
Test(plot, gnuplot_failure_is_reported)
{
	char out[] = "/tmp/test_plot_bad.XXXXXX", args[600], path[600], errf[600];
	need_gnuplot();
	make_dir(out);
	snprintf(path, sizeof path, "%s/fig31-6.gp", out);
	FILE *fp = fopen(path, "w");
	fputs("this is not gnuplot\n", fp);
	fclose(fp);
	snprintf(errf, sizeof errf, "%s/stderr", out);
	snprintf(args, sizeof args, "--suite fig31-6 --from " H200 " --scripts %s --out %s/figs",
		 out, out);
	cr_expect_eq(plot(args, errf), 1);
	cr_expect(file_has(errf, "harness: plot: fig31-6: gnuplot failed"), "stderr");
	/* gnuplot's own words, in the one line */
	cr_expect(file_has(errf, "line 1: invalid command\n"), "gnuplot's error is not named");
	FILE *e = fopen(errf, "r");
	char text[4096] = "";
	size_t n = e ? fread(text, 1, sizeof text - 1, e) : 0;
	text[n] = '\0';
	if (e)
		fclose(e);
	cr_expect_eq(count_lines(text), 1, "want one line, got: %s", text);
	snprintf(path, sizeof path, "%s/figs/fig31-6.png", out);
	cr_expect_eq(file_size(path), 0, "a figure appeared anyway");
	remove_tree(out);
}

/* ---- bad input: exit 2, one line ---------------------------------------------------- */

static void expect_bad_input(const char *args, const char *mention)
{
	char dir[] = "/tmp/test_plot_err.XXXXXX", errf[600], text[4096] = "";
	make_dir(dir);
	snprintf(errf, sizeof errf, "%s/stderr", dir);
	cr_expect_eq(plot(args, errf), 2, "plot %s", args);
	FILE *fp = fopen(errf, "r");
	size_t n = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
	text[n] = '\0';
	if (fp)
		fclose(fp);
	cr_expect_eq(count_lines(text), 1, "plot %s: want one line, got: %s", args, text);
	cr_expect(strstr(text, mention) != NULL, "plot %s: '%s' lacks '%s'", args, text, mention);
	remove_tree(dir);
}

Test(plot, missing_gnuplot)
{
	setenv("PATH", "/nonexistent-dir", 1);
	expect_bad_input("--from " H200 " --out /tmp", "gnuplot not found");
}

Test(plot, bad_arguments)
{
	need_gnuplot();
	expect_bad_input("--suite nosuch", "unknown suite 'nosuch'");
	expect_bad_input("--from", "missing value after '--from'");
	expect_bad_input("--bogus", "unknown argument '--bogus'");
	expect_bad_input("--compare", "--compare needs directories");
	expect_bad_input("--from /nonexistent-dir", "/nonexistent-dir");
	expect_bad_input("--suite fig31-6 --from " FIX "compare --out /tmp", "no suite CSV");
	expect_bad_input("--from " H200 " --out README.md/figs", "README.md is not a directory");
}

Test(plot, malformed_csv)
{
	char dir[] = "/tmp/test_plot_mal.XXXXXX", cmd[600], args[700];
	need_gnuplot();
	make_dir(dir);
	snprintf(cmd, sizeof cmd, "cp " FIX "compare/malformed.csv %s/fig31-6.csv", dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(args, sizeof args, "--suite fig31-6 --from %s --out %s/figs", dir, dir);
	expect_bad_input(args, "fig31-6.csv:3:");
	remove_tree(dir);
}

/* ---- bin/harness plot, as a user runs it --------------------------------------------- */

static const char *harness_bin(void)
{
	const char *b = getenv("HARNESS_BIN");
	return b ? b : "bin/harness";
}

Test(plot, cli)
{
	char cmd[1024], out[] = "/tmp/test_plot_cli.XXXXXX", png[600];
	need_gnuplot();
	snprintf(cmd, sizeof cmd, "%s plot --help 2>&1 | grep -q 'usage: harness plot'",
		 harness_bin());
	cr_assert_eq(system(cmd), 0, "%s does not dispatch 'plot'", harness_bin());
	make_dir(out);
	snprintf(cmd, sizeof cmd, "%s plot --from " H200 " --out %s >/dev/null", harness_bin(), out);
	int st = system(cmd);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", cmd);
	for (size_t i = 0; i < plot_suite_count; i++) {
		snprintf(png, sizeof png, "%s/%s.png", out, plot_suites[i].name);
		cr_expect(is_png(png), "%s", png);
	}
	snprintf(cmd, sizeof cmd, "PATH=/nonexistent-dir %s plot --from " H200 " 2>/dev/null",
		 harness_bin());
	st = system(cmd);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 2, "no gnuplot: exit 2");
	remove_tree(out);
}

/* A suite CSV without a valid timed row (a suite that could not run on a
 * CPU-only machine) is skipped with a note: the other figures are drawn,
 * the status is 0, and each drawn figure names the file it came from. */
Test(plot, a_csv_without_valid_rows_is_skipped_with_a_note)
{
	char dir[] = "/tmp/test_plot_empty.XXXXXX", cmd[2048], out[700], png[700];
	need_gnuplot();
	make_dir(dir);
	snprintf(cmd, sizeof cmd,
		 "head -n1 " H200 "/fig31-5.csv > %s/fig31-5.csv && cp " H200 "/fig31-7.csv " H200
		 "/fig31-7.meta.json %s/",
		 dir, dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(out, sizeof out, "%s/stdout", dir);
	snprintf(cmd, sizeof cmd, "%s plot --from %s --out %s/figs > %s 2>&1", harness_bin(), dir, dir,
		 out);
	int st = system(cmd);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", cmd);
	snprintf(cmd, sizeof cmd, "%s/fig31-5.csv has no valid timed rows (skipped)", dir);
	cr_expect(file_has(out, cmd), "no note on the empty fig31-5.csv");
	snprintf(cmd, sizeof cmd, "fig31-7: %s/fig31-7.csv -> %s/figs/fig31-7.png", dir, dir);
	cr_expect(file_has(out, cmd), "the drawn figure names its data");
	cr_expect(!file_has(out, "harness: plot:"), "no error line");
	snprintf(png, sizeof png, "%s/figs/fig31-7.png", dir);
	cr_expect(is_png(png), "%s", png);
	snprintf(png, sizeof png, "%s/figs/fig31-5.png", dir);
	cr_expect(access(png, F_OK) != 0, "nothing drawn from the empty file");
	remove_tree(dir);
}

/* --compare with a directory that lacks a suite's CSV draws the others
 * and says which directory was left out, in one line. */
Test(plot, compare_names_a_directory_left_out)
{
	char dir[] = "/tmp/test_plot_cmp_out.XXXXXX", cmd[2048], out[700], png[700];
	need_gnuplot();
	make_dir(dir);
	snprintf(cmd, sizeof cmd, "mkdir -p %s/other && cp " A100 "/fig31-6.csv " A100
		 "/fig31-6.meta.json %s/other/", dir, dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(out, sizeof out, "%s/stdout", dir);
	snprintf(cmd, sizeof cmd, "%s plot --suite cpu-speedup --compare " H200 " %s/other --out "
		 "%s/figs > %s 2>&1", harness_bin(), dir, dir, out);
	int st = system(cmd);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", cmd);
	snprintf(cmd, sizeof cmd, "compare-cpu-speedup: no %s/other/cpu-speedup.csv (left out)", dir);
	cr_expect(file_has(out, cmd), "no note on the directory left out");
	snprintf(png, sizeof png, "%s/figs/compare-cpu-speedup.png", dir);
	cr_expect(is_png(png), "%s", png);
	remove_tree(dir);
}

/* Without --from, a figure drawn from another machine's results says so:
 * the default, and whose they are (a GPU no machine here has). */
Test(plot, a_figure_from_another_machine_says_whose_data_it_is)
{
	char dir[] = "/tmp/test_plot_whose.XXXXXX", cmd[16384], out[700], bin[4096], cwd[4096];
	need_gnuplot();
	cr_assert_not_null(realpath(harness_bin(), bin));
	cr_assert_not_null(getcwd(cwd, sizeof cwd));
	make_dir(dir);
	snprintf(cmd, sizeof cmd,
		 "mkdir -p %s/results/h200 && cp " H200 "/fig31-7.csv %s/results/h200/ && "
		 "sed 's/NVIDIA H200/NVIDIA GeForce 8800 GTX/' " H200 "/fig31-7.meta.json > "
		 "%s/results/h200/fig31-7.meta.json",
		 dir, dir, dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(out, sizeof out, "%s/stdout", dir);
	snprintf(cmd, sizeof cmd,
		 "cd %s && %s plot --suite fig31-7 --out figs --scripts %s/plots --published %s/results/published > %s 2>&1",
		 dir, bin, cwd, cwd, out);
	int st = system(cmd);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", cmd);
	cr_expect(file_has(out, "fig31-7: results/h200/fig31-7.csv (the default: nothing under "
				"results/ measured on this "),
		  "the figure does not say it drew from the default");
	cr_expect(file_has(out, "; these on NVIDIA GeForce 8800 GTX) -> figs/fig31-7.png"),
		  "the figure does not say whose data it draws");
	remove_tree(dir);
}

/* ---- labels and colours ------------------------------------------------------------ */

static const char *format_n(double n)
{
	static char out[64];
	plot_format_n(n, out, sizeof out);
	return out;
}

/* One way to write N in every figure label: 2^k for large powers of two,
 * grouped digits otherwise, never %g's 1.04858e+06. */
Test(plot, n_in_labels)
{
	cr_expect_str_eq(format_n(1048576), "2^20");
	cr_expect_str_eq(format_n(65536), "2^16");
	cr_expect_str_eq(format_n(16384), "16,384");
	cr_expect_str_eq(format_n(1024), "1,024");
	cr_expect_str_eq(format_n(1000003), "1,000,003");
	cr_expect_str_eq(format_n(4194304), "2^22");
	cr_expect_str_eq(format_n(75200), "75,200");
	cr_expect_str_eq(format_n(999), "999");
	cr_expect_str_eq(format_n(1), "1");
	cr_expect_str_eq(format_n(2.5), "2.5");
}

/* Every line its own colour, however many; none black or grey (published
 * numbers and guides). */
Test(plot, palette_has_a_colour_per_line)
{
	enum { MAX = 200 };
	static char words[MAX * 8 + 1];
	cr_assert_eq(plot_palette(MAX, words, sizeof words), MAX);
	char *w[MAX], *save = NULL;
	size_t n = 0;
	for (char *t = strtok_r(words, " ", &save); t; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	cr_assert_eq(n, MAX);
	for (size_t i = 0; i < n; i++) {
		unsigned r, g, b;
		cr_assert_eq(sscanf(w[i], "#%2x%2x%2x", &r, &g, &b), 3, "%s", w[i]);
		unsigned hi = r > g ? (r > b ? r : b) : (g > b ? g : b);
		unsigned lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
		cr_expect(hi - lo > 30, "colour %zu (%s) is grey or black", i, w[i]);
		for (size_t j = 0; j < i; j++)
			cr_expect_str_neq(w[i], w[j], "colours %zu and %zu are both %s", j, i, w[i]);
	}
	char small[20];
	cr_expect_eq(plot_palette(5, small, sizeof small), 2, "only what fits: %s", small);
}

/* The scripts take their line colours from that palette: a `for [i=...]`
 * plot with gnuplot's own colours repeats them after eight lines (the
 * sph-scale and scaling figures did). */
Test(plot, every_script_colours_its_lines_from_the_palette)
{
	const char *scripts[] = { "compare" };
	char path[300], line[1024];
	for (size_t k = 0; k <= plot_suite_count; k++) {
		snprintf(path, sizeof path, "plots/%s.gp",
			 k < plot_suite_count ? plot_suites[k].name : scripts[0]);
		FILE *fp = fopen(path, "r");
		cr_assert_not_null(fp, "%s", path);
		size_t loops = 0, coloured = 0;
		bool open_loop = false;
		while (fgets(line, sizeof line, fp)) {
			if (line[strspn(line, " ")] == '#')
				continue;
			if (strstr(line, "for [i=0:") || strstr(line, "for [b in")) {
				loops++;
				open_loop = true;
			}
			if (open_loop && strstr(line, "lc rgb colour(")) {
				coloured++;
				open_loop = false;
			}
		}
		fclose(fp);
		cr_expect(loops > 0, "%s draws no curves?", path);
		cr_expect_eq(loops, coloured, "%s: %zu curve loops, %zu coloured from the palette",
			     path, loops, coloured);
	}
}

/* The 8800 GTX's published GFLOP/s share the measured axis (a second y
 * axis beside `auto` read as if the two were alike). */
Test(plot, published_numbers_share_the_measured_axis)
{
	for (size_t k = 0; k < plot_suite_count; k++) {
		char path[300];
		snprintf(path, sizeof path, "plots/%s.gp", plot_suites[k].name);
		cr_expect_not(file_has(path, "axes x1y2"), "%s draws on a second y axis", path);
		cr_expect_not(file_has(path, "set y2tics"), "%s draws a second y axis", path);
	}
}

/* Twelve curves: twelve colours in the figure. */
Test(plot, many_curves_get_distinct_colours)
{
	char dir[] = "/tmp/test_plot_colours.XXXXXX", cmd[2048], svg[700], args[1600];
	need_gnuplot();
	make_dir(dir);
	/* the fixture's four variants, three times over under other names */
	snprintf(cmd, sizeof cmd,
		 "awk -F, 'BEGIN{OFS=\",\"} /^#/ || NR==1 || /^variant,/ {print; next} "
		 "{print; for (k = 1; k <= 2; k++) {r = $0; sub(/^[^,]*/, $1 \"-copy\" k, r); print r}}' "
		 H200 "/sph-scale.csv > %s/sph-scale.csv",
		 dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(args, sizeof args, "--suite sph-scale --from %s --out %s/figs", dir, dir);
	cr_assert_eq(plot(args, NULL), 0);
	snprintf(svg, sizeof svg, "%s/figs/sph-scale.svg", dir);
	/* gnuplot's SVG strokes each curve's path in its colour, rgb(r, g, b) */
	snprintf(cmd, sizeof cmd,
		 "test $(grep -o \"stroke='rgb([ 0-9,]*)'\" %s | sort -u | wc -l) -ge 12", svg);
	cr_expect_eq(system(cmd), 0, "fewer than 12 line colours in %s", svg);
	remove_tree(dir);
}

/* ---- the scaling figures' titles ------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp, "%s", path);
	fputs(text, fp);
	fclose(fp);
}

/* Writes dir/name (a scaling CSV): the header head, then rows. */
static void write_rank_file(const char *dir, const char *name, const char *head,
			    const char *rows)
{
	char path[600], text[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(text, sizeof text, "%s%s", head, rows);
	write_file(path, text);
}

/* The strong-scaling curves of dir's files, of which there are want; the
 * machines of the title into machines (1024 bytes). */
static void collect_scaling(const char *dir, int want, struct plot_curves *rate,
			    struct plot_curves *eff, char *machines)
{
	char sources[4096], err[512];
	cr_assert_eq(plot_scaling_collect(plot_suite_find("scaling"), dir, rate, eff, sources,
					  sizeof sources, machines, 1024, err, sizeof err),
		     want, "%s", err);
}

/* A run on four GPUs is titled by the four, from the rows; N as 2^k. */
Test(plot, scaling_title_names_the_gpus_of_the_rows)
{
	char dir[] = "/tmp/test_plot_gpus.XXXXXX", machines[1024];
	const char *head = "variant,device_name,n,ranks,gpus,valid,interactions_per_s,"
			   "pct_of_ceiling,noise_pct\n";
	make_dir(dir);
	write_rank_file(dir, "scaling-p1.csv", head, "auto,NVIDIA H200,1048576,1,1,1,1e12,70,1\n");
	write_rank_file(dir, "scaling-p4.csv", head,
			"dist-ring,NVIDIA H200,1048576,4,4,1,3.8e12,66,1\n");
	struct plot_curves rate = { 0 }, eff = { 0 };
	collect_scaling(dir, 2, &rate, &eff, machines);
	cr_expect_str_eq(machines, "4 x NVIDIA H200");
	cr_assert_eq(eff.ncurves, 1);
	cr_expect_str_eq(eff.curves[0].title, "dist-ring, N = 2^20");
	plot_curves_free(&rate);
	plot_curves_free(&eff);
	remove_tree(dir);

	/* CPU ranks: no GPU count, the ranks */
	memset(&rate, 0, sizeof rate);
	memset(&eff, 0, sizeof eff);
	collect_scaling(H200, 2, &rate, &eff, machines);
	cr_expect_str_eq(machines, "AMD EPYC (2 ranks)");
	plot_curves_free(&rate);
	plot_curves_free(&eff);
}

/* ---- the scaling figures' axis and line styles ------------------------------------ */

static void expect_range(const double *y, size_t n, double lo, double hi)
{
	struct plot_curves c = { 0 };
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(plot_curves_add(&c, "E", "d", 0, (struct plot_look){ 0 },
					     (struct plot_point){ .x = (double)i, .y = y[i] }),
			     0);
	double got_lo, got_hi;
	plot_efficiency_range(&c, &got_lo, &got_hi);
	cr_expect(fabs(got_lo - lo) < 1e-9 && fabs(got_hi - hi) < 1e-9,
		  "%zu points from %g: [%g, %g], want [%g, %g]", n, n ? y[0] : NAN, got_lo, got_hi,
		  lo, hi);
	plot_curves_free(&c);
}

/* The efficiency axis runs from a little below the lowest point to just
 * above 100 % (the four H200s' strong scaling: 88 % to 100 % on 0 to 110
 * read as one line), and spans at least 5 % (weak scaling's 99.6 % is not
 * drawn as a fall). */
Test(plot, efficiency_axis_fits_the_points)
{
	expect_range((double[]){ 100, 96.3, 88.0, 99.9 }, 4, 86, 101);
	expect_range((double[]){ 99.9, 99.6, 100.2 }, 3, 95, 101.2);
	expect_range((double[]){ 100, 50, 3.5 }, 3, 0, 105);
	expect_range((double[]){ 100, 103 }, 2, 98, 104);
	expect_range((double[]){ NAN, 97 }, 2, 95, 101);
	expect_range(NULL, 0, 0, 110);
}

/* Word k of a space-separated list. */
static const char *word_of(const char *list, size_t k)
{
	static char w[64];
	const char *p = list;
	for (size_t i = 0; i < k && p; i++) {
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	cr_assert_not_null(p, "no word %zu in '%s'", k, list);
	size_t n = strcspn(p, " ");
	snprintf(w, sizeof w, "%.*s", (int)n, p);
	return w;
}

/* The position, in the order written, of c's curve titled title. */
static size_t written_at(const struct plot_curves *c, const char *title)
{
	size_t order[64];
	cr_assert_leq(c->ncurves, 64);
	plot_curve_order(c, order);
	for (size_t k = 0; k < c->ncurves; k++)
		if (strcmp(c->curves[order[k]].title, title) == 0)
			return k;
	cr_assert_fail("no curve '%s'", title);
	return 0;
}

struct look_of {
	char colour[16], point[8], dash[8], width[8];
};

static struct look_of look_of(const struct plot_curves *c, const struct plot_line_styles *st,
			      const char *title)
{
	struct look_of l;
	size_t k = written_at(c, title);
	snprintf(l.colour, sizeof l.colour, "%s", word_of(st->colours, k));
	snprintf(l.point, sizeof l.point, "%s", word_of(st->points, k));
	snprintf(l.dash, sizeof l.dash, "%s", word_of(st->dashes, k));
	snprintf(l.width, sizeof l.width, "%s", word_of(st->widths, k));
	return l;
}

/* Strong scaling: a variant has one colour and dash in both panels, an N
 * (or a P) one marker, so dash and marker tell every curve apart in grey
 * print; the one-device rate is drawn wide and pale beneath the P = 1
 * rows that coincide with it. */
Test(plot, scaling_lines_are_told_apart_by_variant_and_n)
{
	char dir[] = "/tmp/test_plot_looks.XXXXXX", machines[1024];
	const char *head = "variant,device_name,n,ranks,gpus,valid,interactions_per_s\n";
	make_dir(dir);
	write_rank_file(dir, "scaling-p1.csv", head,
			"auto,G,65536,1,1,1,1e12\nauto,G,262144,1,1,1,1.1e12\n"
			"dist-allgather,G,65536,1,1,1,1e12\ndist-allgather,G,262144,1,1,1,1.1e12\n"
			"dist-ring,G,65536,1,1,1,1e12\ndist-ring,G,262144,1,1,1,1.1e12\n");
	write_rank_file(dir, "scaling-p2.csv", head,
			"dist-allgather,G,65536,2,2,1,1.9e12\ndist-allgather,G,262144,2,2,1,2.2e12\n"
			"dist-ring,G,65536,2,2,1,1.8e12\ndist-ring,G,262144,2,2,1,2.2e12\n");
	struct plot_curves rate = { 0 }, eff = { 0 };
	collect_scaling(dir, 2, &rate, &eff, machines);
	struct plot_line_styles rs, es;
	cr_assert_eq(plot_line_styles(&rate, &rs), 0);
	cr_assert_eq(plot_line_styles(&eff, &es), 0);

	const char *eff_titles[] = { "dist-allgather, N = 2^16", "dist-allgather, N = 2^18",
				     "dist-ring, N = 2^16", "dist-ring, N = 2^18" };
	struct look_of e[4];
	for (size_t i = 0; i < 4; i++)
		e[i] = look_of(&eff, &es, eff_titles[i]);
	cr_expect_str_eq(e[0].colour, e[1].colour, "one variant, one colour");
	cr_expect_str_neq(e[0].colour, e[2].colour, "two variants, one colour");
	cr_expect_str_eq(e[0].dash, "1", "the first variant solid");
	cr_expect_str_eq(e[2].dash, e[3].dash);
	cr_expect_str_neq(e[0].dash, e[2].dash, "two variants, one dash type");
	cr_expect_str_eq(e[0].point, e[2].point, "one N, one marker");
	cr_expect_str_neq(e[0].point, e[1].point, "two N, one marker");
	for (size_t i = 0; i < 4; i++)
		for (size_t j = i + 1; j < 4; j++)
			cr_expect(strcmp(e[i].dash, e[j].dash) != 0 ||
					  strcmp(e[i].point, e[j].point) != 0,
				  "'%s' and '%s' alike in grey", eff_titles[i], eff_titles[j]);

	struct look_of one = look_of(&rate, &rs, "auto (one device)"),
		       p1 = look_of(&rate, &rs, "dist-ring, P = 1"),
		       p2 = look_of(&rate, &rs, "dist-ring, P = 2");
	cr_expect_eq(written_at(&rate, "auto (one device)"), 0, "the one-device rate drawn first");
	cr_expect_eq(strlen(one.colour), 9, "the one-device rate not pale: %s", one.colour);
	cr_expect(strncmp(one.colour, "#aa", 3) == 0, "%s", one.colour);
	cr_expect_gt(atof(one.width), 2 * atof(p1.width), "the one-device rate not wide");
	cr_expect_str_eq(p1.colour, e[2].colour, "dist-ring's colour differs between the panels");
	cr_expect_str_eq(p1.colour, p2.colour);
	cr_expect_str_neq(p1.point, p2.point, "two P, one marker");
	cr_expect_str_neq(one.colour + 3, p1.colour + 1, "the one-device rate in a variant's colour");
	plot_curves_free(&rate);
	plot_curves_free(&eff);
	remove_tree(dir);
}

/* Past the fixed markers they repeat, never an empty word; each list has
 * a word per curve. */
Test(plot, line_styles_have_a_word_per_curve)
{
	struct plot_curves c = { 0 };
	char title[32];
	for (size_t i = 0; i < 40; i++) {
		snprintf(title, sizeof title, "c%zu", i);
		cr_assert_eq(plot_curves_add(&c, title, "d", (double)i,
					     (struct plot_look){ i % 3, i, i == 0 },
					     (struct plot_point){ .x = 1, .y = 1 }),
			     0);
	}
	struct plot_line_styles st;
	cr_assert_eq(plot_line_styles(&c, &st), 0);
	cr_expect_eq(count_words(st.colours), 40);
	cr_expect_eq(count_words(st.points), 40);
	cr_expect_eq(count_words(st.dashes), 40);
	cr_expect_eq(count_words(st.widths), 40);
	char marker[PLOT_MARKERS + 1][8]; /* curve 0 is a backdrop: the markers from curve 1 */
	for (size_t k = 1; k <= PLOT_MARKERS; k++)
		snprintf(marker[k], sizeof marker[k], "%s", word_of(st.points, k));
	cr_expect_str_eq(word_of(st.points, 1 + PLOT_MARKERS), marker[1], "repeat after the last");
	for (size_t k = 1; k <= PLOT_MARKERS; k++)
		for (size_t j = k + 1; j <= PLOT_MARKERS; j++)
			cr_expect_str_neq(marker[k], marker[j], "curves %zu and %zu", k, j);
	plot_curves_free(&c);
}

/* ---- --compare over every suite --------------------------------------------------- */

/* Suites without a ceiling (SPH) or without a noise column are drawn in one
 * panel; the scaling figures, which --compare cannot overlay, are one line
 * each; nothing of gnuplot's reaches the terminal; exit 0. */
Test(plot, compare_draws_what_it_can_and_says_what_not)
{
	char dir[] = "/tmp/test_plot_cmpall.XXXXXX", cmd[2048], out[700], errf[700], png[700];
	need_gnuplot();
	make_dir(dir);
	snprintf(out, sizeof out, "%s/stdout", dir);
	snprintf(errf, sizeof errf, "%s/stderr", dir);
	snprintf(cmd, sizeof cmd, "%s plot --compare " H200 " " A100 " --out %s/figs > %s 2> %s",
		 harness_bin(), dir, out, errf);
	int st = system(cmd);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", cmd);
	cr_expect_eq(file_size(errf), 0, "stderr is not empty (gnuplot's messages?)");
	const char *drawn[] = { "sph-scale", "sph-memory", "fig31-6", "cpu-speedup" };
	for (size_t i = 0; i < 4; i++) {
		snprintf(png, sizeof png, "%s/figs/compare-%s.png", dir, drawn[i]);
		cr_expect(is_png(png), "%s", png);
	}
	cr_expect(file_has(out, "compare-scaling: not drawn: "), "no line for scaling");
	cr_expect(file_has(out, "compare-weak-scaling: not drawn: "), "no line for weak-scaling");
	remove_tree(dir);
}

/* Rows of one device name in two directories (the host CPU of two GPU
 * machines: sph-scale's sph-cpu-grid rows of results/h200 and of an
 * H100's table kept as a fixture) get their directory in the key, so the two curves do
 * not read alike; the curves of the GPUs, whose names differ, do not. */
#define SPH_H100 "tests/fixtures/results/sph-h100"

Test(plot, compare_tells_curves_of_one_device_name_apart)
{
	char dir[] = "/tmp/test_plot_cmpname.XXXXXX", cmd[2048], svg[700];
	need_gnuplot();
	make_dir(dir);
	snprintf(cmd, sizeof cmd, "%s plot --suite sph-scale --compare results/h200 " SPH_H100 " "
		 "--out %s/figs > /dev/null 2>&1", harness_bin(), dir);
	int st = system(cmd);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", cmd);
	snprintf(svg, sizeof svg, "%s/figs/compare-sph-scale.svg", dir);
	cr_expect(file_has(svg, "sph-cpu-grid [results/h200]"), "no directory on the h200 CPU curve");
	cr_expect(file_has(svg, "sph-cpu-grid [" SPH_H100 "]"), "no directory on the h100 CPU curve");
	cr_expect(!file_has(svg, "sph-gpu-verlet [results/h200]"), "a GPU curve tagged needlessly");
	remove_tree(dir);
}

/* A figure gnuplot cannot draw under --compare is one line; the others are
 * drawn and the status is 0. */
Test(plot, compare_goes_on_past_a_figure_gnuplot_rejects)
{
	char dir[] = "/tmp/test_plot_cmpfail.XXXXXX", path[700], errf[700], args[1600], png[700];
	char cwd[2048], text[4096] = "";
	need_gnuplot();
	make_dir(dir);
	cr_assert_not_null(getcwd(cwd, sizeof cwd));
	snprintf(path, sizeof path, "%s/compare.gp", dir);
	snprintf(text, sizeof text,
		 "if (suite eq \"steps\") { this is not gnuplot }\nload \"%s/plots/compare.gp\"\n", cwd);
	write_file(path, text);
	snprintf(errf, sizeof errf, "%s/stderr", dir);
	snprintf(args, sizeof args, "--compare " H200 " " A100 " --scripts %s --out %s/figs", dir, dir);
	cr_expect_eq(plot(args, errf), 0);
	FILE *e = fopen(errf, "r");
	size_t n = e ? fread(text, 1, sizeof text - 1, e) : 0;
	text[n] = '\0';
	if (e)
		fclose(e);
	cr_expect_eq(count_lines(text), 1, "want one line, got: %s", text);
	cr_expect(strstr(text, "harness: plot: compare-steps: not drawn: gnuplot failed") != NULL,
		  "%s", text);
	snprintf(png, sizeof png, "%s/figs/compare-fig31-6.png", dir);
	cr_expect(is_png(png), "%s", png);
	snprintf(png, sizeof png, "%s/figs/compare-steps.png", dir);
	cr_expect(access(png, F_OK) != 0, "%s appeared", png);
	remove_tree(dir);
}
