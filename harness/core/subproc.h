/* subproc.h - child programs in their own process group, stopped when we are */
#ifndef HARNESS_SUBPROC_H
#define HARNESS_SUBPROC_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Installs handlers for SIGINT, SIGTERM and SIGHUP that record the signal
 * and pass SIGTERM on to the process group of the child running at the
 * time (each child gets a group of its own, so a compiler under make stops
 * too). The caller then notices subproc_stopped(), cleans up, and calls
 * subproc_die(). System calls are not restarted, so a blocking wait
 * returns (EINTR) when a signal arrives.
 */
void subproc_trap_signals(void);

/* The signal that arrived since subproc_trap_signals, or 0. */
int subproc_stopped(void);

/* Ends the process by the recorded signal with its default action (so a
 * parent sees how it ended); exits with 1 when none was recorded. */
void subproc_die(void);

struct subproc_opts {
	const char *const *argv;  /* argv[0] is looked up in PATH; NULL-terminated */
	const char *out_path;     /* stdout and stderr to this file (created, truncated) */
	bool quiet;               /* else: stdout to /dev/null, stderr inherited */
	const char *const *unset_prefix; /* environment variables starting so are dropped */
	const char *const *unset; /* environment variables dropped */
	const char *const *set;   /* "NAME=value" entries put in the environment */
	bool cleanup;             /* runs even after a stop, and is not stopped by one */
};

/*
 * Runs a child with stdin from /dev/null and waits for it. Returns its
 * exit status (0..255), 128 + the signal when a signal ended it, or -1
 * with one line in err when it could not be started (no such program, no
 * fork, output file not writable) or, unless o->cleanup, when a stop
 * signal had already arrived. When one arrives while it runs, the child's
 * group is sent SIGTERM and the call returns once the child is gone.
 */
int subproc_run(const struct subproc_opts *o, char *err, size_t errlen);

#endif /* HARNESS_SUBPROC_H */
