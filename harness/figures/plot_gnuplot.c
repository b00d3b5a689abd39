/* plot_gnuplot.c - gnuplot found, run on a figure's script and its words read; the figures installed where they go */
#define _POSIX_C_SOURCE 200809L
#include "plot_gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/atomic_file.h"
#include "plot_curves.h"

/* ---- running gnuplot ---------------------------------------------------- */

/* The gnuplot on PATH, written to out; -1 when there is none. */
int plot_find_gnuplot(char *out, size_t outlen)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path && path[0] ? path : "/usr/bin:/bin");
	int rc = -1;
	for (char *dir = copy ? strtok(copy, ":") : NULL; dir && rc != 0; dir = strtok(NULL, ":")) {
		if (plot_path(out, outlen, dir, "gnuplot") && access(out, X_OK) == 0)
			rc = 0;
	}
	free(copy);
	return rc;
}

/* Runs gnuplot -e vars script, its messages (stdout and stderr) written to
 * the file log; returns its exit status, or -1 when it could not be started
 * or died of a signal. */
int plot_run_gnuplot(const char *gnuplot, const char *vars, const char *script,
		     const char *log)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		execl(gnuplot, "gnuplot", "-e", vars, script, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * What gnuplot said in the file log, as one line: the last error (a line
 * that is neither a warning, nor the echoed command, nor its caret), or
 * with warn the first warning, "(+N more)" when there were others. Empty
 * when it said nothing of the kind.
 */
void plot_gnuplot_says(const char *log, bool warn, char *out, size_t outlen)
{
	FILE *fp = fopen(log, "r");
	char line[1024];
	size_t more = 0;
	out[0] = '\0';
	while (fp && fgets(line, sizeof line, fp)) {
		line[strcspn(line, "\r\n")] = '\0';
		const char *text = line + strspn(line, " \t");
		bool is_warning = strstr(text, "warning:") != NULL;
		if (!text[0] || text[0] == '^' || is_warning != warn || line[0] == ' ')
			continue;
		if (warn && out[0])
			more++;
		else
			snprintf(out, outlen, "%s", text);
	}
	if (fp)
		fclose(fp);
	size_t n = strlen(out);
	if (more && n < outlen)
		snprintf(out + n, outlen - n, " (+%zu more)", more);
}

/* Appends name='value' (a gnuplot string, quotes doubled) to vars. */
void plot_var_string(char *vars, size_t len, const char *name, const char *value)
{
	size_t n = strlen(vars);
	n += snprintf(vars + n, n < len ? len - n : 0, "%s='", name);
	for (; *value && n + 3 < len; value++) {
		if (*value == '\'')
			vars[n++] = '\'';
		vars[n++] = *value;
	}
	snprintf(vars + n, n < len ? len - n : 0, "'; ");
}

void plot_var_number(char *vars, size_t len, const char *name, double value)
{
	size_t n = strlen(vars);
	snprintf(vars + n, n < len ? len - n : 0, "%s=%.9g; ", name, value);
}

/* Copies the file at from to the path to, atomically. */
int plot_install(const char *from, const char *to, char *err, size_t errlen)
{
	struct atomic_file af;
	FILE *in = fopen(from, "rb");
	char buf[65536];
	size_t n, total = 0;
	if (!in) {
		snprintf(err, errlen, "gnuplot wrote no %s", strrchr(from, '.'));
		return -1;
	}
	if (atomic_file_open(&af, to, err, errlen) != 0) {
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
		fwrite(buf, 1, n, af.fp);
		total += n;
	}
	fclose(in);
	if (total == 0) {
		atomic_file_abort(&af);
		snprintf(err, errlen, "gnuplot wrote an empty %s", strrchr(from, '.'));
		return -1;
	}
	return atomic_file_commit(&af, err, errlen);
}

/* Creates dir and its parents as needed. Returns 0, or -1 with err. */
int plot_mkdirs(const char *dir, char *err, size_t errlen)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s", dir);
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			snprintf(err, errlen, "cannot create directory %s: %s", path, strerror(errno));
			return -1;
		}
		*p = c;
		if (!c)
			break;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a directory", dir);
		return -1;
	}
	return 0;
}

/* Whether dir exists as a writable directory or could be made: its
 * nearest existing ancestor is a writable directory. 0, or -1 with err. */
int plot_out_usable(const char *dir, char *err, size_t errlen)
{
	char path[4096];
	struct stat st;
	if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
		snprintf(err, errlen, "output directory name too long");
		return -1;
	}
	while (stat(path, &st) != 0) {
		char *slash = strrchr(path, '/');
		if (!slash)
			strcpy(path, ".");
		else if (slash == path)
			path[1] = '\0';
		else
			*slash = '\0';
	}
	if (S_ISDIR(st.st_mode) && access(path, W_OK | X_OK) == 0)
		return 0;
	snprintf(err, errlen, "cannot write figures to %s: %s %s", dir, path,
		 S_ISDIR(st.st_mode) ? "is not writable" : "is not a directory");
	return -1;
}
