/* calibrate.h - bin/harness calibrate: the between-run floors from separate runs of the same suites */
#ifndef HARNESS_CALIBRATE_H
#define HARNESS_CALIBRATE_H

#include <stddef.h>

#include "floors.h"

/*
 * One class of rows (floors.h) as separate runs found it: its pairs of
 * runs, the floor they give, and how the resolution with and without it
 * held their differences.
 */
struct calibrate_class {
	char suite[64];          /* its runs' file name ("sph-table.csv"); "" for every suite */
	char device_name[96], kind[16], device[8];
	int band;                /* floors_band */
	size_t pairs;            /* a row of two runs, each pair of runs once */
	double floor_pct;        /* NAN: too few pairs (FLOORS_MIN_PAIRS) */
	size_t within_noise;     /* pairs whose difference the rows' noise alone held */
	size_t within_floor;     /* ... that sqrt(noise^2 + floor^2) held */
	double resolution_median_pct, resolution_max_pct; /* sqrt(noise^2 + floor^2) */
	double difference_max_pct;
	size_t false_slower;     /* pairs SLOWER one way or the other at CALIBRATE_THRESHOLD_PCT */
};

#define CALIBRATE_THRESHOLD_PCT 2.0
#define CALIBRATE_MAX_CLASSES 64

struct calibrate_result {
	struct calibrate_class classes[CALIBRATE_MAX_CLASSES]; /* suite "" first, then per suite */
	size_t count;
	size_t files, groups;
};

/*
 * Joins the files (results CSVs of separate runs; files of one suite share
 * their file name, run-1/sph-table.csv, run-2/sph-table.csv) of each name
 * pair by pair, and measures every class over all suites and per suite.
 * Returns 0, or -1 with one line in err (an unreadable file, two of one
 * name of different kinds or devices, a name with one file only).
 */
int calibrate_files(const char *const *paths, size_t n, struct calibrate_result *out, char *err,
		    size_t errlen);

/* The subcommand: argv[0] is "calibrate". Returns the exit status. */
int calibrate_command(int argc, char **argv);

#endif
