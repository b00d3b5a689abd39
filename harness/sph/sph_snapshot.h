/* sph_snapshot.h - bin/harness sph snapshot: what its command line asks of it */
#ifndef HARNESS_SPH_SNAPSHOT_H
#define HARNESS_SPH_SNAPSHOT_H

#include "sph_row.h"

/* --format NAME: one of sph_snap_formats. CLI_OK, or CLI_USAGE naming them. */
int sph_parse_format(const char *s, struct sph_options *o, char *err, size_t errlen);

/* Runs one variant on one column and hands every particle at the steps of
 * --at to the writer of --format: the data of the collapse picture
 * (plots/sph-collapse.gp), or of ParaView. */
int sph_snapshot(const struct sph_options *o);

#endif /* HARNESS_SPH_SNAPSHOT_H */
