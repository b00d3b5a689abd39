/* sph_row.c - what every sph subcommand asks of its options and rows: a variant selected, a column's memory, a row's phase times */
#define _GNU_SOURCE
#include "sph_row.h"

#include <math.h>
#include <stdio.h>

#include "../../reference/sph_scene.h"
#include "../core/sysinfo.h"

/* Whether SPH variant i is selected: by --variant (every one without it)
 * and by --filter. */
bool sph_wants(const struct sph_options *o, size_t i)
{
	return (!o->variant_given || o->selected[i]) && (!o->filter_given || o->filtered[i]);
}

int sph_run_check_memory(const struct sph_column *col, char *err, size_t errlen)
{
	char what[96];
	snprintf(what, sizeof what, "--column %s", col->name);
	return sysinfo_check_memory(what, sph_scene_particles(col->nx, col->ny, col->nz),
				    SPH_RUN_BYTES_PER_PARTICLE, "particles", err, errlen);
}

/* A row's build, density, force and integrate ms a step: its windows'
 * (or its flow's) phase times. */
void sph_row_phase_ms(const struct sph_row *row, double ms[4])
{
	const double per = row->ph_steps > 0 ? 1e3 / (double)row->ph_steps : NAN;
	const double s[4] = { row->ph.build_s, row->ph.density_s, row->ph.force_s,
			      row->ph.integrate_s };
	for (int k = 0; k < 4; k++)
		ms[k] = row->flow_to ? row->flow_phase_ms[k] : s[k] * per;
}
