/* cli_run.h - running bin/harness from a test: exit status and stderr */
#ifndef TESTS_CLI_RUN_H
#define TESTS_CLI_RUN_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* The program under test: $HARNESS_BIN (make test sets it), else bin/harness. */
static inline const char *cli_harness_bin(void)
{
	const char *b = getenv("HARNESS_BIN");
	return b ? b : "bin/harness";
}

/* Runs a shell command line with stdout discarded and no stdin; returns its
 * exit status and puts what it wrote to stderr into errtext. A crash (no
 * normal exit) fails the calling test. */
static inline int cli_run(const char *cmdline, char *errtext, size_t errlen)
{
	char errfile[] = "/tmp/harness-test-err-XXXXXX", cmd[4096];
	int fd = mkstemp(errfile);
	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(cmd, sizeof cmd, "%s >/dev/null 2>%s </dev/null", cmdline, errfile);
	int st = system(cmd);
	FILE *fp = fopen(errfile, "r");
	size_t len = fp ? fread(errtext, 1, errlen - 1, fp) : 0;
	errtext[len] = '\0';
	if (fp)
		fclose(fp);
	unlink(errfile);
	cr_assert(WIFEXITED(st), "'%s' did not exit normally (crash?)", cmdline);
	return WEXITSTATUS(st);
}

#endif
