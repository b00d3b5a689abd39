/* test_readme.c - the README's examples (and the results pages'), checked against the program */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ctype.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_run.h"
#include "tmp_dir.h"

/*
 * A block of the README or of a page under results/ that shows what a
 * program prints is preceded by the line
 *
 *     <!-- checked: tests/test_readme.c NAME -->
 *
 * and NAME is one of the tests below: each extracts its block (a fenced
 * code block, or a table) and compares it with what the program prints
 * now, so that an example cannot go stale. In a code block, a line
 * "$ COMMAND" shows the command, "..." alone stands for lines not shown,
 * and "..." inside a line for text not compared; every other line must
 * stand, in order, in the output. Nothing compared depends on timings.
 */

#define MARKER "\n<!-- checked: tests/test_readme.c "

/* The checks this file knows; a marker naming another is an error. */
static const char *const readme_checks[] = {
	"make-run", "list", "unknown-variant", "compare", "nbody-headline",
	"sph-headline", "render-headline", "multi-gpu-headline", "gate-headline",
	"sidecar-mismatch", "planted-skip-body", "without-gpu",
};

/* The files that may hold checked blocks and links: README.md and the pages. */
static size_t doc_files(glob_t *g)
{
	cr_assert_eq(glob("README.md", 0, NULL, g), 0, "run from the repository root");
	cr_assert_eq(glob("results/*.md", GLOB_APPEND, NULL, g), 0, "no pages under results/");
	return g->gl_pathc;
}

/* The whole of path (the caller frees it). */
static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	cr_assert_not_null(fp, "cannot open %s", path);
	size_t cap = 1 << 16, len = 0;
	char *text = malloc(cap);
	cr_assert_not_null(text);
	size_t got;
	while ((got = fread(text + len, 1, cap - len - 1, fp)) > 0) {
		len += got;
		if (cap - len < 2) {
			cap *= 2;
			text = realloc(text, cap);
			cr_assert_not_null(text);
		}
	}
	text[len] = '\0';
	fclose(fp);
	return text;
}

/* Splits text (in place) into its lines, trailing blanks cut; how many. */
static size_t split_lines(char *text, char **lines, size_t max)
{
	size_t n = 0;
	for (char *s = text; *s && n < max;) {
		char *nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		size_t len = strlen(s);
		while (len > 0 && isspace((unsigned char)s[len - 1]))
			s[--len] = '\0';
		lines[n++] = s;
		if (!nl)
			break;
		s = nl + 1;
	}
	return n;
}

struct block {
	char *text;		/* the file, split in place */
	char *file;
	char *lines[512];
	size_t n;
};

/* The block NAME marks in one of the documents: the fenced code block or
 * the table on the lines after its marker. */
static void block_find(const char *name, struct block *b)
{
	char marker[256];
	snprintf(marker, sizeof marker, MARKER "%s -->", name);
	glob_t g;
	size_t nfiles = doc_files(&g);
	b->text = NULL;
	for (size_t f = 0; f < nfiles && !b->text; f++) {
		char *text = slurp(g.gl_pathv[f]);
		char *at = strstr(text, marker);
		if (!at) {
			free(text);
			continue;
		}
		cr_assert_null(strstr(at + 1, marker), "%s: two blocks named %s", g.gl_pathv[f], name);
		b->text = text;
		b->file = strdup(g.gl_pathv[f]);
		static char *lines[4096];
		size_t n = split_lines(at + 1, lines, 4096), i = 1;
		while (i < n && lines[i][0] == '\0')
			i++;
		b->n = 0;
		if (i < n && strncmp(lines[i], "```", 3) == 0) {
			for (i++; i < n && strncmp(lines[i], "```", 3) != 0 && b->n < 512; i++)
				b->lines[b->n++] = lines[i];
			cr_assert_lt(i, n, "%s: the block %s is not closed", b->file, name);
		} else {
			for (; i < n && lines[i][0] == '|' && b->n < 512; i++)
				b->lines[b->n++] = lines[i];
		}
	}
	globfree(&g);
	cr_assert_not_null(b->text, "no document holds the block '%s'", name);
	cr_assert_gt(b->n, 0, "%s: the block %s is empty", b->file, name);
}

static void block_free(struct block *b)
{
	free(b->text);
	free(b->file);
}

/* The block shows the command shown (its first line, "$ shown"). */
static void block_expect_command(const struct block *b, const char *shown)
{
	cr_expect(strncmp(b->lines[0], "$ ", 2) == 0 && strcmp(b->lines[0] + 2, shown) == 0,
		  "%s: the block shows '%s', the test runs '%s'", b->file, b->lines[0], shown);
}

/* line matches pat, whose "..." stand for any text. */
static bool pattern_match(const char *pat, const char *line)
{
	const char *dots = strstr(pat, "...");
	if (!dots)
		return strcmp(pat, line) == 0;
	size_t len = (size_t)(dots - pat);
	if (strncmp(line, pat, len) != 0)
		return false;
	const char *l = line + len, *p = dots + 3;
	for (;;) {
		dots = strstr(p, "...");
		if (!dots) {	/* the last piece ends the line */
			size_t n = strlen(p), m = strlen(l);
			return n <= m && strcmp(l + m - n, p) == 0;
		}
		len = (size_t)(dots - p);
		const char *at = memmem(l, strlen(l), p, len);
		if (!at)
			return false;
		l = at + len;
		p = dots + 3;
	}
}

/* Every line of the block but commands, blank lines and "..." matches a
 * line of out, in the block's order. */
static void block_expect_in(const struct block *b, const char *name, char *out)
{
	static char *lines[8192];
	size_t n = split_lines(out, lines, 8192), at = 0;
	for (size_t i = 0; i < b->n; i++) {
		const char *want = b->lines[i];
		if (want[0] == '\0' || strcmp(want, "...") == 0 || strncmp(want, "$ ", 2) == 0)
			continue;
		while (at < n && !pattern_match(want, lines[at]))
			at++;
		cr_expect_lt(at, n, "%s, block %s: no line of the output (in order) is\n%s", b->file,
			     name, want);
		if (at == n)
			return;
		at++;
	}
}

/* Every line of the table is a line of text (a report, a page). */
static void table_expect_lines_of(const struct block *b, const char *name, char *text,
				  const char *source)
{
	static char *lines[8192];
	size_t n = split_lines(text, lines, 8192);
	for (size_t i = 0; i < b->n; i++) {
		size_t k = 0;
		while (k < n && strcmp(lines[k], b->lines[i]) != 0)
			k++;
		cr_expect_lt(k, n, "%s, table %s: not a line of %s:\n%s", b->file, name, source,
			     b->lines[i]);
	}
}

/* The output (stdout and stderr) of a shell command line, and its status. */
static int run_all(const char *cmdline, char *out, size_t len)
{
	return cli_run_capture(cmdline, ">%s 2>&1", out, len);
}

/* The program's absolute path, for commands run in another directory. */
static const char *harness_abs(void)
{
	static char path[4096];
	cr_assert_not_null(realpath(cli_harness_bin(), path), "no %s", cli_harness_bin());
	return path;
}

/* Whether this build can run variant name here (harness list says). */
static bool can_run_here(const char *name)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s list --variant %s | grep -q '^%s .* yes '", cli_harness_bin(),
		 name, name);
	return system(cmd) == 0;
}

/* The first three words of line (variant, N, valid), or "" for a line
 * of fewer. */
static void first_words(const char *line, char *key, size_t len)
{
	char a[128], b[64], c[64];
	if (sscanf(line, "%127s %63s %63s", a, b, c) == 3)
		snprintf(key, len, "%s %s %s", a, b, c);
	else
		key[0] = '\0';
}

/* Whether one of lines[0..n) begins with the words key. */
static bool row_in(const char *key, char *const *lines, size_t n)
{
	char other[256];
	for (size_t k = 0; k < n; k++) {
		first_words(lines[k], other, sizeof other);
		if (strcmp(key, other) == 0)
			return true;
	}
	return false;
}

/* Whether a line of the run table is compared: not the footnote, not the
 * line naming the files written. */
static bool run_table_line(const char *line)
{
	return line[0] != '\0' && line[0] != '*' && strcmp(line, "...") != 0 &&
	       strncmp(line, "$ ", 2) != 0 && strncmp(line, "wrote ", 6) != 0 &&
	       strncmp(line, "1 sample: ", 10) != 0; /* the table's footnotes */
}

/*
 * make run: the table `harness run` prints with its defaults on a machine
 * without a GPU. Rows are compared by variant, N and validation (the
 * timings are the machine's); every row the program prints stands in the
 * README, and every README row the program did not print is of a variant
 * this build cannot run (MPI may be left out). The README's numbers are
 * those of a run whose whole output is committed: each of its lines is a
 * line of results/dev-cpu/logs/make-run.log.
 */
Test(readme, make_run_shows_every_cpu_variant_and_its_rows, .timeout = 300)
{
	struct block b;
	block_find("make-run", &b);
	block_expect_command(&b, "make run");
	char dir[64], cmd[1024];
	tmp_dir_make(dir, "readme");
	static char out[1 << 16];
	snprintf(cmd, sizeof cmd, "%s run --device cpu --min-time 0.01 --max-time 0.01 --out %s/run.csv",
		 cli_harness_bin(), dir);
	cr_assert_eq(cli_run_capture(cmd, ">%s 2>/dev/null", out, sizeof out), 0, "%s", out);
	static char *lines[1024];
	size_t n = split_lines(out, lines, 1024);
	char key[256], variant[128];
	for (size_t i = 0; i < b.n; i++) {
		if (!run_table_line(b.lines[i]))
			continue;
		first_words(b.lines[i], key, sizeof key);
		if (row_in(key, lines, n) || sscanf(key, "%127s", variant) != 1)
			continue;
		cr_expect(!can_run_here(variant), "%s: the row '%s' was not printed by\n%s\n%s", b.file,
			  key, cmd, out);
	}
	for (size_t k = 0; k < n; k++) {
		if (!run_table_line(lines[k]))
			continue;
		first_words(lines[k], key, sizeof key);
		cr_expect(row_in(key, b.lines, b.n),
			  "%s, block make-run lacks the row '%s' the program prints", b.file, key);
	}
	const char *log_path = "results/dev-cpu/logs/make-run.log";
	char *log = slurp(log_path);
	static char *logged[4096];
	const size_t nlog = split_lines(log, logged, 4096);
	for (size_t i = 0; i < b.n; i++) {
		if (!run_table_line(b.lines[i]))
			continue;
		bool found = false;
		for (size_t k = 0; k < nlog && !found; k++)
			found = strcmp(b.lines[i], logged[k]) == 0;
		cr_expect(found, "%s, block make-run: '%s' is not a line of %s", b.file, b.lines[i],
			  log_path);
	}
	free(log);
	tmp_dir_remove(dir);
	block_free(&b);
}

/* The block name shows the command shown and lines of what cmdline (the
 * same, as the test runs it) prints on stdout and stderr; it exits with
 * status. */
static void example_run(const char *name, const char *shown, const char *cmdline, int status)
{
	struct block b;
	block_find(name, &b);
	block_expect_command(&b, shown);
	static char out[1 << 16];
	cr_assert_eq(run_all(cmdline, out, sizeof out), status, "%s", out);
	block_expect_in(&b, name, out);
	block_free(&b);
}

/* The same for `bin/harness ARGS`. */
static void example_of(const char *name, const char *args, int status)
{
	char shown[512], cmd[512];
	snprintf(shown, sizeof shown, "bin/harness %s", args);
	snprintf(cmd, sizeof cmd, "%s %s", cli_harness_bin(), args);
	example_run(name, shown, cmd, status);
}

Test(readme, list_example_is_what_list_prints)
{
	example_of("list", "list", 0);
}

Test(readme, unknown_variant_example_is_the_error_printed)
{
	example_of("unknown-variant", "run --variant nosuch", 2);
}

/* compare of two committed results files prints no timing of its own:
 * the example is its output, lines left out where it says "...". */
Test(readme, compare_example_is_what_compare_prints)
{
	example_of("compare", "compare --across-devices results/h200/steps.csv results/h100/steps.csv", 0);
}

/* Every row of the table in out whose header is the block's (its first
 * line) that report marks **missed** is a row of the block: a headline
 * may leave rows out, never a target missed. */
static void block_has_every_missed_row(const struct block *b, const char *name, char *out)
{
	static char *lines[8192];
	size_t n = split_lines(out, lines, 8192), k = 0;
	while (k < n && strcmp(lines[k], b->lines[0]) != 0)
		k++;
	for (k++; k < n && lines[k][0] == '|'; k++) {
		if (!strstr(lines[k], "**missed**"))
			continue;
		size_t i = 0;
		while (i < b->n && strcmp(b->lines[i], lines[k]) != 0)
			i++;
		cr_expect_lt(i, b->n, "%s, table %s lacks a row report marks missed:\n%s", b->file,
			     name, lines[k]);
	}
}

/* A headline table is made of lines `harness report ARGS` prints, and
 * shows every row of its table that report marks missed. */
static void headline_from_report(const char *name, const char *args)
{
	struct block b;
	block_find(name, &b);
	static char out[1 << 16];
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s report %s", cli_harness_bin(), args);
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	cr_expect_geq(b.n, 3, "%s: the table %s has a header, a rule and rows", b.file, name);
	table_expect_lines_of(&b, name, out, cmd);
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out); /* split in place above */
	block_has_every_missed_row(&b, name, out);
	block_free(&b);
}

/*
 * The walk-through without a GPU is what tests/readme-walkthrough.sh ran:
 * every line of the block stands in its log, where it exited 0, and the
 * log has no line the block lacks (it ran the block as it is now).
 */
Test(readme, the_walkthrough_without_a_gpu_ran_as_shown)
{
	struct block b;
	block_find("without-gpu", &b);
	const char *log_path = "results/dev-cpu/logs/without-gpu.log";
	char *log = slurp(log_path);
	static char *logged[8192];
	const size_t nlog = split_lines(log, logged, 8192);
	size_t ran = 0;
	for (size_t k = 0; k < nlog; k++)
		ran += strncmp(logged[k], "$ ", 2) == 0;
	cr_expect_eq(ran, b.n, "%s ran %zu lines; the block %s has %zu", log_path, ran, b.file, b.n);
	for (size_t i = 0; i < b.n; i++) {
		size_t k = 0;
		while (k < nlog && !(strncmp(logged[k], "$ ", 2) == 0 && strcmp(logged[k] + 2, b.lines[i]) == 0))
			k++;
		cr_expect_lt(k, nlog, "%s: '%s' is not a line %s ran", b.file, b.lines[i], log_path);
		while (k < nlog && strncmp(logged[k], "# exit ", 7) != 0)
			k++;
		cr_expect(k < nlog && strncmp(logged[k], "# exit 0 ", 9) == 0, "%s: '%s': %s", log_path,
			  b.lines[i], k < nlog ? logged[k] : "no exit status");
	}
	free(log);
	block_free(&b);
}

/*
 * The walk-through's mpirun lines run as they stand, for root as for any
 * other user: nothing of the environment this test runs in lets mpirun
 * start as root (OpenMPI refuses root unless told, and the line is what
 * tells it). Each runs with its file written here instead.
 */
Test(readme, the_walkthroughs_mpirun_lines_run_as_shown_for_root_too, .timeout = 240)
{
	if (system("command -v mpirun >/dev/null 2>&1") != 0)
		cr_skip_test("mpirun is not installed (apt-get install openmpi-bin, or make test)");
	if (!can_run_here("dist-ring-cpu"))
		cr_skip_test("the distributed variants cannot run here (a build without MPI)");
	struct block b;
	block_find("without-gpu", &b);
	char dir[64], cmd[2048];
	static char out[1 << 16];
	tmp_dir_make(dir, "readme-mpirun");
	size_t ran = 0;
	for (size_t i = 0; i < b.n; i++) {
		if (!strstr(b.lines[i], "mpirun "))
			continue;
		snprintf(cmd, sizeof cmd,
			 "env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM bash -c \"%s -q "
			 "--out %s/m%zu.csv\"",
			 b.lines[i], dir, i);
		cr_expect_eq(run_all(cmd, out, sizeof out), 0, "%s: '%s' as uid %d:\n%s", b.file,
			     b.lines[i], (int)getuid(), out);
		ran++;
	}
	cr_expect_gt(ran, 0, "%s: the walk-through has no mpirun line", b.file);
	tmp_dir_remove(dir);
	block_free(&b);
}

Test(readme, nbody_headline_is_report_lines)
{
	headline_from_report("nbody-headline", "--from results/h200");
}

Test(readme, sph_headline_is_report_lines)
{
	headline_from_report("sph-headline", "--sph --from results/h200");
}

Test(readme, render_headline_is_report_lines)
{
	headline_from_report("render-headline", "--render --from results/h200");
}

/* A headline table that no program prints is made of its page's lines. */
static void headline_from_page(const char *name, const char *page)
{
	struct block b;
	block_find(name, &b);
	char *text = slurp(page);
	cr_expect_geq(b.n, 3, "%s: the table %s has a header, a rule and rows", b.file, name);
	table_expect_lines_of(&b, name, text, page);
	free(text);
	block_free(&b);
}

Test(readme, multi_gpu_headline_is_lines_of_its_page)
{
	headline_from_page("multi-gpu-headline", "results/nbody-multi-gpu.md");
}

Test(readme, gate_headline_is_lines_of_its_page)
{
	headline_from_page("gate-headline", "results/gate.md");
}

/* A one-row results file that gained a row after its sidecar was written
 * is refused, in one line. */
Test(readme, sidecar_mismatch_example_is_the_refusal_printed)
{
	char dir[64], cmd[1024], out[4096];
	tmp_dir_make(dir, "readme");
	snprintf(cmd, sizeof cmd,
		 "(cd %s && %s run -q --variant cpu-portable --n 16 --min-time 0.01 --max-time 0.01 "
		 "--out x.csv && tail -n 1 x.csv >> x.csv)",
		 dir, harness_abs());
	cr_assert_eq(run_all(cmd, out, sizeof out), 0, "%s", out);
	snprintf(cmd, sizeof cmd, "(cd %s && %s compare x.csv x.csv)", dir, harness_abs());
	example_run("sidecar-mismatch", "bin/harness compare x.csv x.csv", cmd, 2);
	tmp_dir_remove(dir);
}

/* The test hook that plants a massless body: the failure line. */
Test(readme, planted_skip_body_example_is_the_failure_printed)
{
	char dir[64], cmd[1024];
	tmp_dir_make(dir, "readme");
	snprintf(cmd, sizeof cmd,
		 "HARNESS_PLANT_SKIP_BODY=cpu-simd %s run --variant 'cpu-*' --n 1000 --min-time 0.01 "
		 "--max-time 0.01 --out %s/p.csv",
		 cli_harness_bin(), dir);
	example_run("planted-skip-body",
		    "HARNESS_PLANT_SKIP_BODY=cpu-simd bin/harness run --variant 'cpu-*' --n 1000", cmd, 1);
	tmp_dir_remove(dir);
}

/* Every marker names a check of this file (a misspelt one would leave
 * its block unchecked). */
Test(readme, every_marker_names_a_check)
{
	glob_t g;
	size_t nfiles = doc_files(&g), markers = 0;
	for (size_t f = 0; f < nfiles; f++) {
		char *text = slurp(g.gl_pathv[f]);
		for (char *at = strstr(text, "\n<!-- checked:"); at; at = strstr(at + 1, "\n<!-- checked:")) {
			markers++;
			char name[128] = "";
			cr_expect(strncmp(at, MARKER, strlen(MARKER)) == 0 &&
					  sscanf(at + strlen(MARKER), "%127s", name) == 1,
				  "%s: a marker not of the form '<!-- checked: tests/test_readme.c NAME -->': %.80s",
				  g.gl_pathv[f], at + 1);
			size_t k = 0, nchecks = sizeof readme_checks / sizeof *readme_checks;
			while (k < nchecks && strcmp(readme_checks[k], name) != 0)
				k++;
			cr_expect_lt(k, nchecks, "%s: no check named '%s' in tests/test_readme.c",
				     g.gl_pathv[f], name);
		}
		free(text);
	}
	globfree(&g);
	cr_expect_eq(markers, sizeof readme_checks / sizeof *readme_checks,
		     "one marker per check: %zu markers", markers);
}

/* GitHub's anchor of a heading: lower case, punctuation dropped, spaces
 * as hyphens. */
static void heading_anchor(const char *heading, char *anchor, size_t len)
{
	size_t n = 0;
	for (const char *s = heading; *s && n + 1 < len; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) || c == '-' || c == '_')
			anchor[n++] = (char)tolower(c);
		else if (c == ' ')
			anchor[n++] = '-';
	}
	anchor[n] = '\0';
}

/* Whether the Markdown file path has a heading whose anchor is anchor. */
static bool has_anchor(const char *path, const char *anchor)
{
	char *text = slurp(path);
	static char *lines[8192];
	size_t n = split_lines(text, lines, 8192);
	bool found = false, fenced = false;
	for (size_t i = 0; i < n && !found; i++) {
		if (strncmp(lines[i], "```", 3) == 0)
			fenced = !fenced;
		if (fenced || lines[i][0] != '#')
			continue;
		const char *h = lines[i] + strspn(lines[i], "#");
		h += strspn(h, " ");
		char a[512];
		heading_anchor(h, a, sizeof a);
		found = strcmp(a, anchor) == 0;
	}
	free(text);
	return found;
}

/* Every relative link of the README and the pages names a file that
 * exists, and a heading of it where it names one. */
Test(readme, links_name_existing_files)
{
	glob_t g;
	size_t nfiles = doc_files(&g), links = 0;
	for (size_t f = 0; f < nfiles; f++) {
		const char *doc = g.gl_pathv[f];
		char *text = slurp(doc);
		char dir[256];
		snprintf(dir, sizeof dir, "%s", doc);
		char *slash = strrchr(dir, '/');
		if (slash)
			slash[1] = '\0';
		else
			dir[0] = '\0';
		for (char *at = strstr(text, "]("); at; at = strstr(at + 2, "](")) {
			char target[512];
			size_t len = strcspn(at + 2, ") \n");
			if (len == 0 || len >= sizeof target)
				continue;
			memcpy(target, at + 2, len);
			target[len] = '\0';
			if (strstr(target, "://") || strncmp(target, "mailto:", 7) == 0)
				continue;
			links++;
			char *hash = strchr(target, '#'), path[1024];
			if (hash)
				*hash++ = '\0';
			if (target[0])
				snprintf(path, sizeof path, "%s%s", dir, target);
			else
				snprintf(path, sizeof path, "%s", doc);
			struct stat st;
			cr_expect_eq(stat(path, &st), 0, "%s: the link (%s) names no file %s", doc,
				     target, path);
			if (hash && *hash && stat(path, &st) == 0)
				cr_expect(has_anchor(path, hash), "%s: %s has no heading #%s", doc, path,
					  hash);
		}
		free(text);
	}
	globfree(&g);
	cr_expect_gt(links, 20, "%zu links", links);
}
