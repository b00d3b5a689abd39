/* ab_build.h - the base side of an A/B run: this harness built from another revision */
#ifndef HARNESS_AB_BUILD_H
#define HARNESS_AB_BUILD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* Results of the build steps. */
enum ab_build_status {
	AB_BUILD_OK = 0,
	AB_BUILD_FAILED = 2, /* bad input (no git, unknown revision, no tree) or a failed build */
	AB_BUILD_STOPPED = 3, /* a signal arrived; whatever was made for the build is gone */
};

/* The file in a base tree that names its commit (written by `make base-tree`). */
#define AB_TREE_COMMIT_FILE ".harness-commit"

/* Room for a path under the tree's root. */
#define AB_PATH_MAX (PATH_MAX + 128)

/* The base binary, and what it was built from. */
struct ab_base {
	char binary[AB_PATH_MAX];
	char commit[64];            /* the commit, or "unknown" */
	char what[AB_PATH_MAX + 96]; /* for messages: "REV (sha)", the tree, the file */
};

/* The root of the tree the running program belongs to (the folder above
 * its bin/), where build/ab/ keeps base builds. 0, or -1 with err. */
int ab_tree_root(char *root, size_t len, char *err, size_t errlen);

/*
 * The harness of revision rev of the git checkout at root: from the cache
 * build/ab/<commit>-<settings>/harness when it is there (and not rebuild),
 * else checked out in a temporary worktree build/ab/wt-<pid>, built with
 * this binary's make settings (sysinfo_make_settings) and GIT_COMMIT set,
 * copied into the cache, and the worktree removed, whatever happens. Runs
 * holding the cache entry's lock, so concurrent runs build it once. First
 * removes the worktrees build/ab/wt-<pid> whose run is dead (killed before
 * it could clean up); those of live runs stay. make's
 * output goes to build/ab/<commit>-<settings>.log, named on failure.
 */
enum ab_build_status ab_build_rev(const char *root, const char *rev, bool rebuild,
				  struct ab_base *out, char *err, size_t errlen);

/*
 * The harness of a plain source tree (no git needed: the machine may have
 * none): built in place with the same settings. commit is given, else read
 * from the tree's AB_TREE_COMMIT_FILE, else "unknown".
 */
enum ab_build_status ab_build_tree(const char *root, const char *dir, const char *commit,
				   struct ab_base *out, char *err, size_t errlen);

/* rm -rf path; harmless when it is not there. */
void ab_remove_tree(const char *path);

#endif /* HARNESS_AB_BUILD_H */
