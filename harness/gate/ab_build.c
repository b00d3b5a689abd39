/* ab_build.c - the base side of an A/B run: this harness built from another revision */
#define _GNU_SOURCE
#include "ab_build.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/atomic_file.h"
#include "../core/subproc.h"
#include "../core/sysinfo.h"

/* What a make of another tree must not inherit from a make that runs us
 * (`make regress`): its jobserver and its command-line variables. */
static const char *const ab_make_unset[] = { "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES",
					     NULL };

int ab_tree_root(char *root, size_t len, char *err, size_t errlen)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		snprintf(err, errlen, "cannot find this program's path (/proc/self/exe): %s", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(exe, '/');
		if (!slash || slash == exe) {
			snprintf(err, errlen, "this program is not in a tree's bin/ folder");
			return -1;
		}
		*slash = '\0';
	}
	snprintf(root, len, "%s", exe);
	return 0;
}

static int ab_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* rm -rf path; harmless when it is not there. */
void ab_remove_tree(const char *path)
{
	nftw(path, ab_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Runs argv with its output into log; the exit status, or -1 with err. */
static int ab_run_logged(const char *const *argv, const char *log, const char *const *set,
			 bool cleanup, char *err, size_t errlen)
{
	struct subproc_opts o = { .argv = argv, .out_path = log, .unset = ab_make_unset, .set = set,
				  .cleanup = cleanup };
	return subproc_run(&o, err, errlen);
}

/* The first line of a small file into buf (newline dropped); 0 or -1. */
static int ab_first_line(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return -1;
	int rc = fgets(buf, (int)len, fp) ? 0 : -1;
	fclose(fp);
	buf[strcspn(buf, "\r\n")] = '\0';
	return rc;
}

/* Prints the last lines of a log to stderr, indented. */
static void ab_print_tail(const char *log, int lines)
{
	FILE *fp = fopen(log, "r");
	char line[512], ring[20][512];
	int n = 0;
	if (!fp)
		return;
	lines = lines > 20 ? 20 : lines;
	while (fgets(line, sizeof line, fp))
		snprintf(ring[n++ % lines], sizeof ring[0], "%s", line);
	fclose(fp);
	for (int i = n > lines ? n - lines : 0; i < n; i++)
		fprintf(stderr, "  | %s%s", ring[i % lines], strchr(ring[i % lines], '\n') ? "" : "\n");
}

#define AB_HASH_START 1469598103934665603ULL

/* FNV-1a: h continued over the bytes of s. */
static uint64_t ab_hash(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The make settings and the compilers' versions, hashed: the part of a
 * cache key that says how the binary was built. */
static uint32_t ab_settings_hash(void)
{
	uint64_t h = ab_hash(ab_hash(AB_HASH_START, sysinfo_compiler()), sysinfo_nvcc());
	const struct sysinfo_make_setting *s = sysinfo_make_settings();
	for (size_t i = 0; s[i].name; i++) {
		char buf[1024];
		snprintf(buf, sizeof buf, "%s=%s;%d\n", s[i].name, s[i].value, s[i].in_env);
		h = ab_hash(h, buf);
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* make -C dir bin/harness with this build's settings. Returns the exit
 * status of make, or -1 with err. */
static int ab_make(const char *dir, const char *commit, const char *log, char *err, size_t errlen)
{
	const struct sysinfo_make_setting *s = sysinfo_make_settings();
	size_t n = 0;
	while (s[n].name)
		n++;
	char (*defs)[1100] = calloc(n + 2, sizeof *defs);
	const char **argv = calloc(n + 10, sizeof *argv), **env = calloc(n + 1, sizeof *env);
	char jobs[32];
	int rc = -1;
	if (!defs || !argv || !env) {
		snprintf(err, errlen, "out of memory");
		goto out_free;
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(jobs, sizeof jobs, "-j%ld", cpus > 0 ? cpus : 1);
	size_t a = 0, e = 0;
	argv[a++] = "make";
	argv[a++] = "-C";
	argv[a++] = dir;
	argv[a++] = jobs;
	argv[a++] = "bin/harness";
	for (size_t i = 0; i < n; i++) {
		snprintf(defs[i], sizeof defs[i], "%s=%s", s[i].name, s[i].value);
		if (s[i].in_env)
			env[e++] = defs[i];
		else
			argv[a++] = defs[i];
	}
	snprintf(defs[n], sizeof defs[n], "GIT_COMMIT=%s", commit);
	argv[a++] = defs[n];
	argv[a++] = "GIT_DIRTY=0";
	rc = ab_run_logged(argv, log, env, false, err, errlen);
out_free:
	free(defs);
	free(argv);
	free(env);
	return rc;
}

/* Copies the file src to dst atomically (temporary file, rename), mode 0755. */
static int ab_copy_binary(const char *src, const char *dst, char *err, size_t errlen)
{
	struct atomic_file af;
	FILE *in = fopen(src, "rb");
	char buf[1 << 16];
	size_t got;
	if (!in) {
		snprintf(err, errlen, "cannot read %s: %s", src, strerror(errno));
		return -1;
	}
	if (atomic_file_open(&af, dst, err, errlen) != 0) {
		fclose(in);
		return -1;
	}
	while ((got = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, got, af.fp);
	int bad = ferror(in);
	fclose(in);
	if (bad || fchmod(fileno(af.fp), 0755) != 0) {
		snprintf(err, errlen, "cannot copy %s to %s", src, dst);
		atomic_file_abort(&af);
		return -1;
	}
	return atomic_file_commit(&af, err, errlen);
}

/* git -C root ARGS..., its first line of output into line (when given).
 * Returns git's exit status, or -1 with err. */
static int ab_git(const char *root, const char *const *args, char *line, size_t len, bool cleanup,
		  char *err, size_t errlen)
{
	char out[PATH_MAX];
	const char *argv[16] = { "git", "-C", root };
	size_t a = 3;
	for (size_t i = 0; args[i] && a < 15; i++)
		argv[a++] = args[i];
	argv[a] = NULL;
	snprintf(out, sizeof out, "%s/build/ab/git-%ld.out", root, (long)getpid());
	int rc = ab_run_logged(argv, out, NULL, cleanup, err, errlen);
	if (line && (rc != 0 || ab_first_line(out, line, len) != 0))
		line[0] = '\0';
	unlink(out);
	return rc;
}

/* Whether root is the top of a git work tree of its own: not a copy
 * without .git, not a folder inside some other checkout (whose commits
 * would be built instead), not a .git file pointing at a repository that
 * is not there. git missing counts as no. */
static bool ab_is_work_tree(const char *root, char *err, size_t errlen)
{
	char top[PATH_MAX] = "", real_root[PATH_MAX], real_top[PATH_MAX];
	const char *args[] = { "rev-parse", "--show-toplevel", NULL };
	if (ab_git(root, args, top, sizeof top, false, err, errlen) != 0 || !top[0])
		return false;
	return realpath(root, real_root) && realpath(top, real_top) &&
	       strcmp(real_root, real_top) == 0;
}

/* Removes the worktree at path from the checkout and from the disk. */
static void ab_worktree_remove(const char *root, const char *path)
{
	char err[256];
	const char *args[] = { "worktree", "remove", "--force", "--force", path, NULL }; /* even locked */
	if (ab_git(root, args, NULL, 0, true, err, sizeof err) != 0 || access(path, F_OK) == 0) {
		ab_remove_tree(path);
		ab_git(root, args, NULL, 0, true, err, sizeof err); /* its record, the folder gone */
	}
}

/* Removes the worktrees build/ab/wt-<pid> of runs that no longer live. */
static void ab_remove_stale_worktrees(const char *root)
{
	char list[PATH_MAX], prefix[PATH_MAX + 32], line[PATH_MAX + 16], err[256];
	const char *argv[] = { "git", "-C", root, "worktree", "list", "--porcelain", NULL };
	snprintf(list, sizeof list, "%s/build/ab/worktrees-%ld.out", root, (long)getpid());
	snprintf(prefix, sizeof prefix, "worktree %s/build/ab/wt-", root);
	if (ab_run_logged(argv, list, NULL, true, err, sizeof err) != 0) {
		unlink(list);
		return;
	}
	FILE *fp = fopen(list, "r");
	while (fp && fgets(line, sizeof line, fp)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, prefix, strlen(prefix)) != 0)
			continue;
		char *end;
		long pid = strtol(line + strlen(prefix), &end, 10);
		if (*end != '\0' || pid <= 0 || pid == (long)getpid() ||
		    !(kill((pid_t)pid, 0) != 0 && errno == ESRCH))
			continue;
		fprintf(stderr, "harness: ab: removing %s, left by a run that was killed\n", line + 9);
		ab_worktree_remove(root, line + 9);
	}
	if (fp)
		fclose(fp);
	unlink(list);
}

/* Takes the lock file path, waiting for another run that holds it.
 * Returns its descriptor, or -1 (err) when stopped or it cannot be made. */
static int ab_lock(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0666);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	while (flock(fd, LOCK_EX) != 0) {
		if (errno != EINTR || subproc_stopped()) {
			snprintf(err, errlen, "cannot lock %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* Checks out commit in a fresh worktree, builds it and copies the binary
 * to cached; the worktree is removed on every path out. */
static enum ab_build_status ab_build_in_worktree(const char *root, const char *rev,
						 const char *sha, const char *cached,
						 const char *log, char *err, size_t errlen)
{
	char wt[AB_PATH_MAX], built[AB_PATH_MAX + 16];
	enum ab_build_status st = AB_BUILD_FAILED;
	snprintf(wt, sizeof wt, "%s/build/ab/wt-%ld", root, (long)getpid());
	snprintf(built, sizeof built, "%s/bin/harness", wt);
	const char *add[] = { "worktree", "add", "--detach", wt, sha, NULL };
	fprintf(stderr, "harness: ab: building %s (%.12s) in %s\n", rev, sha, wt);
	int rc = ab_git(root, add, NULL, 0, false, err, errlen);
	if (rc == 0)
		rc = ab_make(wt, sha, log, err, errlen);
	if (subproc_stopped()) {
		st = AB_BUILD_STOPPED;
	} else if (rc > 0) {
		ab_print_tail(log, 15);
		snprintf(err, errlen, "building %s (%.12s) failed (exit %d); the log: %s", rev, sha, rc, log);
	} else if (rc == 0 && ab_copy_binary(built, cached, err, errlen) == 0) {
		st = AB_BUILD_OK;
	}
	ab_worktree_remove(root, wt);
	if (subproc_stopped())
		st = AB_BUILD_STOPPED;
	if (st != AB_BUILD_OK) {
		/* no half cache: the entry's folder goes (it holds nothing), and
		 * after a stop the log of a build that never ended too */
		char entry[AB_PATH_MAX];
		snprintf(entry, sizeof entry, "%s", cached);
		char *slash = strrchr(entry, '/');
		if (slash) {
			*slash = '\0';
			rmdir(entry);
		}
		if (st == AB_BUILD_STOPPED)
			unlink(log);
	}
	return st;
}

enum ab_build_status ab_build_rev(const char *root, const char *rev, bool rebuild,
				  struct ab_base *out, char *err, size_t errlen)
{
	char sha[64] = "", spec[512], dir[PATH_MAX + 80], lock[AB_PATH_MAX + 8], log[AB_PATH_MAX + 8];
	char abdir[PATH_MAX + 16];
	snprintf(abdir, sizeof abdir, "%s/build/ab", root);
	if (atomic_mkdir_p(abdir) != 0) {
		snprintf(err, errlen, "cannot create %s", abdir);
		return AB_BUILD_FAILED;
	}
	if (!ab_is_work_tree(root, err, errlen)) {
		if (!subproc_stopped())
			snprintf(err, errlen, "--base needs a git work tree and %s is none (a copy or an "
				 "unpacked archive?): use --base-tree DIR (see 'make base-tree') or --base-bin FILE",
				 root);
		return subproc_stopped() ? AB_BUILD_STOPPED : AB_BUILD_FAILED;
	}
	ab_remove_stale_worktrees(root);
	snprintf(spec, sizeof spec, "%s^{commit}", rev);
	const char *parse[] = { "rev-parse", "--verify", "--quiet", spec, NULL };
	if (rev[0] == '-' || ab_git(root, parse, sha, sizeof sha, false, err, errlen) != 0 || !sha[0]) {
		if (subproc_stopped())
			return AB_BUILD_STOPPED;
		snprintf(err, errlen, "--base '%s' is not a commit of %s (a branch, tag, hash or HEAD~N)",
			 rev, root);
		return AB_BUILD_FAILED;
	}
	snprintf(dir, sizeof dir, "%s/%.40s-%08x", abdir, sha, ab_settings_hash());
	snprintf(lock, sizeof lock, "%s.lock", dir);
	snprintf(log, sizeof log, "%s.log", dir);
	snprintf(out->binary, sizeof out->binary, "%s/harness", dir);
	snprintf(out->commit, sizeof out->commit, "%s", sha);
	snprintf(out->what, sizeof out->what, "%s (%.12s)", rev, sha);
	int fd = ab_lock(lock, err, errlen);
	if (fd < 0)
		return subproc_stopped() ? AB_BUILD_STOPPED : AB_BUILD_FAILED;
	enum ab_build_status st = AB_BUILD_OK;
	if (rebuild || access(out->binary, X_OK) != 0) {
		atomic_mkdir_p(dir);
		st = ab_build_in_worktree(root, rev, sha, out->binary, log, err, errlen);
	} else {
		fprintf(stderr, "harness: ab: %s built before: %s\n", out->what, out->binary);
	}
	close(fd);
	return st;
}

enum ab_build_status ab_build_tree(const char *root, const char *dir, const char *commit,
				   struct ab_base *out, char *err, size_t errlen)
{
	char path[AB_PATH_MAX], log[AB_PATH_MAX], line[64] = "";
	char real[PATH_MAX];
	snprintf(path, sizeof path, "%s/Makefile", dir);
	if (!realpath(dir, real) || access(path, R_OK) != 0) {
		snprintf(err, errlen, "--base-tree '%s' is not a source tree of the harness (no Makefile)", dir);
		return AB_BUILD_FAILED;
	}
	snprintf(path, sizeof path, "%s/%s", real, AB_TREE_COMMIT_FILE);
	if (!commit && ab_first_line(path, line, sizeof line) == 0 && line[0])
		commit = line;
	snprintf(out->commit, sizeof out->commit, "%s", commit ? commit : "unknown");
	snprintf(out->binary, sizeof out->binary, "%s/bin/harness", real);
	snprintf(out->what, sizeof out->what, "%s (%.12s)", real, out->commit);
	snprintf(log, sizeof log, "%s/build/ab", root);
	atomic_mkdir_p(log);
	snprintf(log, sizeof log, "%s/build/ab/tree-%016llx.log", root, /* one per tree */
		 (unsigned long long)ab_hash(AB_HASH_START, real));
	fprintf(stderr, "harness: ab: building %s\n", out->what);
	int rc = ab_make(real, out->commit, log, err, errlen);
	if (subproc_stopped())
		return AB_BUILD_STOPPED;
	if (rc != 0) {
		if (rc > 0) {
			ab_print_tail(log, 15);
			snprintf(err, errlen, "building --base-tree %s failed (exit %d); the log: %s", real, rc, log);
		}
		return AB_BUILD_FAILED;
	}
	unlink(log);
	if (access(out->binary, X_OK) != 0) {
		snprintf(err, errlen, "building --base-tree %s made no bin/harness", real);
		return AB_BUILD_FAILED;
	}
	return AB_BUILD_OK;
}
