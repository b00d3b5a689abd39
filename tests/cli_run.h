/* cli_run.h - running bin/harness from a test: exit status and stderr */
#ifndef TESTS_CLI_RUN_H
#define TESTS_CLI_RUN_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The program under test: $HARNESS_BIN (make test sets it), else bin/harness. */
static inline const char *cli_harness_bin(void)
{
	const char *b = getenv("HARNESS_BIN");
	return b ? b : "bin/harness";
}

/* Runs a shell command line with no stdin and the redirection redirect,
 * whose one %s names a temporary file; returns the exit status and puts
 * what went to that file into text. A crash (no normal exit) fails the
 * calling test. */
static inline int cli_run_capture(const char *cmdline, const char *redirect, char *text,
				  size_t len)
{
	char file[] = "/tmp/harness-test-XXXXXX", cmd[4096], redir[256];
	int fd = mkstemp(file);
	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(redir, sizeof redir, redirect, file);
	snprintf(cmd, sizeof cmd, "%s %s </dev/null", cmdline, redir);
	int st = system(cmd);
	FILE *fp = fopen(file, "r");
	size_t got = fp ? fread(text, 1, len - 1, fp) : 0;
	text[got] = '\0';
	if (fp)
		fclose(fp);
	unlink(file);
	cr_assert(WIFEXITED(st), "'%s' did not exit normally (crash?)", cmdline);
	return WEXITSTATUS(st);
}

/* Runs a shell command line with stdout discarded and no stdin; returns its
 * exit status and puts what it wrote to stderr into errtext. */
static inline int cli_run(const char *cmdline, char *errtext, size_t errlen)
{
	return cli_run_capture(cmdline, ">/dev/null 2>%s", errtext, errlen);
}

/* The same with stdout captured into out (stderr left alone). */
static inline int cli_run_stdout(const char *cmdline, char *out, size_t outlen)
{
	return cli_run_capture(cmdline, ">%s", out, outlen);
}

/* Runs "bin/harness CMD ARGS" (cmd: "sph", "sph physics", ...); returns
 * the exit status and stderr in errtext. */
static inline int cli_run_cmd(const char *cmd, const char *args, char *errtext, size_t len)
{
	char line[2048];
	snprintf(line, sizeof line, "%s %s %s", cli_harness_bin(), cmd, args);
	return cli_run(line, errtext, len);
}

/* "harness CMD ARGS" must exit 2 with one line on stderr, starting
 * "harness: CMD: " and mentioning mention. */
static inline void cli_expect_usage(const char *cmd, const char *args, const char *mention)
{
	char e[4096], prefix[128];
	const int rc = cli_run_cmd(cmd, args, e, sizeof e);
	snprintf(prefix, sizeof prefix, "harness: %s: ", cmd);
	cr_expect_eq(rc, 2, "'%s %s': exit %d: %s", cmd, args, rc, e);
	cr_expect(strncmp(e, prefix, strlen(prefix)) == 0, "'%s %s': %s", cmd, args, e);
	cr_expect(strstr(e, mention) != NULL, "'%s %s' lacks '%s': %s", cmd, args, mention, e);
	cr_expect(strchr(e, '\n') != NULL && strchr(e, '\n') == strrchr(e, '\n') &&
		  e[strlen(e) - 1] == '\n', "one line: %s", e);
}

/* Starts "env ENV harness ARGS" in the background (env: NAME=value words,
 * may be ""), stdout discarded, stderr into errfile, no stdin; returns
 * its pid (the program itself: the shell execs it). */
static inline pid_t cli_start(const char *env, const char *args, const char *errfile)
{
	char cmd[8400];
	snprintf(cmd, sizeof cmd, "exec env %s %s %s >/dev/null 2>%s </dev/null", env,
		 cli_harness_bin(), args, errfile);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

#endif
