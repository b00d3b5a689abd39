/* test_compare_unchecked.c - a file compare cannot check against its sidecar is compared only when the user says so */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli_run.h"
#include "../csv_column.h"
#include "../tmp_dir.h"

#define CHECK "results/h200/check-1000003.csv" /* a committed pair; compares by validation */

/* `harness compare ARGS`: exit status, stdout into out, stderr into err
 * (from two runs, which must agree). */
static int compare(const char *args, char *out, size_t outlen, char *err, size_t errlen)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "%s compare %s", cli_harness_bin(), args);
	const int rc = cli_run(cmd, err, errlen);
	snprintf(cmd, sizeof cmd, "%s compare %s 2>/dev/null", cli_harness_bin(), args);
	cr_expect_eq(cli_run_stdout(cmd, out, outlen), rc, "'%s' exits alike twice", args);
	return rc;
}

/* Refused: exit 2, one line naming the file and --unchecked, no verdict. */
static void expect_refused(const char *args, const char *file, const char *why)
{
	char out[1 << 15], err[4096];
	int rc = compare(args, out, sizeof out, err, sizeof err);
	cr_expect_eq(rc, 2, "'%s': exit %d: %s", args, rc, err);
	cr_expect(strchr(err, '\n') && strchr(err, '\n') == strrchr(err, '\n'), "one line: %s", err);
	cr_expect(strstr(err, file) && strstr(err, why) && strstr(err, "--unchecked takes it as it is"),
		  "'%s': %s", args, err);
	cr_expect_null(strstr(out, "verdict:"), "no verdict for '%s':\n%s", args, out);
}

/* A CSV without a sidecar, as it is or with a number edited, is no
 * verdict but bad input saying how to compare it anyway; with
 * --unchecked it gets its verdict, marked not checked. */
Test(compare_unchecked, a_csv_without_its_sidecar_needs_unchecked, .timeout = 60)
{
	char dir[64], copy[128], edited[128], args[512], out[1 << 15], err[4096];
	const char *key[] = { "variant" }, *at[] = { "tiled-p64" };
	tmp_dir_make(dir, "unchecked");
	snprintf(copy, sizeof copy, "%s/copy.csv", dir);
	snprintf(edited, sizeof edited, "%s/edited.csv", dir);
	csv_with_cell(CHECK, copy, 1, key, at, "valid", "1");
	csv_with_cell(CHECK, edited, 1, key, at, "valid", "0");
	snprintf(args, sizeof args, CHECK " %s", copy);
	expect_refused(args, copy, "has no sidecar");
	snprintf(args, sizeof args, CHECK " %s", edited);
	expect_refused(args, edited, "has no sidecar");
	snprintf(args, sizeof args, "%s " CHECK, copy);
	expect_refused(args, copy, "has no sidecar");
	snprintf(args, sizeof args, CHECK " %s --unchecked", copy);
	cr_expect_eq(compare(args, out, sizeof out, err, sizeof err), 0, "%s%s", out, err);
	cr_expect(strstr(out, "no sidecar") && strstr(out, "not checked"), "%s", out);
	snprintf(args, sizeof args, "--unchecked " CHECK " %s", edited);
	cr_expect_eq(compare(args, out, sizeof out, err, sizeof err), 1, "%s%s", out, err);
	tmp_dir_remove(dir);
}

/* A sidecar whose checksum keys were all taken out is as unchecked as
 * none (needs --unchecked); one with only part of them taken out is
 * refused as edited, --unchecked or not. */
Test(compare_unchecked, a_sidecar_without_its_checksum_agrees_with_none, .timeout = 60)
{
	char dir[64], cmd[1024], csv[128], args[512], out[1 << 15], err[4096];
	tmp_dir_make(dir, "unchecked-side");
	snprintf(csv, sizeof csv, "%s/c.csv", dir);
	snprintf(cmd, sizeof cmd,
		 "cp " CHECK " %s && grep -v '\"csv_fnv1a64\"\\|\"csv_rows\"\\|\"csv_bytes\"' "
		 "results/h200/check-1000003.meta.json > %s/c.meta.json",
		 csv, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	snprintf(args, sizeof args, CHECK " %s", csv);
	expect_refused(args, csv, "records no checksum");
	snprintf(args, sizeof args, CHECK " %s --unchecked", csv);
	cr_expect_eq(compare(args, out, sizeof out, err, sizeof err), 0, "%s%s", out, err);
	cr_expect(strstr(out, "predates checksums: not checked"), "%s", out);
	/* only the checksum gone: an edited sidecar, refused either way */
	snprintf(cmd, sizeof cmd,
		 "grep -v '\"csv_fnv1a64\"' results/h200/check-1000003.meta.json > %s/c.meta.json", dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	for (int k = 0; k < 2; k++) {
		snprintf(args, sizeof args, CHECK " %s%s", csv, k ? " --unchecked" : "");
		cr_expect_eq(compare(args, out, sizeof out, err, sizeof err), 2, "%s", err);
		cr_expect(strstr(err, "no csv_fnv1a64"), "%s", err);
	}
	tmp_dir_remove(dir);
}

/* --help says what --unchecked does. */
Test(compare_unchecked, help_names_the_option)
{
	char out[1 << 15], err[4096];
	cr_assert_eq(compare("--help", out, sizeof out, err, sizeof err), 0);
	cr_expect(strstr(out, "[--unchecked]") && strstr(out, "--unchecked           compare a CSV"),
		  "%s", out);
}
