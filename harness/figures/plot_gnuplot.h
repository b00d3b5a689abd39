/* plot_gnuplot.h - gnuplot found, run on a figure's script and its words read; the figures installed where they go */
#ifndef HARNESS_PLOT_GNUPLOT_H
#define HARNESS_PLOT_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>

/* The gnuplot on PATH, written to out; -1 when there is none. */
int plot_find_gnuplot(char *out, size_t outlen);

/* Runs gnuplot -e vars script, its messages (stdout and stderr) written to
 * the file log; returns its exit status, or -1 when it could not be started
 * or died of a signal. */
int plot_run_gnuplot(const char *gnuplot, const char *vars, const char *script,
		     const char *log);

/*
 * What gnuplot said in the file log, as one line: the last error (a line
 * that is neither a warning, nor the echoed command, nor its caret), or
 * with warn the first warning, "(+N more)" when there were others. Empty
 * when it said nothing of the kind.
 */
void plot_gnuplot_says(const char *log, bool warn, char *out, size_t outlen);

/* Appends name='value' (a gnuplot string, quotes doubled) to vars. */
void plot_var_string(char *vars, size_t len, const char *name, const char *value);

void plot_var_number(char *vars, size_t len, const char *name, double value);

/* Copies the file at from to the path to, atomically. */
int plot_install(const char *from, const char *to, char *err, size_t errlen);

/* Creates dir and its parents as needed. Returns 0, or -1 with err. */
int plot_mkdirs(const char *dir, char *err, size_t errlen);

/* Whether dir exists as a writable directory or could be made: its
 * nearest existing ancestor is a writable directory. 0, or -1 with err. */
int plot_out_usable(const char *dir, char *err, size_t errlen);

#endif /* HARNESS_PLOT_GNUPLOT_H */
