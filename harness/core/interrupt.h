/* interrupt.h - Ctrl-C or SIGTERM during a measurement: one line, and the rows already finished kept */
#ifndef HARNESS_INTERRUPT_H
#define HARNESS_INTERRUPT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A command that measures row after row (run, check, their suites, sph
 * run and check) keeps what it has finished when SIGINT, SIGTERM or SIGHUP
 * arrives. interrupt_trap installs handlers that only pass the signal to a
 * watcher thread through a pipe (nothing else is safe in a handler). The
 * watcher takes the lock, calls the keeper the command set (which writes
 * the finished rows, marked incomplete, and says in `said` what it did),
 * prints one line
 *
 *   harness: interrupted by SIGINT during auto N=65536: <said>
 *
 * and ends the process by that signal's default action (exit 130 for
 * SIGINT, 143 for SIGTERM, as a shell reports it), still holding the lock,
 * so that the measuring thread never gets to change what was written. A
 * second signal while the keeper writes ends the process at once, unless
 * it came within a second of the first: then it is the same request sent
 * twice (timeout(1) signals the command and then its process group) and
 * changes nothing.
 *
 * The command holds the lock (interrupt_lock) while it changes what the
 * keeper reads: marking a row finished, writing the complete file. The
 * keeper runs on the watcher thread, with the lock held: it may read the
 * finished rows, never the one under way.
 */

/* What the watcher calls: writes what ctx has finished; says in said (a
 * phrase, no newline: "wrote x.csv with the 3 finished rows of 9") what it
 * did. */
typedef void (*interrupt_keeper)(void *ctx, int sig, char *said, size_t saidlen);

/* Installs the handlers and starts the watcher; the second call does
 * nothing. Returns 0, or -1 when the pipe or the thread cannot be made
 * (the signals then keep their default action). */
int interrupt_trap(void);

/* The keeper and its context (NULL: nothing to keep; the line then says
 * nothing was written), and what is under way for the line ("auto
 * N=65536"; copied; NULL or "": nothing named). Each takes the lock. */
void interrupt_set_keeper(interrupt_keeper fn, void *ctx);
void interrupt_set_doing(const char *what);

void interrupt_lock(void);
void interrupt_unlock(void);

/* "SIGINT", "SIGTERM", "SIGHUP", else "signal N" (static storage). */
const char *interrupt_signal_name(int sig);

/* The row under way is finished: counts it in *rows under the lock (the
 * keeper then reads it), clears what is under way and calls
 * interrupt_row_finished. */
void interrupt_row_kept(size_t *rows);

/* A row of the command is finished (after the command has counted it,
 * outside the lock). For the test hook (testhook.h:
 * HARNESS_TEST_INTERRUPT=ROWS:SIGNAL): sends the process the hook's signal
 * when the rows finished reach its ROWS; nothing when the hooks are off. */
void interrupt_row_finished(void);

#endif /* HARNESS_INTERRUPT_H */
