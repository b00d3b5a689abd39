/* subproc.c - child programs in their own process group, stopped when we are */
#define _GNU_SOURCE
#include "subproc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t subproc_signal;
static volatile pid_t subproc_child; /* the running child's group; 0 when none may be stopped */

static void subproc_on_signal(int sig)
{
	int saved = errno;
	if (!subproc_signal)
		subproc_signal = sig;
	if (subproc_child > 0)
		kill(-subproc_child, SIGTERM);
	errno = saved;
}

void subproc_trap_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = subproc_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: waits return EINTR */
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaction(sigs[i], &sa, NULL);
}

int subproc_stopped(void)
{
	return subproc_signal;
}

void subproc_die(void)
{
	int sig = subproc_signal;
	if (!sig)
		exit(1);
	signal(sig, SIG_DFL);
	raise(sig);
	exit(128 + sig);
}

/* Whether name=... starts with prefix, or is exactly the variable name. */
static bool subproc_env_matches(const char *entry, const char *name, bool prefix)
{
	size_t len = strlen(name);
	return strncmp(entry, name, len) == 0 && (prefix || entry[len] == '=');
}

/* In the child: the environment as o asks. Returns 0 or -1 (no memory). */
static int subproc_setup_env(const struct subproc_opts *o)
{
	extern char **environ;
	for (size_t i = 0; environ && environ[i];) {
		bool drop = false;
		for (size_t k = 0; o->unset_prefix && o->unset_prefix[k] && !drop; k++)
			drop = subproc_env_matches(environ[i], o->unset_prefix[k], true);
		for (size_t k = 0; o->unset && o->unset[k] && !drop; k++)
			drop = subproc_env_matches(environ[i], o->unset[k], false);
		if (!drop) {
			i++;
			continue;
		}
		char name[256];
		snprintf(name, sizeof name, "%.*s", (int)strcspn(environ[i], "="), environ[i]);
		unsetenv(name);
	}
	for (size_t k = 0; o->set && o->set[k]; k++)
		if (putenv((char *)o->set[k]) != 0)
			return -1;
	return 0;
}

/* In the child: own group, descriptors, environment, then exec. On
 * failure writes errno to report and exits 127. */
static void subproc_child_exec(const struct subproc_opts *o, int report)
{
	setpgid(0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	int in = open("/dev/null", O_RDONLY);
	int out = o->out_path ? open(o->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666)
			      : o->quiet ? open("/dev/null", O_WRONLY) : STDOUT_FILENO;
	if (in < 0 || out < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    (o->out_path && dup2(out, STDERR_FILENO) < 0) || subproc_setup_env(o) != 0) {
		int e = errno;
		(void)!write(report, &e, sizeof e);
		_exit(127);
	}
	execvp(o->argv[0], (char *const *)o->argv);
	int e = errno;
	(void)!write(report, &e, sizeof e);
	_exit(127);
}

/* Waits for pid, through signals; returns its status as subproc_run does. */
static int subproc_wait(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int subproc_run(const struct subproc_opts *o, char *err, size_t errlen)
{
	int report[2];
	if (subproc_signal && !o->cleanup) {
		snprintf(err, errlen, "stopped by signal %d before running %s", subproc_signal, o->argv[0]);
		return -1;
	}
	if (pipe2(report, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "cannot run %s: %s", o->argv[0], strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(report[0]);
		subproc_child_exec(o, report[1]);
	}
	close(report[1]);
	if (pid < 0) {
		snprintf(err, errlen, "cannot run %s: %s", o->argv[0], strerror(errno));
		close(report[0]);
		return -1;
	}
	setpgid(pid, pid); /* as the child does: whichever runs first */
	if (!o->cleanup) {
		subproc_child = pid;
		if (subproc_signal) /* arrived before the handler knew the child */
			kill(-pid, SIGTERM);
	}
	int e = 0;
	ssize_t got;
	while ((got = read(report[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(report[0]);
	int status = subproc_wait(pid);
	subproc_child = 0;
	if (got == (ssize_t)sizeof e) {
		snprintf(err, errlen, "cannot run %s%s%s: %s", o->argv[0], o->out_path ? " into " : "",
			 o->out_path ? o->out_path : "", strerror(e));
		return -1;
	}
	return status;
}
