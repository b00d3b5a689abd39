/* test_atomic_file.c - tests of atomic_file: whole files or none, and early writability checks */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp, open_memstream */

#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness/core/atomic_file.h"

static char dir[64];

static void make_dir(void)
{
	strcpy(dir, "/tmp/test_atomic_file.XXXXXX");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	(void)st; (void)type; (void)ftw;
	return remove(path);
}

static void remove_dir(void)
{
	chmod(dir, 0700);
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(atomic_file, .init = make_dir, .fini = remove_dir);

/* Returns the number of entries in d, other than "." and "..". */
static int count_entries(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(dp, "opendir %s: %s", d, strerror(errno));
	while ((e = readdir(dp)) != NULL) {
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	}
	closedir(dp);
	return n;
}

/* Returns the whole content of path (malloc'd), its length in *len. */
static char *read_whole(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long size;

	cr_assert_not_null(fp, "fopen %s: %s", path, strerror(errno));
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)size + 1);
	cr_assert_not_null(buf);
	*len = fread(buf, 1, (size_t)size, fp);
	buf[*len] = '\0';
	fclose(fp);
	return buf;
}

static void write_plain(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	cr_assert_not_null(fp, "fopen %s: %s", path, strerror(errno));
	fputs(text, fp);
	fclose(fp);
}

static void path_in_dir(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
}

Test(atomic_file, commit_makes_file_appear_with_full_content)
{
	struct atomic_file af;
	char path[PATH_MAX], err[256];
	size_t len;
	char *got;

	path_in_dir(path, "out.csv");
	cr_assert_eq(atomic_file_open(&af, path, err, sizeof(err)), 0, "%s", err);
	/* More than a stdio buffer, so some of it reaches the temp early. */
	for (int i = 0; i < 20000; i++)
		fprintf(af.fp, "line %05d\n", i);
	cr_assert_neq(access(path, F_OK), 0, "the file appeared before commit");
	cr_assert_eq(count_entries(dir), 1, "expected just the temporary");
	cr_assert_eq(atomic_file_commit(&af, err, sizeof(err)), 0, "%s", err);

	got = read_whole(path, &len);
	cr_assert_eq(len, 20000 * 11);
	cr_assert_eq(strncmp(got, "line 00000\nline 00001\n", 22), 0);
	cr_assert_eq(strcmp(got + len - 11, "line 19999\n"), 0);
	free(got);
	cr_assert_eq(count_entries(dir), 1, "temporary left behind");
	cr_assert_null(af.fp);
	cr_assert_null(af.tmp_path);
	atomic_file_abort(&af); /* harmless after commit */
	cr_assert_eq(access(path, F_OK), 0, "abort after commit removed the file");
}

Test(atomic_file, abort_leaves_no_file_and_no_temporary)
{
	struct atomic_file af;
	char path[PATH_MAX], err[256];

	path_in_dir(path, "out.json");
	cr_assert_eq(atomic_file_open(&af, path, err, sizeof(err)), 0, "%s", err);
	fputs("{ \"half\": ", af.fp);
	fflush(af.fp);
	cr_assert_eq(count_entries(dir), 1);
	atomic_file_abort(&af);
	cr_assert_eq(count_entries(dir), 0, "abort left something behind");
	atomic_file_abort(&af); /* a second abort is harmless */
	cr_assert_eq(count_entries(dir), 0);
}

Test(atomic_file, open_in_missing_directory_fails_naming_path)
{
	struct atomic_file af;
	char path[PATH_MAX], err[512] = "";

	path_in_dir(path, "no_such_dir/out.csv");
	cr_assert_eq(atomic_file_open(&af, path, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, path), "message '%s' lacks the path", err);
	cr_assert_not_null(strstr(err, strerror(ENOENT)), "message: %s", err);
	cr_assert_null(af.fp);
	atomic_file_abort(&af); /* harmless after a failed open */
}

Test(atomic_file, open_on_directory_fails)
{
	struct atomic_file af;
	char err[512] = "";

	cr_assert_eq(atomic_file_open(&af, dir, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "directory"), "message: %s", err);
	cr_assert_eq(count_entries(dir), 0);
}

Test(atomic_file, commit_replaces_existing_file_only_at_commit)
{
	struct atomic_file af;
	char path[PATH_MAX], err[256];
	size_t len;
	char *got;

	path_in_dir(path, "results.csv");
	write_plain(path, "old content\n");
	cr_assert_eq(atomic_file_open(&af, path, err, sizeof(err)), 0, "%s", err);
	fputs("new content, longer than the old\n", af.fp);
	fflush(af.fp);
	got = read_whole(path, &len);
	cr_assert_str_eq(got, "old content\n", "old file touched before commit");
	free(got);
	cr_assert_eq(atomic_file_commit(&af, err, sizeof(err)), 0, "%s", err);
	got = read_whole(path, &len);
	cr_assert_str_eq(got, "new content, longer than the old\n");
	free(got);
	cr_assert_eq(count_entries(dir), 1);
}

Test(atomic_file, committed_file_mode_follows_umask)
{
	struct atomic_file af;
	char path[PATH_MAX], err[256];
	struct stat st;

	umask(022);
	path_in_dir(path, "mode.csv");
	cr_assert_eq(atomic_file_open(&af, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(atomic_file_commit(&af, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644, "mode %o, want 644 (as fopen)",
		     (unsigned)(st.st_mode & 0777));
}

Test(atomic_file, commit_reports_write_error_and_removes_temporary)
{
	struct atomic_file af;
	char path[PATH_MAX], err[512] = "";

	path_in_dir(path, "broken.csv");
	cr_assert_eq(atomic_file_open(&af, path, err, sizeof(err)), 0, "%s", err);
	/* Planted failure: the descriptor under the stream goes away. */
	close(fileno(af.fp));
	fputs("lost\n", af.fp);
	cr_assert_eq(atomic_file_commit(&af, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, path), "message: %s", err);
	cr_assert_not_null(strstr(err, "write error"), "message: %s", err);
	cr_assert_eq(count_entries(dir), 0, "temporary or file left behind");
}

Test(atomic_file, commit_reports_failed_rename_and_keeps_target)
{
	struct atomic_file af;
	char path[PATH_MAX], inner[PATH_MAX], err[512] = "";

	path_in_dir(path, "target");
	cr_assert_eq(atomic_file_open(&af, path, err, sizeof(err)), 0, "%s", err);
	fputs("data\n", af.fp);
	/* Someone makes the target a non-empty directory during the run. */
	cr_assert_eq(mkdir(path, 0700), 0);
	path_in_dir(inner, "target/keep");
	write_plain(inner, "x");
	cr_assert_eq(atomic_file_commit(&af, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "rename"), "message: %s", err);
	cr_assert_eq(count_entries(dir), 1, "temporary left behind");
	cr_assert_eq(access(inner, F_OK), 0, "target directory disturbed");
}

Test(atomic_file, path_writable_in_existing_directory_leaves_nothing)
{
	char path[PATH_MAX], err[256] = "";

	path_in_dir(path, "later.csv");
	cr_assert_eq(atomic_path_writable(path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(count_entries(dir), 0, "probe left behind");
}

Test(atomic_file, path_writable_relative_name_uses_current_directory)
{
	char err[256] = "";

	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(atomic_path_writable("later.csv", err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(count_entries("."), 0, "probe left behind");
}

Test(atomic_file, path_writable_missing_directory_fails)
{
	char path[PATH_MAX], err[512] = "";

	path_in_dir(path, "missing/later.csv");
	cr_assert_eq(atomic_path_writable(path, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, path), "message: %s", err);
	cr_assert_not_null(strstr(err, strerror(ENOENT)), "message: %s", err);
}

Test(atomic_file, path_writable_refuses_directory)
{
	char path[PATH_MAX], err[512] = "";

	cr_assert_eq(atomic_path_writable(dir, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "is a directory"), "message: %s", err);
	/* a name ending in '/' that names nothing: said so, not called a directory */
	path_in_dir(path, "sub/");
	cr_assert_eq(atomic_path_writable(path, err, sizeof(err)), -1);
	cr_expect_null(strstr(err, "is a directory"), "there is none: %s", err);
	cr_expect(strstr(err, "names a directory, not a file") && strstr(err, "there is no directory"),
		  "message: %s", err);
	cr_assert_eq(mkdir(path, 0777), 0);
	cr_assert_eq(atomic_path_writable(path, err, sizeof(err)), -1);
	cr_expect_not_null(strstr(err, "is a directory"), "now there is: %s", err);
	rmdir(path);
}

Test(atomic_file, path_writable_parent_is_a_file_fails)
{
	char file[PATH_MAX], path[PATH_MAX], err[512] = "";

	path_in_dir(file, "plain");
	write_plain(file, "x");
	path_in_dir(path, "plain/later.csv");
	cr_assert_eq(atomic_path_writable(path, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "not a directory"), "message: %s", err);
}

Test(atomic_file, path_writable_readonly_directory_fails)
{
	char sub[PATH_MAX], path[PATH_MAX], err[512] = "";

	if (geteuid() == 0) {
		remove_dir(); /* .fini does not run after a skip */
		cr_skip_test("running as root, which writes to read-only directories");
	}
	path_in_dir(sub, "ro");
	cr_assert_eq(mkdir(sub, 0500), 0);
	path_in_dir(path, "ro/later.csv");
	cr_assert_eq(atomic_path_writable(path, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, path), "message: %s", err);
	cr_assert_not_null(strstr(err, strerror(EACCES)), "message: %s", err);
}
