/* test_progress.c - the progress of long commands: an estimate from work done, a line per interval off a terminal */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/core/progress.h"

/* The fake clock the progress reads. */
static double fake_t;

static double fake_now(void)
{
	return fake_t;
}

/* What a progress writes, in memory. */
struct log {
	char *buf;
	size_t len;
	FILE *fp;
};

/* Starts p (on a terminal or not, 10 s apart, the fake clock at 0) on a
 * new log. */
static void log_start(struct log *l, struct progress *p, const char *label, bool tty)
{
	memset(l, 0, sizeof *l);
	l->fp = open_memstream(&l->buf, &l->len);
	cr_assert_not_null(l->fp);
	fake_t = 0;
	progress_init_with(p, label, l->fp, tty, fake_now, 10);
}

/* What was written so far. */
static const char *log_text(struct log *l)
{
	fflush(l->fp);
	return l->buf;
}

static void log_free(struct log *l)
{
	fclose(l->fp);
	free(l->buf);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

Test(progress, no_estimate_before_any_work_is_done)
{
	struct progress p;
	char line[400];
	fake_t = 100;
	progress_init_with(&p, "run", NULL, false, fake_now, 10);
	progress_plan(&p, 1, 0);
	progress_plan(&p, 1, 0);
	cr_expect_lt(progress_eta(&p, fake_t), 0, "nothing has begun");
	progress_begin(&p, 1, 0, "first");
	fake_t = 130;
	cr_expect_lt(progress_eta(&p, fake_t), 0, "the first item is under way, no part of it done");
	progress_line(&p, fake_t, line, sizeof line);
	cr_expect(strstr(line, "left") == NULL, "%s", line);
	cr_expect(strstr(line, "[1/2] first") != NULL, "%s", line);
}

Test(progress, estimate_is_time_per_cost_done_times_cost_left)
{
	struct progress p;
	char line[400];
	fake_t = 0;
	progress_init_with(&p, "suite", NULL, false, fake_now, 10);
	progress_plan(&p, 1, 0);
	progress_plan(&p, 1, 0);
	progress_plan(&p, 2, 0);
	progress_begin(&p, 1, 0, "a");
	fake_t = 10;
	progress_end(&p);
	progress_begin(&p, 1, 0, "b");
	/* 10 s for a cost of 1: 3 more to do */
	cr_expect_float_eq(progress_eta(&p, fake_t), 30, 1e-9);
	fake_t = 14;
	cr_expect_float_eq(progress_eta(&p, fake_t), 26, 1e-9, "4 s of b spent already");
	progress_line(&p, fake_t, line, sizeof line);
	cr_expect(strstr(line, "~26 s left") != NULL, "%s", line);
	cr_expect(strstr(line, "[2/4]") == NULL && strstr(line, "[2/3] b") != NULL, "%s", line);
	progress_part(&p, 0.5);
	/* half of b done: b's other half (5 s) and c (20 s) */
	cr_expect_float_eq(progress_eta(&p, fake_t), 25, 1e-9);
}

Test(progress, each_class_runs_at_its_own_rate)
{
	/* a slow class (a CPU variant) and a fast one (a GPU variant) */
	struct progress p;
	fake_t = 0;
	progress_init_with(&p, "run", NULL, false, fake_now, 10);
	for (int k = 0; k < 4; k++)
		progress_plan(&p, 1, k % 2);
	progress_begin(&p, 1, 0, "slow");
	fake_t = 10;
	progress_end(&p);
	progress_begin(&p, 1, 1, "fast");
	fake_t = 11;
	progress_end(&p);
	progress_begin(&p, 1, 0, "slow");
	cr_expect_float_eq(progress_eta(&p, fake_t), 11, 1e-9, "10 s slow + 1 s fast left");
	/* a class with nothing done takes the rate of all the work done */
	struct progress q;
	fake_t = 0;
	progress_init_with(&q, "run", NULL, false, fake_now, 10);
	progress_plan(&q, 2, 0);
	progress_plan(&q, 3, 5);
	progress_begin(&q, 2, 0, "x");
	fake_t = 4;
	progress_end(&q);
	progress_begin(&q, 3, 5, "y");
	cr_expect_float_eq(progress_eta(&q, fake_t), 6, 1e-9);
}

Test(progress, part_of_the_first_item_gives_an_estimate)
{
	/* one long item (sph physics' dam break) reporting its steps */
	struct progress p;
	fake_t = 0;
	progress_init_with(&p, "sph physics", NULL, false, fake_now, 10);
	progress_plan(&p, 100, 0);
	progress_plan(&p, 100, 0);
	progress_begin(&p, 100, 0, "dam break");
	fake_t = 30;
	progress_part(&p, 0.25);
	cr_expect_float_eq(progress_eta(&p, fake_t), 90 + 120, 1e-9);
}

Test(progress, off_a_terminal_one_line_per_interval)
{
	struct log l;
	struct progress p;
	log_start(&l, &p, "sph physics", false);
	progress_plan(&p, 1, 0);
	progress_plan(&p, 1, 0);
	progress_begin(&p, 1, 0, "dam break");
	cr_expect_eq(count_lines(log_text(&l)), 0, "nothing in the first 10 s: %s", l.buf);
	for (int s = 1; s <= 35; s++) {
		fake_t = s;
		progress_part(&p, s / 40.0);
	}
	/* at 10, 20 and 30 s */
	cr_expect_eq(count_lines(log_text(&l)), 3, "%s", l.buf);
	cr_expect(strstr(l.buf, "[1/2] dam break: 12% done in 10 s, ~70 s left\n") != NULL, "%s",
		  l.buf);
	fake_t = 36;
	progress_end(&p);
	progress_begin(&p, 1, 0, "rest");
	fake_t = 41;
	progress_part(&p, 0.5);
	cr_expect_eq(count_lines(log_text(&l)), 4, "%s", l.buf);
	progress_end(&p);
	progress_finish(&p);
	cr_expect_eq(count_lines(log_text(&l)), 5, "%s", l.buf);
	cr_expect(strstr(l.buf, "harness: sph physics: 2 of 2 done in 41 s\n") != NULL, "%s", l.buf);
	cr_expect(strchr(l.buf, '\r') == NULL, "%s", l.buf);
	log_free(&l);
}

/* Lines written so far, read under p's lock (the heartbeat writes too). */
static size_t locked_lines(struct progress *p, struct log *l)
{
	pthread_mutex_lock(&p->lock);
	const size_t n = count_lines(log_text(l));
	pthread_mutex_unlock(&p->lock);
	return n;
}

/*
 * A long item that reports nothing still shows time passing off a
 * terminal: with the heartbeat, the line comes once the interval has gone
 * by on the command's clock, with no call from the command; not before;
 * and progress_finish stops the heartbeat.
 */
Test(progress, the_heartbeat_shows_a_long_item_between_calls, .timeout = 30)
{
	struct log l;
	struct progress p;
	log_start(&l, &p, "run", false);
	progress_plan(&p, 1, 0);
	progress_heartbeat_start(&p);
	cr_assert(p.beating);
	progress_begin(&p, 1, 0, "cpu-portable N=1048576");
	pthread_mutex_lock(&p.lock);
	fake_t = 9;
	pthread_mutex_unlock(&p.lock);
	usleep(1500000);	/* a beat or more within the interval */
	cr_expect_eq(locked_lines(&p, &l), 0, "a line before the interval: %s", l.buf);
	pthread_mutex_lock(&p.lock);
	fake_t = 15;
	pthread_mutex_unlock(&p.lock);
	size_t n = 0;
	for (int k = 0; k < 50 && n == 0; k++) {
		usleep(100000);
		n = locked_lines(&p, &l);
	}
	cr_expect_eq(n, 1, "%s", l.buf);
	cr_expect(l.buf && strstr(l.buf, "harness: run: [1/1] cpu-portable N=1048576: 0% done in 15 s\n"),
		  "%s", l.buf);
	progress_end(&p);
	progress_finish(&p);
	cr_expect(!p.beating, "the heartbeat still runs");
	log_free(&l);
}

Test(progress, a_short_command_prints_nothing_off_a_terminal)
{
	struct log l;
	struct progress p;
	log_start(&l, &p, "run", false);
	progress_plan(&p, 1, 0);
	progress_begin(&p, 1, 0, "x");
	fake_t = 9;
	progress_end(&p);
	progress_finish(&p);
	cr_expect_str_eq(log_text(&l), "");
	log_free(&l);
}

Test(progress, on_a_terminal_the_line_is_rewritten_and_cleared)
{
	struct log l;
	struct progress p;
	log_start(&l, &p, "run", true);
	progress_plan(&p, 1, 0);
	progress_plan(&p, 1, 0);
	progress_begin(&p, 1, 0, "cpu-simd N=1024");
	fake_t = 1;
	progress_end(&p);
	progress_begin(&p, 1, 0, "cpu-simd N=4096");
	progress_end(&p);
	progress_finish(&p);
	const char *t = log_text(&l);
	cr_expect(strstr(t, "\r\033[Kharness: run: [1/2] cpu-simd N=1024") != NULL, "%s", t);
	cr_expect(strstr(t, "\r\033[Kharness: run: [2/2] cpu-simd N=4096: 50% done in 1 s, ~1 s left") != NULL,
		  "%s", t);
	cr_expect(strcmp(t + strlen(t) - 4, "\r\033[K") == 0, "cleared at the end");
	cr_expect(strchr(t, '\n') == NULL, "%s", t);
	log_free(&l);
}

Test(progress, quiet_prints_nothing)
{
	struct progress p;
	progress_init(&p, "run", true);
	progress_plan(&p, 1, 0);
	progress_begin(&p, 1, 0, "x");
	progress_end(&p);
	progress_finish(&p);
	cr_expect_null(p.fp);
}

/* An item that outruns its estimate without reporting parts has an
 * unknown time left: the line says so and what is left after it, and
 * never counts down to "~0 s left". */
Test(progress, an_item_past_its_estimate_says_so)
{
	struct progress p;
	char line[400];
	fake_t = 0;
	progress_init_with(&p, "sph run", NULL, false, fake_now, 10);
	progress_plan(&p, 1, 0);
	progress_plan(&p, 4, 0);
	progress_plan(&p, 1, 0);
	progress_begin(&p, 1, 0, "small");
	fake_t = 10;
	progress_end(&p);
	progress_begin(&p, 4, 0, "large");
	fake_t = 10 + 39;
	cr_expect_float_eq(progress_eta(&p, fake_t), 1 + 10, 1e-9, "1 s of it and 10 s after");
	fake_t = 10 + 41;
	cr_expect_lt(progress_eta(&p, fake_t), 0, "past its 40 s: unknown");
	progress_line(&p, fake_t, line, sizeof line);
	cr_expect(strstr(line, "this one 41 s in, past its estimate; ~10 s left after it"), "%s", line);
	cr_expect_null(strstr(line, "~0 s"), "%s", line);
	fake_t = 10 + 200;
	progress_line(&p, fake_t, line, sizeof line);
	cr_expect(strstr(line, "this one 3 min in, past its estimate"), "%s", line);
	/* a part reported: its own pace, 200 s for a quarter, 600 s more */
	progress_part(&p, 0.25);
	cr_expect_float_eq(progress_eta(&p, fake_t), 600 + 10, 1e-9);
	/* the last item: nothing after it */
	fake_t = 1000;
	progress_end(&p);
	progress_begin(&p, 1, 0, "last");
	fake_t = 1000 + 500;
	progress_line(&p, fake_t, line, sizeof line);
	cr_expect(strstr(line, "past its estimate") && !strstr(line, "after it"), "%s", line);
}
