/* progress.c - what a long command has done and how long it has left, on stderr */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

void progress_init_with(struct progress *p, const char *label, FILE *fp, bool tty,
			double (*now)(void), double interval)
{
	memset(p, 0, sizeof *p);
	p->fp = fp;
	p->tty = tty;
	p->now = now;
	p->interval = interval;
	snprintf(p->label, sizeof p->label, "%s", label);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
}

static void progress_show(struct progress *p);

/* The heartbeat: every second, the line when due while an item is under
 * way (so a long item with no parts still shows time passing), until
 * progress_finish says stop. */
static void *progress_heartbeat(void *arg)
{
	struct progress *p = arg;
	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&p->wake, &p->lock, &until);
		if (!p->stop && p->under_way)
			progress_show(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void progress_heartbeat_start(struct progress *p)
{
	p->beating = p->fp && pthread_create(&p->beat, NULL, progress_heartbeat, p) == 0;
}

/* Seconds between lines off a terminal: $HARNESS_PROGRESS_INTERVAL where
 * it is a number from 0.1 to 3600, else 10. */
static double progress_interval(void)
{
	const char *v = getenv(PROGRESS_INTERVAL_ENV);
	char *end;
	const double s = v ? strtod(v, &end) : NAN;
	return v && *v && *end == '\0' && s >= 0.1 && s <= 3600 ? s : 10.0;
}

void progress_init(struct progress *p, const char *label, bool quiet)
{
	progress_init_with(p, label, quiet ? NULL : stderr, isatty(STDERR_FILENO), timing_now,
			   progress_interval());
	progress_heartbeat_start(p);
}

static int progress_class(int cls)
{
	return cls >= 0 && cls < PROGRESS_CLASSES ? cls : 0;
}

void progress_plan(struct progress *p, double cost, int cls)
{
	pthread_mutex_lock(&p->lock);
	p->items++;
	cost = cost > 0 ? cost : 0;
	p->total += cost;
	p->planned[progress_class(cls)] += cost;
	pthread_mutex_unlock(&p->lock);
}

/* The estimate at clock time t: seconds left for the items after the one
 * under way (*after) and for that one (*item; negative when it has run
 * past its estimate with no part reported, so that what it has left is
 * unknown). Returns false when there is no estimate yet (no work done). */
static bool progress_estimate(const struct progress *p, double t, double *after, double *item)
{
	double cost = 0, time = 0;
	for (int c = 0; c < PROGRESS_CLASSES; c++) {
		cost += p->cost_done[c];
		time += p->time_done[c];
	}
	double in_item = t - p->began;
	/* no item done: the part of the one under way is all there is */
	if (cost <= 0 && p->frac > 0 && p->current > 0 && in_item > 0) {
		cost = p->frac * p->current;
		time = in_item;
	}
	if (!p->begun || cost <= 0 || time <= 0)
		return false;
	double rate = time / cost;
	*after = *item = 0;
	for (int c = 0; c < PROGRESS_CLASSES; c++) {
		double r = p->cost_done[c] > 0 ? p->time_done[c] / p->cost_done[c] : rate;
		double todo = p->planned[c] - p->cost_done[c];
		if (c == p->cls && p->current > 0 && p->under_way) {
			/* the item under way: what its class's rate leaves of it,
			 * or where it reports parts and runs slower than its
			 * class, what its own pace does */
			if (p->frac > 0) {
				double own = in_item * (1 - p->frac) / p->frac;
				*item = fmax((1 - p->frac) * r * p->current, own);
			} else {
				double rest = r * p->current - in_item;
				*item = rest > 0 ? rest : -1;
			}
			todo -= p->current;
		}
		*after += todo > 0 ? r * todo : 0;
	}
	return true;
}

double progress_eta(const struct progress *p, double t)
{
	double after, item;
	if (!progress_estimate(p, t, &after, &item) || item < 0)
		return -1;
	return after + item;
}

/* "40 s", "3 min", "1.5 h" */
static void progress_duration(double s, char *out, size_t len)
{
	if (s < 100)
		snprintf(out, len, "%.0f s", s);
	else if (s < 6000)
		snprintf(out, len, "%.0f min", s / 60);
	else
		snprintf(out, len, "%.1f h", s / 3600);
}

void progress_line(const struct progress *p, double t, char *out, size_t len)
{
	char took[32] = "", left[160] = "", a[32], b[32];
	double after, item;
	progress_duration(p->begun ? t - p->start : 0, took, sizeof took);
	if (progress_estimate(p, t, &after, &item)) {
		if (item >= 0) {
			progress_duration(after + item, a, sizeof a);
			snprintf(left, sizeof left, ", ~%s left", a);
		} else {
			/* the item has outrun its estimate: say so, never "~0 s left" */
			progress_duration(t - p->began, a, sizeof a);
			progress_duration(after, b, sizeof b);
			snprintf(left, sizeof left, ", this one %s in, past its estimate%s%s%s", a,
				 after > 0 ? "; ~" : "", after > 0 ? b : "", after > 0 ? " left after it" : "");
		}
	}
	double pct = p->total > 0 ? 100.0 * (p->done + p->frac * p->current) / p->total : 0;
	snprintf(out, len, "harness: %s: [%zu/%zu] %s: %.0f%% done in %s%s", p->label,
		 p->item + 1 > p->items ? p->items : p->item + 1, p->items, p->what, pct, took, left);
}

/* Prints the line when due: always on a terminal, else once per interval
 * (from the first item's start: a command done sooner says nothing). */
static void progress_show(struct progress *p)
{
	if (!p->fp)
		return;
	double t = p->now();
	if (!p->tty && t - (p->printed ? p->last : p->start) < p->interval)
		return;
	char line[400];
	progress_line(p, t, line, sizeof line);
	if (p->tty) {
		fprintf(p->fp, "\r\033[K%s", line);
	} else {
		fprintf(p->fp, "%s\n", line);
	}
	fflush(p->fp);
	p->last = t;
	p->printed = true;
}

void progress_begin(struct progress *p, double cost, int cls, const char *fmt, ...)
{
	pthread_mutex_lock(&p->lock);
	p->under_way = true;
	p->began = p->now();
	if (!p->begun) {
		p->begun = true;
		p->start = p->began;
	}
	p->current = cost > 0 ? cost : 0;
	p->cls = progress_class(cls);
	p->frac = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->what, sizeof p->what, fmt, ap);
	va_end(ap);
	progress_show(p);
	pthread_mutex_unlock(&p->lock);
}

void progress_part(struct progress *p, double frac)
{
	pthread_mutex_lock(&p->lock);
	p->frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
	progress_show(p);
	pthread_mutex_unlock(&p->lock);
}

void progress_end(struct progress *p)
{
	pthread_mutex_lock(&p->lock);
	p->done += p->current;
	p->cost_done[p->cls] += p->current;
	p->time_done[p->cls] += p->now() - p->began;
	p->current = p->frac = 0;
	p->item++;
	p->under_way = false;
	pthread_mutex_unlock(&p->lock);
}

void progress_finish(struct progress *p)
{
	if (p->beating) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->beat, NULL);
		p->beating = false;
	}
	if (!p->fp || !p->printed)
		return;
	if (p->tty) {
		fprintf(p->fp, "\r\033[K");
	} else {
		char took[32];
		progress_duration(p->now() - p->start, took, sizeof took);
		fprintf(p->fp, "harness: %s: %zu of %zu done in %s\n", p->label, p->item, p->items, took);
	}
	fflush(p->fp);
	p->printed = false;
}
