/* sph_state.c - the SPH state file: write, read, check (sph_state.h) */
#define _POSIX_C_SOURCE 200809L
#include "sph_state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/atomic_file.h"
#include "../core/results.h"
#include "../core/sysinfo.h"

#define SPH_STATE_MAGIC "SPHSTATE"
#define SPH_STATE_VERSION 1u
#define SPH_STATE_ORDER 0x01020304u

const char *sph_state_build(void)
{
	static char build[SPH_STATE_BUILD_LEN];
	if (!build[0])
		snprintf(build, sizeof build, "%.40s%s", sysinfo_git_commit(),
			 sysinfo_git_dirty() ? "+dirty" : "");
	return build;
}

uint64_t sph_state_payload_hash(const float *pos4, const float *vel4, size_t n)
{
	uint64_t h[2] = { results_fnv1a64(pos4, 4 * n * sizeof *pos4),
			  results_fnv1a64(vel4, 4 * n * sizeof *vel4) };
	return results_fnv1a64(h, sizeof h);
}

/* The scene's parameters, field by field (no padding hashed). */
static uint64_t sph_state_params_hash(const struct sph_params *p)
{
	const double f[] = { p->spacing,     p->rho0,	     p->mass,	     p->h,
			     p->k,	     p->mu,	     p->dt,	     p->gravity[0],
			     p->gravity[1],  p->gravity[2],  p->box_lo[0],   p->box_lo[1],
			     p->box_lo[2],   p->box_hi[0],   p->box_hi[1],   p->box_hi[2],
			     p->wall_restitution, p->wall_friction };
	return results_fnv1a64(f, sizeof f);
}

void sph_state_meta_of(struct sph_state_meta *m, const struct sph_column *col, uint64_t seed,
		       const struct sph_scene *sc, unsigned long step, const char *producer)
{
	memset(m, 0, sizeof *m);
	m->col = *col;
	m->seed = seed;
	m->n = sc->n;
	m->nb = sc->nb;
	m->step = step;
	m->dt = sc->p.dt;
	m->time_s = (double)step * sc->p.dt;
	m->params_fnv = sph_state_params_hash(&sc->p);
	m->walls_fnv = results_fnv1a64(sc->bnd4, 4 * sc->nb * sizeof *sc->bnd4);
	m->start_fnv = sph_state_payload_hash(sc->pos4, sc->vel4, sc->n);
	snprintf(m->producer, sizeof m->producer, "%s", producer);
	snprintf(m->build, sizeof m->build, "%s", sph_state_build());
}

/* The header, as bytes in the file's order. */
struct sph_state_buf {
	unsigned char b[512];
	size_t len;
};

static void put(struct sph_state_buf *w, const void *v, size_t len)
{
	memcpy(w->b + w->len, v, len);
	w->len += len;
}

static void put_u32(struct sph_state_buf *w, uint32_t v) { put(w, &v, sizeof v); }
static void put_i32(struct sph_state_buf *w, int v) { int32_t x = v; put(w, &x, sizeof x); }
static void put_u64(struct sph_state_buf *w, uint64_t v) { put(w, &v, sizeof v); }
static void put_f64(struct sph_state_buf *w, double v) { put(w, &v, sizeof v); }

/* A fixed field of len bytes: s, NUL-padded. */
static void put_str(struct sph_state_buf *w, const char *s, size_t len)
{
	char field[64] = { 0 };
	snprintf(field, len, "%s", s);
	put(w, field, len);
}

static void sph_state_header(struct sph_state_buf *w, const struct sph_state_meta *m)
{
	w->len = 0;
	put(w, SPH_STATE_MAGIC, 8);
	put_u32(w, SPH_STATE_VERSION);
	put_u32(w, SPH_STATE_ORDER);
	put_str(w, m->col.name, sizeof m->col.name);
	put_i32(w, m->col.nx);
	put_i32(w, m->col.ny);
	put_i32(w, m->col.nz);
	put_i32(w, m->col.layers);
	put_i32(w, m->col.lid);
	put_f64(w, m->col.tank);
	put_f64(w, m->col.jitter);
	put_f64(w, m->col.top);
	put_u64(w, m->seed);
	put_u64(w, m->n);
	put_u64(w, m->nb);
	put_u64(w, m->step);
	put_f64(w, m->time_s);
	put_f64(w, m->dt);
	put_u64(w, m->params_fnv);
	put_u64(w, m->walls_fnv);
	put_u64(w, m->start_fnv);
	put_str(w, m->producer, SPH_STATE_PRODUCER_LEN);
	put_str(w, m->build, SPH_STATE_BUILD_LEN);
	put_u64(w, m->clamps);
	put_u64(w, m->payload_fnv);
}

/* The header's length: every state file's first bytes. */
static size_t sph_state_header_len(void)
{
	static size_t len;
	if (!len) {
		struct sph_state_buf w;
		struct sph_state_meta m = { 0 };
		sph_state_header(&w, &m);
		len = w.len;
	}
	return len;
}

size_t sph_state_file_bytes(size_t n)
{
	return sph_state_header_len() + 8 * n * sizeof(float);
}

int sph_state_fwrite(FILE *fp, const char *path, struct sph_state_meta *m, const float *pos4,
		     const float *vel4, char *err, size_t errlen)
{
	struct sph_state_buf w;
	m->payload_fnv = sph_state_payload_hash(pos4, vel4, m->n);
	sph_state_header(&w, m);
	if (fwrite(w.b, 1, w.len, fp) != w.len ||
	    fwrite(pos4, sizeof *pos4, 4 * m->n, fp) != 4 * m->n ||
	    fwrite(vel4, sizeof *vel4, 4 * m->n, fp) != 4 * m->n || fflush(fp) != 0) {
		snprintf(err, errlen, "cannot write the state file %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int sph_state_write(const char *path, struct sph_state_meta *m, const float *pos4,
		    const float *vel4, char *err, size_t errlen)
{
	struct atomic_file af;
	if (atomic_file_open(&af, path, err, errlen) != 0)
		return -1;
	if (sph_state_fwrite(af.fp, path, m, pos4, vel4, err, errlen) != 0) {
		atomic_file_abort(&af);
		return -1;
	}
	return atomic_file_commit(&af, err, errlen);
}

/* Reading the header back, field by field. */
struct sph_state_in {
	const unsigned char *b;
	size_t at;
};

static void get(struct sph_state_in *r, void *v, size_t len)
{
	memcpy(v, r->b + r->at, len);
	r->at += len;
}

static uint32_t get_u32(struct sph_state_in *r) { uint32_t v; get(r, &v, sizeof v); return v; }
static int get_i32(struct sph_state_in *r) { int32_t v; get(r, &v, sizeof v); return v; }
static uint64_t get_u64(struct sph_state_in *r) { uint64_t v; get(r, &v, sizeof v); return v; }
static double get_f64(struct sph_state_in *r) { double v; get(r, &v, sizeof v); return v; }

static void get_str(struct sph_state_in *r, char *s, size_t len)
{
	get(r, s, len);
	s[len - 1] = '\0';
}

/* Reads the header of the state file fp (named path in messages) from
 * its start into m. 0, or -1 with one line in err. */
static int sph_state_header_read(FILE *fp, const char *path, struct sph_state_meta *m, char *err,
				 size_t errlen)
{
	unsigned char b[512];
	const size_t len = sph_state_header_len();
	rewind(fp);
	if (fread(b, 1, len, fp) != len || memcmp(b, SPH_STATE_MAGIC, 8) != 0) {
		snprintf(err, errlen, "%s is not an SPH state file (%s)", path, SPH_STATE_FORMAT);
		return -1;
	}
	struct sph_state_in r = { b, 8 };
	const uint32_t version = get_u32(&r), order = get_u32(&r);
	if (version != SPH_STATE_VERSION || order != SPH_STATE_ORDER) {
		snprintf(err, errlen,
			 "%s: a state file of version %u%s; this harness reads version %u (%s)",
			 path, (unsigned)version,
			 order != SPH_STATE_ORDER ? " written in another byte order" : "",
			 SPH_STATE_VERSION, SPH_STATE_FORMAT);
		return -1;
	}
	memset(m, 0, sizeof *m);
	get_str(&r, m->col.name, sizeof m->col.name);
	m->col.nx = get_i32(&r);
	m->col.ny = get_i32(&r);
	m->col.nz = get_i32(&r);
	m->col.layers = get_i32(&r);
	m->col.lid = get_i32(&r);
	m->col.tank = get_f64(&r);
	m->col.jitter = get_f64(&r);
	m->col.top = get_f64(&r);
	m->seed = get_u64(&r);
	m->n = get_u64(&r);
	m->nb = get_u64(&r);
	m->step = get_u64(&r);
	m->time_s = get_f64(&r);
	m->dt = get_f64(&r);
	m->params_fnv = get_u64(&r);
	m->walls_fnv = get_u64(&r);
	m->start_fnv = get_u64(&r);
	get_str(&r, m->producer, SPH_STATE_PRODUCER_LEN);
	get_str(&r, m->build, SPH_STATE_BUILD_LEN);
	m->clamps = get_u64(&r);
	m->payload_fnv = get_u64(&r);
	return 0;
}

/* Opens path for reading: the file, or NULL with one line in err. */
static FILE *sph_state_open(const char *path, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
	return fp;
}

int sph_state_read_meta(const char *path, struct sph_state_meta *m, char *err, size_t errlen)
{
	FILE *fp = sph_state_open(path, err, errlen);
	if (!fp)
		return -1;
	const int rc = sph_state_header_read(fp, path, m, err, errlen);
	fclose(fp);
	return rc;
}

/* sph_state_fread, and when more, what follows the particles is left
 * unread for the caller (a checkpoint's progress) instead of refused. */
static int sph_state_fread_at(FILE *fp, const char *path, struct sph_state_meta *m, float *pos4,
			      float *vel4, size_t want_n, bool more, char *err, size_t errlen)
{
	if (sph_state_header_read(fp, path, m, err, errlen) != 0)
		return -1;
	int rc = -1;
	if (m->n != want_n) {
		snprintf(err, errlen, "%s holds %zu fluid particles, not %zu", path, m->n, want_n);
	} else if (fread(pos4, sizeof *pos4, 4 * m->n, fp) != 4 * m->n ||
		   fread(vel4, sizeof *vel4, 4 * m->n, fp) != 4 * m->n ||
		   (!more && fgetc(fp) != EOF)) {
		snprintf(err, errlen, "%s is not the length its header gives (%zu particles): cut "
			 "short or grown", path, m->n);
	} else if (sph_state_payload_hash(pos4, vel4, m->n) != m->payload_fnv) {
		snprintf(err, errlen, "%s: its particles do not hash to the header's %016llx: the "
			 "file is damaged", path, (unsigned long long)m->payload_fnv);
	} else {
		rc = 0;
	}
	return rc;
}

int sph_state_fread(FILE *fp, const char *path, struct sph_state_meta *m, float *pos4,
		    float *vel4, size_t want_n, char *err, size_t errlen)
{
	return sph_state_fread_at(fp, path, m, pos4, vel4, want_n, false, err, errlen);
}

int sph_state_fread_more(FILE *fp, const char *path, struct sph_state_meta *m, float *pos4,
			 float *vel4, size_t want_n, char *err, size_t errlen)
{
	return sph_state_fread_at(fp, path, m, pos4, vel4, want_n, true, err, errlen);
}

int sph_state_read(const char *path, struct sph_state_meta *m, float *pos4, float *vel4,
		   size_t want_n, char *err, size_t errlen)
{
	FILE *fp = sph_state_open(path, err, errlen);
	if (!fp)
		return -1;
	const int rc = sph_state_fread(fp, path, m, pos4, vel4, want_n, err, errlen);
	fclose(fp);
	return rc;
}

bool sph_state_same_flow(const struct sph_state_meta *a, const struct sph_state_meta *b,
			 bool same_producer, char *why, size_t whylen)
{
	const char *what = NULL;
	if (strcmp(a->col.name, b->col.name) != 0 || a->col.nx != b->col.nx ||
	    a->col.ny != b->col.ny || a->col.nz != b->col.nz || a->col.tank != b->col.tank ||
	    a->col.jitter != b->col.jitter || a->col.layers != b->col.layers ||
	    a->col.lid != b->col.lid || a->col.top != b->col.top)
		what = "another column";
	else if (a->seed != b->seed)
		what = "another seed";
	else if (a->n != b->n || a->nb != b->nb)
		what = "other particle counts";
	else if (a->params_fnv != b->params_fnv || a->dt != b->dt)
		what = "other water parameters or time step";
	else if (a->walls_fnv != b->walls_fnv)
		what = "other walls";
	else if (a->start_fnv != b->start_fnv)
		what = "another start";
	else if (a->step != b->step)
		what = "another step";
	else if (same_producer && strcmp(a->producer, b->producer) != 0)
		what = "another producer";
	else if (same_producer && strcmp(a->build, b->build) != 0)
		what = "another build";
	if (what && why)
		snprintf(why, whylen, "%s", what);
	return what == NULL;
}
