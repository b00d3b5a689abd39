/* progress.h - what a long command has done and how long it has left, on stderr */
#ifndef HARNESS_PROGRESS_H
#define HARNESS_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Every command that can run longer than a few seconds (run, its suites,
 * sph run/check/physics/render, ab) plans its items first, each with a
 * predicted cost (predicted seconds) and a class (the variant, say), then
 * marks each item begun, partly done and done.
 *
 * The estimate comes from work done: each class's measured seconds over
 * the predicted cost of its items done gives its rate (a class with none
 * done yet takes the rate of all items done), which times the cost still
 * to do in the class is its time left; less what the item under way has
 * already spent. A wrong scale of the predictions cancels out, per class.
 * An item that reports parts and runs slower than its class is taken at
 * its own pace; one that reports none and outruns its estimate has an
 * unknown time left, and the line says so (and what is left after it)
 * instead of counting down to nothing. Before any work is done there is
 * no estimate.
 *
 * On a terminal the line is rewritten in place (\r) as items begin or
 * report parts, and every second between (progress_init's heartbeat), and
 * cleared at the end. Elsewhere (a CI log) a line is printed at most once
 * per interval (10 s), the first one interval after the start, also while
 * one long item reports nothing, and when any was, a last line says how
 * long it all took: a command done within the interval prints nothing.
 * The heartbeat is a thread that progress_finish stops; every call locks.
 */
#define PROGRESS_CLASSES 64

/* Off a terminal, the seconds between lines (0.1 to 3600; 10 when unset
 * or out of range): for a CI log that wants them more or less often. */
#define PROGRESS_INTERVAL_ENV "HARNESS_PROGRESS_INTERVAL"

struct progress {
	FILE *fp;		/* NULL: off (--quiet, or not rank 0) */
	bool tty;		/* rewrite one line in place */
	double (*now)(void);	/* the clock, seconds */
	double interval;	/* off a terminal: seconds between lines */
	char label[64];		/* "run", "suite", "sph physics" */
	size_t items, item;	/* planned; the one under way (0-based) */
	double total, done;	/* predicted cost: all planned, of the items done */
	double planned[PROGRESS_CLASSES], cost_done[PROGRESS_CLASSES], time_done[PROGRESS_CLASSES];
	int cls;		/* the class of the item under way */
	double current, frac;	/* the cost of the item under way, the part of it done */
	double start, began;	/* the clock when the first item began, when this one did */
	double last;		/* the clock at the last line */
	bool begun, printed;	/* an item has begun; a line was printed (on a
				 * terminal: is on screen) */
	char what[160];		/* the item under way */
	pthread_mutex_t lock;	/* the fields above, between the caller and the heartbeat */
	pthread_cond_t wake;	/* progress_finish stops the heartbeat at once */
	pthread_t beat;
	bool beating, stop;	/* the heartbeat runs; it is to stop */
	bool under_way;		/* between progress_begin and progress_end */
};

/* A progress on stderr, off when quiet: a line in place when stderr is a
 * terminal, else a line every 10 s ($HARNESS_PROGRESS_INTERVAL); the clock is timing_now; a heartbeat
 * thread shows the line while an item runs long (progress_finish must
 * follow, on every path). */
void progress_init(struct progress *p, const char *label, bool quiet);

/* The same with its stream, terminal or not, clock and interval given
 * (tests; fp NULL: off), and no heartbeat. */
void progress_init_with(struct progress *p, const char *label, FILE *fp, bool tty,
			double (*now)(void), double interval);

/* Starts the heartbeat of p (progress_init does; tests call it after
 * progress_init_with): every second of real time, the line when due by
 * p's clock while an item is under way. Nothing when p is off. */
void progress_heartbeat_start(struct progress *p);

/* Adds an item of predicted cost (> 0) and class cls (0 .. 63; others
 * count as 0) to the plan. */
void progress_plan(struct progress *p, double cost, int cls);

/* The next item begins; cost and cls as planned for it, what (printf
 * format) names it. Prints the line when due. */
void progress_begin(struct progress *p, double cost, int cls, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The item under way is frac (0 .. 1) done. Prints the line when due. */
void progress_part(struct progress *p, double frac);

/* The item under way is done. */
void progress_end(struct progress *p);

/* Clears the terminal line; off a terminal, says how long it all took. */
void progress_finish(struct progress *p);

/* Seconds left by the estimate above at clock time t, or a negative
 * number when there is none (no work done yet, or the item under way has
 * outrun its estimate with no part reported). */
double progress_eta(const struct progress *p, double t);

/* The line as it would be printed at clock time t (no \r, no newline). */
void progress_line(const struct progress *p, double t, char *out, size_t len);

#endif
