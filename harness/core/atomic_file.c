/* atomic_file.c - output files that appear whole or not at all (temporary, fsync, rename) */
#define _POSIX_C_SOURCE 200809L

#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* How many names atomic_temp_create tries before giving up. */
#define ATOMIC_TEMP_TRIES 100

/*
 * Returns a malloc'd copy of the directory part of path ("." when path has
 * no slash, "/" for a file in the root), or NULL when out of memory.
 */
static char *atomic_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/*
 * Checks that path could name a file of its own: not empty, not ending in
 * a slash, not an existing directory. Returns 0, or -1 with a message.
 */
static int atomic_check_not_dir(const char *path, char *err, size_t errlen)
{
	struct stat st;
	size_t len = strlen(path);

	if (len == 0) {
		snprintf(err, errlen, "empty output file name");
		return -1;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory, not a file name", path);
		return -1;
	}
	if (path[len - 1] == '/') {
		snprintf(err, errlen, "%s: ends in '/', so it names a directory, not a file (and "
			 "there is no directory %.*s either)", path, (int)(len > 1 ? len - 1 : len), path);
		return -1;
	}
	return 0;
}

/*
 * Creates a new, empty temporary file next to final_path, with mode 0666
 * less the umask (mkstemp would give 0600, which would then stick to the
 * renamed result). O_EXCL makes the name ours alone; a name left by an
 * earlier process is skipped. Returns the open descriptor and the name in
 * *tmp_path (malloc'd), or -1 with a message naming final_path.
 */
static int atomic_temp_create(const char *final_path, char **tmp_path,
			      char *err, size_t errlen)
{
	static unsigned counter;
	size_t size = strlen(final_path) + 64;
	char *name = malloc(size);
	int fd = -1;

	if (!name) {
		snprintf(err, errlen, "%s: out of memory", final_path);
		return -1;
	}
	for (int try = 0; try < ATOMIC_TEMP_TRIES; try++) {
		snprintf(name, size, "%s.tmp.%ld.%u", final_path,
			 (long)getpid(), counter++);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a file next to %s: %s",
			 final_path, strerror(errno));
		free(name);
		return -1;
	}
	*tmp_path = name;
	return fd;
}

int atomic_file_open(struct atomic_file *af, const char *path,
		     char *err, size_t errlen)
{
	int fd;

	af->fp = NULL;
	af->tmp_path = NULL;
	af->final_path = NULL;
	if (atomic_check_not_dir(path, err, errlen) < 0)
		return -1;
	af->final_path = strdup(path);
	if (!af->final_path) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	fd = atomic_temp_create(path, &af->tmp_path, err, errlen);
	if (fd < 0)
		goto out_free_final;
	af->fp = fdopen(fd, "w");
	if (!af->fp) {
		snprintf(err, errlen, "%s: cannot open stream: %s", path,
			 strerror(errno));
		goto out_remove_temp;
	}
	return 0;

out_remove_temp:
	close(fd);
	unlink(af->tmp_path);
	free(af->tmp_path);
	af->tmp_path = NULL;
out_free_final:
	free(af->final_path);
	af->final_path = NULL;
	return -1;
}

/*
 * Makes a finished rename durable by syncing the directory that holds path.
 * Best effort: some file systems refuse fsync on a directory, and the data
 * itself is already safe by then.
 */
static void atomic_sync_dir(const char *path)
{
	char *dir = atomic_dir_of(path);
	int fd;

	if (!dir)
		return;
	fd = open(dir, O_RDONLY);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

int atomic_file_commit(struct atomic_file *af, char *err, size_t errlen)
{
	FILE *fp = af->fp;
	int rc = -1;

	af->fp = NULL;
	if (!fp) {
		snprintf(err, errlen, "%s: no file open to commit",
			 af->final_path ? af->final_path : "(none)");
		goto out_remove_temp;
	}
	/* fflush first: it sets errno; ferror catches a failure from earlier. */
	errno = 0;
	if (fflush(fp) != 0 || ferror(fp)) {
		snprintf(err, errlen, "%s: write error: %s", af->final_path,
			 errno ? strerror(errno) : "an earlier write failed");
		fclose(fp);
		goto out_remove_temp;
	}
	if (fsync(fileno(fp)) != 0) {
		snprintf(err, errlen, "%s: cannot sync to disk: %s",
			 af->final_path, strerror(errno));
		fclose(fp);
		goto out_remove_temp;
	}
	if (fclose(fp) != 0) {
		snprintf(err, errlen, "%s: cannot close: %s", af->final_path,
			 strerror(errno));
		goto out_remove_temp;
	}
	if (rename(af->tmp_path, af->final_path) != 0) {
		snprintf(err, errlen, "%s: cannot rename %s into place: %s",
			 af->final_path, af->tmp_path, strerror(errno));
		goto out_remove_temp;
	}
	atomic_sync_dir(af->final_path);
	rc = 0;
	goto out_forget;

out_remove_temp:
	if (af->tmp_path)
		unlink(af->tmp_path);
out_forget:
	free(af->tmp_path);
	free(af->final_path);
	af->tmp_path = NULL;
	af->final_path = NULL;
	return rc;
}

void atomic_file_abort(struct atomic_file *af)
{
	if (af->fp)
		fclose(af->fp);
	if (af->tmp_path)
		unlink(af->tmp_path);
	free(af->tmp_path);
	free(af->final_path);
	af->fp = NULL;
	af->tmp_path = NULL;
	af->final_path = NULL;
}

int atomic_path_writable(const char *path, char *err, size_t errlen)
{
	struct stat st;
	char *dir, *probe;
	int fd, rc = -1;

	if (atomic_check_not_dir(path, err, errlen) < 0)
		return -1;
	dir = atomic_dir_of(path);
	if (!dir) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	if (stat(dir, &st) != 0) {
		snprintf(err, errlen, "%s: directory %s: %s", path, dir,
			 strerror(errno));
		goto out_free_dir;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s is not a directory", path, dir);
		goto out_free_dir;
	}
	fd = atomic_temp_create(path, &probe, err, errlen);
	if (fd < 0)
		goto out_free_dir;
	close(fd);
	unlink(probe);
	free(probe);
	rc = 0;

out_free_dir:
	free(dir);
	return rc;
}

int atomic_path_in(char *out, size_t len, const char *dir, const char *fmt, ...)
{
	const size_t dlen = strlen(dir);
	int n = snprintf(out, len, "%s%s", dir, dlen > 0 && dir[dlen - 1] == '/' ? "" : "/");
	if (n < 0 || (size_t)n >= len)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(out + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return m >= 0 && (size_t)m < len - (size_t)n ? 0 : -1;
}

int atomic_mkdir_p(const char *dir)
{
	char path[4096];
	if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
		return -1;
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0777);
		*p = '/';
	}
	mkdir(path, 0777);
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}
