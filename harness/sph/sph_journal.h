/* sph_journal.h - the finished rows of an sph run kept as they finish, so that a run cut by a time limit goes on */
#ifndef HARNESS_SPH_JOURNAL_H
#define HARNESS_SPH_JOURNAL_H

#include <stddef.h>

#include "sph_row.h"

/*
 * A long suite (sph-large: 4.2 million particles in five variants and
 * five moments) may not fit one time limit. While it runs, its finished
 * rows are kept in OUT.rows beside its CSV (SPH_JOURNAL_FORMAT, rewritten
 * atomically after each row: the rows as this binary holds them, their
 * samples, the binary's hash and the run's arguments); `--resume` takes
 * them back in a later run of the same binary with the same arguments and
 * measures only the rows they lack. A complete CSV removes its journal.
 *
 *   "SPHROWS1", u64 binary_fnv, u64 args_len, args, u64 rows, then each
 *   row: char[32] variant, char[128] device, char[32] state_by, the
 *   struct, u64 samples and the samples, u64 repetitions and each one's
 *   struct, samples and its samples; u64 fnv of all before it.
 */
#define SPH_JOURNAL_FORMAT "sph-rows/1"

struct sph_journal {
	struct sph_row *rows;
	size_t n;
	char *strings; /* the rows' device names */
	char path[1024];
};

/* path's journal: OUT.rows. */
void sph_journal_path(const char *out, char *path, size_t len);

/* Writes the n rows and args to path atomically. 0, or -1 with err. */
int sph_journal_write(const char *path, const char *args, const struct sph_row *rows, size_t n,
		      char *err, size_t errlen);

/* Reads path into j, refusing (one line in err, -1) another binary's,
 * other arguments', or a damaged file; 1 when there is no file (j
 * empty); 0 when read. */
int sph_journal_read(const char *path, const char *args, struct sph_journal *j, char *err,
		     size_t errlen);

/* The moment's row of variant on column at warm_steps in j, or NULL. */
const struct sph_row *sph_journal_find(const struct sph_journal *j, const char *variant,
				       const char *column, int warm_steps);

/* A copy of src into dst that owns its samples (timing_result_free
 * frees them). 0, or -1 when memory ran out. */
int sph_journal_copy(const struct sph_row *src, struct sph_row *dst);

void sph_journal_free(struct sph_journal *j);

#endif
