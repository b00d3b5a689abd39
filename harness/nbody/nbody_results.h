/* nbody_results.h - the N-body result row: its CSV columns, its part of the sidecar, its table on screen */
#ifndef HARNESS_NBODY_RESULTS_H
#define HARNESS_NBODY_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../variants/registry.h"
#include "../core/timing.h"
#include "../core/results.h"
#include "validate.h"

/* The chapter's count (Listing 31-1): 9 additions, 9 multiplications, one
 * square root and one division per interaction. */
#define RESULTS_FLOPS_PER_INTERACTION 20

/* One (variant, N, parameters, device) measurement. */
struct result_row {
	const struct variant *v;
	const char *device_name; /* CPU model or GPU name */
	size_t n;
	const char *ic;          /* "plummer", "cube", "twobody" or a file path */
	uint64_t seed;
	double eps;
	bool steps_mode;         /* timed whole leapfrog steps, not forces only */
	double dt;
	struct validation val;
	bool timed;              /* t holds a measurement (only when val.pass) */
	struct timing_result t;
	double clock_start_mhz;  /* GPU SM clock before and after timing (NVML); */
	double clock_end_mhz;    /* NAN when unknown (CPU rows, no NVML) */
	double ceiling;          /* interactions/s the device's arithmetic allows; NAN if unknown */
	/* Several ranks (the distributed variants; 1 and NAN/0 otherwise): */
	int ranks;               /* MPI ranks the row ran on */
	int gpus;                /* GPUs it used (0 on CPUs) */
	char rank_devices[200];  /* every rank's device, "NAME|NAME" ("" for one device) */
	double rank_time_min, rank_time_avg, rank_time_max; /* s per call across ranks (medians) */
	double comm_time;        /* s per exchange, the collective timed alone */
	double comm_bytes;       /* bytes one exchange delivers to every rank */
	double single_diff;      /* max |a - a_one_device| / sum_j |f_ij| over the checked bodies */
	double single_bound;     /* the bound it must stay within (validate_single_bound) */
	int grid_rows, grid_cols; /* dist-2d's rank grid (0 otherwise) */
	double rank_sent, rank_recv; /* bytes a rank's exchanges send and receive per evaluation */
};

/* A row whose SM clock fell by more than this fraction while it was timed
 * is flagged (clock_dropped = 1): its figure is not the chip's best. */
#define RESULTS_CLOCK_DROP 0.03

bool results_clock_dropped(const struct result_row *r);

/* Derived figures; NAN when the row is not timed. */
double results_comm_share(const struct result_row *r);  /* comm_time / time, % */
double results_algbw(const struct result_row *r);       /* GB/s, as nccl-tests */
double results_busbw(const struct result_row *r);       /* rank_sent / comm_time */
double results_interactions_per_s(const struct result_row *r);
double results_gflops(const struct result_row *r);
double results_steps_per_s(const struct result_row *r); /* NAN unless steps_mode */

/* Column names (units in their suffixes) and their count. */
extern const char *const results_columns[];
extern const size_t results_column_count;

/* Formats every column of r into cells[results_column_count][RESULTS_CELL];
 * untimed rows leave the timing cells empty. */
void results_format(const struct result_row *r, char (*cells)[RESULTS_CELL]);

/* The N-body rows through results_write_table. */
int results_write(const char *csv_path, const struct result_row *rows, size_t nrows,
		  const struct results_meta *meta, char *err, size_t errlen);

/* Prints the human table (header, one line per row) to fp. */
void results_print_table(FILE *fp, const struct result_row *rows, size_t nrows);

#endif
