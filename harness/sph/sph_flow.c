/* sph_flow.c - the moments' states, made once per column, and the rate of the whole flow (sph_flow.h) */
#define _GNU_SOURCE
#include "sph_flow.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/atomic_file.h"
#include "../core/sysinfo.h"
#include "../core/timing.h"

int sph_flow_weights(const unsigned long *steps, size_t k, double *w)
{
	if (k < 2)
		return -1;
	for (size_t i = 1; i < k; i++)
		if (steps[i] <= steps[i - 1])
			return -1;
	for (size_t i = 0; i < k; i++) {
		const double lo = (double)steps[i > 0 ? i - 1 : i];
		const double hi = (double)steps[i + 1 < k ? i + 1 : i];
		w[i] = (hi - lo) / 2;
	}
	return 0;
}

void sph_flow_combine(const struct sph_flow_timing *m, const double *w, size_t k,
		      struct sph_flow_timing *out)
{
	double steps = 0, med = 0, lo = 0, hi = 0, var = 0, ph[4] = { 0 };
	for (size_t i = 0; i < k; i++) {
		steps += w[i];
		med += w[i] * m[i].median_s;
		lo += w[i] * m[i].min_s;
		hi += w[i] * m[i].max_s;
		const double spread = w[i] * m[i].median_s * m[i].noise_pct;
		var += spread * spread;
		for (int p = 0; p < 4; p++)
			ph[p] += w[i] * m[i].phase_ms[p];
	}
	memset(out, 0, sizeof *out);
	out->median_s = med / steps;
	out->min_s = lo / steps;
	out->max_s = hi / steps;
	out->noise_pct = sqrt(var) / med;
	for (int p = 0; p < 4; p++)
		out->phase_ms[p] = ph[p] / steps;
}

const struct sph_variant *sph_flow_producer(void)
{
	static const char *const order[] = { "sph-gpu-verlet", "sph-cpu-grid" };
	for (size_t o = 0; o < sizeof order / sizeof *order; o++)
		for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
			if (strcmp(sph_variants[i].name, order[o]) == 0 &&
			    sph_variant_available(&sph_variants[i], NULL))
				return &sph_variants[i];
	return NULL;
}

static int sph_flow_cmp(const void *a, const void *b)
{
	const unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return (x > y) - (x < y);
}

/* The kept file of moment i in dir. */
static void sph_flow_path(const struct sph_flow_states *fs, size_t i, const char *dir, char *out,
			  size_t len)
{
	const struct sph_state_meta *m = &fs->meta[i];
	snprintf(out, len, "%s/%s-seed%llu-step%lu-%s.sphstate", dir, m->col.name,
		 (unsigned long long)m->seed, m->step, m->producer);
}

/* Whether every moment of fs is kept in dir from this flow, producer and
 * build (a clean one: a tree with uncommitted changes may hold other
 * code under the same commit); their metas then replace fs's. */
static bool sph_flow_kept(struct sph_flow_states *fs, const char *dir)
{
	char path[SPH_FLOW_MAX][1024], err[512];
	struct sph_state_meta m[SPH_FLOW_MAX];
	if (sysinfo_git_dirty())
		return false;
	for (size_t i = 0; i < fs->k; i++) {
		sph_flow_path(fs, i, dir, path[i], sizeof path[i]);
		struct stat st;
		if (sph_state_read_meta(path[i], &m[i], err, sizeof err) != 0 ||
		    !sph_state_same_flow(&m[i], &fs->meta[i], true, NULL, 0) ||
		    stat(path[i], &st) != 0 || (size_t)st.st_size != sph_state_file_bytes(m[i].n))
			return false;
	}
	for (size_t i = 0; i < fs->k; i++) {
		fs->meta[i] = m[i];
		snprintf(fs->path[i], sizeof fs->path[i], "%s", path[i]);
	}
	return true;
}

/* Keeps moment i's state: in dir, or in a temporary file that vanishes
 * when closed. 0, or -1 with err. */
static int sph_flow_keep(struct sph_flow_states *fs, size_t i, const char *dir, const float *pos4,
			 const float *vel4, char *err, size_t errlen)
{
	if (dir) {
		sph_flow_path(fs, i, dir, fs->path[i], sizeof fs->path[i]);
		return sph_state_write(fs->path[i], &fs->meta[i], pos4, vel4, err, errlen);
	}
	const char *tmp = getenv("TMPDIR");
	char name[1024];
	snprintf(name, sizeof name, "%s/harness-sph-state-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	const int fd = mkstemp(name);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a temporary state file %s: %s", name,
			 strerror(errno));
		return -1;
	}
	unlink(name);
	fs->fp[i] = fdopen(fd, "w+b");
	if (!fs->fp[i]) {
		snprintf(err, errlen, "cannot open a temporary state file: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return sph_state_fwrite(fs->fp[i], "a temporary state file", &fs->meta[i], pos4, vel4, err,
				errlen);
}

/* Steps between two progress parts: whole batches of the GPU variants'
 * captured steps (16). */
#define SPH_FLOW_CHUNK 64

int sph_flow_produce(struct sph_flow_states *fs, const struct sph_variant *producer,
		     const struct sph_column *col, uint64_t seed, const struct sph_scene *sc,
		     const unsigned long *steps, size_t k, const char *dir, struct progress *pg,
		     char *err, size_t errlen)
{
	memset(fs, 0, sizeof *fs);
	if (k == 0 || k > SPH_FLOW_MAX) {
		snprintf(err, errlen, "1 to %d moments of the flow, not %zu", SPH_FLOW_MAX, k);
		return -1;
	}
	fs->producer = producer;
	memcpy(fs->step, steps, k * sizeof *steps);
	qsort(fs->step, k, sizeof *fs->step, sph_flow_cmp);
	for (size_t i = 0; i < k; i++)
		if (fs->k == 0 || fs->step[i] != fs->step[fs->k - 1])
			fs->step[fs->k++] = fs->step[i];
	for (size_t i = 0; i < fs->k; i++)
		sph_state_meta_of(&fs->meta[i], col, seed, sc, fs->step[i], producer->name);
	if (dir && sph_flow_kept(fs, dir)) {
		fs->reused = true;
		return 0;
	}
	if (dir && atomic_mkdir_p(dir) != 0) {
		snprintf(err, errlen, "--states %s: cannot create the folder", dir);
		return -1;
	}
	const struct sph_ops *ops = producer->ops;
	const struct sph_input in = { sc->n, sc->pos4, sc->vel4, sc->nb, sc->bnd4 };
	float *pos4 = malloc(4 * (sc->n ? sc->n : 1) * sizeof(float));
	float *vel4 = malloc(4 * (sc->n ? sc->n : 1) * sizeof(float));
	void *ctx = NULL;
	int rc = -1;
	const double t0 = timing_now();
	if (!pos4 || !vel4) {
		snprintf(err, errlen, "out of memory for %zu particles", sc->n);
		goto out;
	}
	if (ops->create(&ctx, &in, &sc->p, err, errlen) != 0)
		goto out;
	unsigned long done = 0;
	const unsigned long last = fs->step[fs->k - 1];
	for (size_t i = 0; i < fs->k; i++) {
		while (done < fs->step[i]) {
			struct sph_phase_times ignored = { 0 };
			const unsigned long left = fs->step[i] - done;
			const int chunk = left < SPH_FLOW_CHUNK ? (int)left : SPH_FLOW_CHUNK;
			if (ops->steps(ctx, chunk, &ignored) != 0) {
				snprintf(err, errlen, "%s, making the flow's states, failed at step %lu: %s",
					 producer->name, done, ops->error(ctx));
				goto out;
			}
			done += (unsigned long)chunk;
			if (pg)
				progress_part(pg, (double)done / (double)last);
		}
		struct sph_counts c;
		if (ops->read(ctx, pos4, vel4, NULL, NULL) != 0) {
			snprintf(err, errlen, "%s: %s", producer->name, ops->error(ctx));
			goto out;
		}
		ops->counts(ctx, &c);
		fs->meta[i].clamps = c.clamps;
		if (sph_flow_keep(fs, i, dir, pos4, vel4, err, errlen) != 0)
			goto out;
	}
	rc = 0;
	fs->seconds = timing_now() - t0;
out:
	if (ctx)
		ops->destroy(ctx);
	free(pos4);
	free(vel4);
	if (rc != 0)
		sph_flow_states_free(fs);
	return rc;
}

int sph_flow_load(const struct sph_flow_states *fs, unsigned long step, float *pos4, float *vel4,
		  struct sph_state_meta *m, char *err, size_t errlen)
{
	size_t i = 0;
	while (i < fs->k && fs->step[i] != step)
		i++;
	if (i == fs->k) {
		snprintf(err, errlen, "no state of the flow at step %lu", step);
		return -1;
	}
	const int rc = fs->fp[i] ? sph_state_fread(fs->fp[i], "a temporary state file", m, pos4,
						   vel4, fs->meta[i].n, err, errlen)
				 : sph_state_read(fs->path[i], m, pos4, vel4, fs->meta[i].n, err,
						  errlen);
	char why[64];
	if (rc == 0 && (!sph_state_same_flow(m, &fs->meta[i], true, why, sizeof why) ||
			m->payload_fnv != fs->meta[i].payload_fnv)) {
		snprintf(err, errlen, "the state at step %lu changed since it was made (%s)", step,
			 m->payload_fnv != fs->meta[i].payload_fnv ? "other particles" : why);
		return -1;
	}
	return rc;
}

void sph_flow_states_free(struct sph_flow_states *fs)
{
	for (size_t i = 0; i < SPH_FLOW_MAX; i++)
		if (fs->fp[i])
			fclose(fs->fp[i]);
	memset(fs, 0, sizeof *fs);
}
