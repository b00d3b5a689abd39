/* interrupt.c - Ctrl-C or SIGTERM during a measurement: one line, and the rows already finished kept */
#define _GNU_SOURCE
#include "interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testhook.h"

static const int interrupt_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define INTERRUPT_NSIGS (sizeof interrupt_sigs / sizeof *interrupt_sigs)

static int interrupt_pipe[2] = { -1, -1 };
static volatile sig_atomic_t interrupt_arrived; /* the first signal, 0 before */
static pthread_mutex_t interrupt_mutex = PTHREAD_MUTEX_INITIALIZER;
static interrupt_keeper interrupt_fn;
static void *interrupt_ctx;
static char interrupt_doing[200];

const char *interrupt_signal_name(int sig)
{
	static char other[32];
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	}
	snprintf(other, sizeof other, "signal %d", sig);
	return other;
}

/* A signal within this many seconds of the first is the same request
 * delivered twice: timeout(1) signals the command and then its whole
 * process group, a terminal's Ctrl-C every process of the foreground
 * group, and in a process of many threads (OpenMP's, CUDA's) the two may
 * run their handlers on two threads at once instead of merging. */
#define INTERRUPT_REPEAT_S 1.0

/* Monotonic seconds (clock_gettime is async-signal-safe). */
static double interrupt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double interrupt_first_s; /* when the first signal came */

/* The handler: the first signal goes to the watcher; a later one, while
 * the first is being handled, ends the process at once; a repeat within
 * INTERRUPT_REPEAT_S of the first changes nothing. */
static void interrupt_on_signal(int sig)
{
	int saved = errno;
	if (interrupt_arrived) {
		if (interrupt_now() - interrupt_first_s < INTERRUPT_REPEAT_S) {
			errno = saved;
			return;
		}
		signal(sig, SIG_DFL);
		raise(sig);
	}
	interrupt_first_s = interrupt_now();
	interrupt_arrived = sig;
	unsigned char b = (unsigned char)sig;
	ssize_t w = write(interrupt_pipe[1], &b, 1);
	(void)w;
	errno = saved;
}

/* Ends the process by sig's default action (a parent then sees how). */
static void interrupt_die(int sig)
{
	fflush(stdout);
	fflush(stderr);
	signal(sig, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	kill(getpid(), sig);
	_exit(128 + sig);
}

static void *interrupt_watch(void *arg)
{
	(void)arg;
	unsigned char b;
	ssize_t r;
	do
		r = read(interrupt_pipe[0], &b, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		return NULL;
	int sig = b;
	pthread_mutex_lock(&interrupt_mutex); /* held until the end */
	char said[1024] = "nothing was written";
	if (interrupt_fn)
		interrupt_fn(interrupt_ctx, sig, said, sizeof said);
	fflush(stdout);
	fprintf(stderr, "harness: interrupted by %s%s%s: %s\n", interrupt_signal_name(sig),
		interrupt_doing[0] ? " during " : "", interrupt_doing, said);
	interrupt_die(sig);
	return NULL;
}

int interrupt_trap(void)
{
	static bool trapped;
	if (trapped)
		return 0;
	if (pipe2(interrupt_pipe, O_CLOEXEC) != 0)
		return -1;
	/* the watcher takes no signal of these: they go to the threads that
	 * run the handler, which cannot block on the lock the watcher holds */
	sigset_t set, old;
	sigemptyset(&set);
	for (size_t i = 0; i < INTERRUPT_NSIGS; i++)
		sigaddset(&set, interrupt_sigs[i]);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	pthread_t t;
	int rc = pthread_create(&t, NULL, interrupt_watch, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(interrupt_pipe[0]);
		close(interrupt_pipe[1]);
		return -1;
	}
	pthread_detach(t);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = interrupt_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART; /* the measurement's own calls go on */
	for (size_t i = 0; i < INTERRUPT_NSIGS; i++)
		sigaction(interrupt_sigs[i], &sa, NULL);
	trapped = true;
	return 0;
}

void interrupt_lock(void)
{
	pthread_mutex_lock(&interrupt_mutex);
}

void interrupt_unlock(void)
{
	pthread_mutex_unlock(&interrupt_mutex);
}

void interrupt_set_keeper(interrupt_keeper fn, void *ctx)
{
	interrupt_lock();
	interrupt_fn = fn;
	interrupt_ctx = ctx;
	interrupt_unlock();
}

void interrupt_set_doing(const char *what)
{
	interrupt_lock();
	snprintf(interrupt_doing, sizeof interrupt_doing, "%s", what ? what : "");
	interrupt_unlock();
}

void interrupt_row_kept(size_t *rows)
{
	interrupt_lock();
	(*rows)++;
	interrupt_unlock();
	interrupt_set_doing(NULL);
	interrupt_row_finished();
}

void interrupt_row_finished(void)
{
	static size_t finished;
	size_t rows = 0;
	int sig = testhook_interrupt(&rows);
	if (sig && ++finished == rows)
		kill(getpid(), sig);
}
