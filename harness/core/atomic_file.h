/* atomic_file.h - output files that appear whole or not at all */
#ifndef ATOMIC_FILE_H
#define ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

/*
 * An output file being written. Everything goes to a temporary file in the
 * same directory as final_path ("<final_path>.tmp.<pid>.<n>"); commit
 * flushes it to disk and renames it over final_path, so a reader (or a
 * crash) sees either the old file, or no file, or the complete new one,
 * never a half-written one. Write through fp with ordinary stdio calls.
 */
struct atomic_file {
	FILE *fp;         /* the temporary file, open for writing */
	char *final_path; /* where the file appears on commit */
	char *tmp_path;   /* the temporary file's name */
};

/*
 * Starts writing the file that will appear at path. The temporary file is
 * created with mode 0666 less the umask, as fopen would create path itself.
 * Returns 0, or -1 with a one-line message naming the path and the reason
 * in err (af is then left empty, so atomic_file_abort on it is harmless).
 */
int atomic_file_open(struct atomic_file *af, const char *path,
		     char *err, size_t errlen);

/*
 * Finishes the file: fflush, a check of ferror (so any earlier failed write
 * is caught here), fsync, fclose, rename over final_path, and an fsync of
 * the directory so the rename itself is durable. Returns 0, or -1 with a
 * message naming the path; on failure the temporary file is removed and
 * final_path is left as it was. Either way af is left empty.
 */
int atomic_file_commit(struct atomic_file *af, char *err, size_t errlen);

/*
 * Gives up on the file: closes and removes the temporary file and leaves af
 * empty. Harmless on an empty af, so it may be called twice, after a commit
 * or after a failed open.
 */
void atomic_file_abort(struct atomic_file *af);

/*
 * Checks, before a long run, that a file could later be created at path:
 * path does not name a directory, its directory exists and a file can be
 * created there (a probe file is created and removed). Returns 0, or -1
 * with a one-line message naming the path and the reason.
 */
int atomic_path_writable(const char *path, char *err, size_t errlen);

/* The path of the file fmt names (printf-style) in directory dir, into
 * out: "dir/name", with no second '/' after a dir that ends in one.
 * Returns 0, or -1 when it does not fit in len bytes. */
int atomic_path_in(char *out, size_t len, const char *dir, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* mkdir -p: creates dir and its missing parents (mode 0777 less umask).
 * Returns 0 when dir exists afterwards as a directory, else -1; callers
 * that go on to write there get the precise error from atomic_file_open. */
int atomic_mkdir_p(const char *dir);

#endif /* ATOMIC_FILE_H */
