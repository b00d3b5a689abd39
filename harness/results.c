/* results.c - result rows: CSV columns, metadata sidecar, table on screen */
#define _POSIX_C_SOURCE 200809L
#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/atomic_file.h"
#include "core/csv_table.h"
#include "core/gpu_device.h"
#include "core/json_in.h"
#include "core/json_out.h"
#include "core/skips.h"
#include "core/sysinfo.h"
#include "core/testhook.h"

const char *const results_columns[] = {
	"variant", "family", "precision", "device", "device_name", "n",
	"tile_p", "threads_q", "unroll", "bodies_k", "ic", "seed", "eps", "mode", "dt",
	"valid", "validated_bodies", "rel_l2_err", "max_norm_err", "tol_max_norm_err",
	"samples", "reps_per_sample", "time_min_s", "time_median_s", "time_max_s",
	"time_stddev_s", "noise_pct", "noise_met", "interactions_per_s",
	"flops_per_interaction", "gflop_per_s", "steps_per_s", "sm_clock_start_mhz",
	"sm_clock_end_mhz", "clock_dropped", "ceiling_interactions_per_s", "pct_of_ceiling",
	"ranks", "gpus", "rank_devices", "rank_time_min_s", "rank_time_avg_s", "rank_time_max_s",
	"comm_time_s", "comm_share_pct", "comm_algbw_gbps", "comm_busbw_gbps", "single_max_diff",
	"single_diff_bound", "grid", "rank_sent_bytes", "rank_recv_bytes",
};
/* The columns from "ranks" on, written for untimed rows too. */
#define RESULTS_RANK_COLUMNS 15
const size_t results_column_count = sizeof results_columns / sizeof results_columns[0];

/* Interactions in one timed call: N^2 as the chapter counts them (the
 * self-term included), per force evaluation or per whole step. */
static double results_interactions(const struct result_row *r)
{
	return (double)r->n * (double)r->n;
}

double results_interactions_per_s(const struct result_row *r)
{
	if (!r->timed || !(r->t.s.median > 0))
		return NAN;
	return results_interactions(r) / r->t.s.median;
}

double results_gflops(const struct result_row *r)
{
	return results_interactions_per_s(r) * RESULTS_FLOPS_PER_INTERACTION * 1e-9;
}

bool results_clock_dropped(const struct result_row *r)
{
	return r->clock_end_mhz < r->clock_start_mhz * (1.0 - RESULTS_CLOCK_DROP);
}

double results_comm_share(const struct result_row *r)
{
	if (!r->timed || !(r->t.s.median > 0))
		return NAN;
	return 100.0 * r->comm_time / r->t.s.median;
}

/* nccl-tests' all-gather: algbw = bytes / time, with bytes the whole
 * gathered buffer; busbw = algbw (P - 1) / P, which is what a rank sends
 * per second, and is taken as that for every exchange (dist-2d's too). */
double results_algbw(const struct result_row *r)
{
	return r->timed && r->comm_time > 0 ? r->comm_bytes / r->comm_time * 1e-9 : NAN;
}

double results_busbw(const struct result_row *r)
{
	return r->timed && r->comm_time > 0 ? r->rank_sent / r->comm_time * 1e-9 : NAN;
}

double results_steps_per_s(const struct result_row *r)
{
	if (!r->steps_mode || !r->timed || !(r->t.s.median > 0))
		return NAN;
	return 1.0 / r->t.s.median;
}

/* %.6g for measured figures; empty for NaN so a reader sees "no value". */
static void results_num(char *cell, double v)
{
	if (isnan(v))
		cell[0] = '\0';
	else
		snprintf(cell, 64, "%.6g", v);
}

void results_format(const struct result_row *r, char (*c)[RESULTS_CELL])
{
	const struct variant *v = r->v;
	size_t i = 0;
	snprintf(c[i++], 64, "%s", v->name);
	snprintf(c[i++], 64, "%s", v->family);
	snprintf(c[i++], 64, "%s", variant_precision_name(v->precision));
	snprintf(c[i++], 64, "%s", variant_device_name(v->device));
	snprintf(c[i++], 64, "%s", r->device_name);
	snprintf(c[i++], 64, "%zu", r->n);
	snprintf(c[i++], 64, "%d", v->tile_p);
	snprintf(c[i++], 64, "%d", v->threads_q);
	snprintf(c[i++], 64, "%d", v->unroll);
	snprintf(c[i++], 64, "%d", v->bodies_k);
	snprintf(c[i++], 64, "%s", r->ic);
	snprintf(c[i++], 64, "%llu", (unsigned long long)r->seed);
	snprintf(c[i++], 64, "%.9g", r->eps);
	snprintf(c[i++], 64, "%s", r->steps_mode ? "steps" : "forces");
	if (r->steps_mode)
		snprintf(c[i++], 64, "%.9g", r->dt);
	else
		c[i++][0] = '\0';
	snprintf(c[i++], 64, "%d", r->val.pass ? 1 : 0);
	snprintf(c[i++], 64, "%zu", r->val.checked);
	snprintf(c[i++], 64, "%.3e", r->val.rel_l2);
	snprintf(c[i++], 64, "%.3e", r->val.max_norm);
	snprintf(c[i++], 64, "%.3e", r->val.tol.max_norm);
	if (r->timed) {
		snprintf(c[i++], 64, "%zu", r->t.count);
		snprintf(c[i++], 64, "%d", r->t.reps_per_sample);
		results_num(c[i++], r->t.s.min);
		results_num(c[i++], r->t.s.median);
		results_num(c[i++], r->t.s.max);
		results_num(c[i++], r->t.s.stddev);
		results_num(c[i++], 100.0 * r->t.s.rel_stddev);
		snprintf(c[i++], 64, "%d", r->t.noise_met ? 1 : 0);
		results_num(c[i++], results_interactions_per_s(r));
		snprintf(c[i++], 64, "%d", RESULTS_FLOPS_PER_INTERACTION);
		results_num(c[i++], results_gflops(r));
		results_num(c[i++], results_steps_per_s(r));
		results_num(c[i++], r->clock_start_mhz);
		results_num(c[i++], r->clock_end_mhz);
		if (isnan(r->clock_start_mhz) || isnan(r->clock_end_mhz))
			c[i++][0] = '\0';
		else
			snprintf(c[i++], 64, "%d", results_clock_dropped(r) ? 1 : 0);
		results_num(c[i++], r->ceiling);
		results_num(c[i++], 100.0 * results_interactions_per_s(r) / r->ceiling);
	} else {
		while (i < results_column_count - RESULTS_RANK_COLUMNS)
			c[i++][0] = '\0';
	}
	snprintf(c[i++], 64, "%d", r->ranks);
	snprintf(c[i++], 64, "%d", r->gpus);
	snprintf(c[i++], RESULTS_CELL, "%s", r->rank_devices[0] ? r->rank_devices : r->device_name);
	results_num(c[i++], r->timed ? r->rank_time_min : NAN);
	results_num(c[i++], r->timed ? r->rank_time_avg : NAN);
	results_num(c[i++], r->timed ? r->rank_time_max : NAN);
	results_num(c[i++], r->timed ? r->comm_time : NAN);
	results_num(c[i++], results_comm_share(r));
	results_num(c[i++], results_algbw(r));
	results_num(c[i++], results_busbw(r));
	results_num(c[i++], r->single_diff);
	results_num(c[i++], r->single_bound);
	if (r->grid_rows > 0)
		snprintf(c[i++], 64, "%dx%d", r->grid_rows, r->grid_cols);
	else
		c[i++][0] = '\0';
	results_num(c[i++], r->rank_sent);
	results_num(c[i++], r->rank_recv);
}

char *results_sidecar_path(const char *csv_path)
{
	size_t len = strlen(csv_path);
	if (len > 4 && strcmp(csv_path + len - 4, ".csv") == 0)
		len -= 4;
	char *p = malloc(len + sizeof ".meta.json");
	if (p) {
		memcpy(p, csv_path, len);
		strcpy(p + len, ".meta.json");
	}
	return p;
}

static void results_json_build(struct json_out *j)
{
	json_key(j, "build");
	json_begin_object(j);
	json_kv_string(j, "compiler", sysinfo_compiler());
	json_kv_string(j, "cflags", sysinfo_cflags());
	size_t nk;
	const struct sysinfo_flags *kf = sysinfo_kernel_cflags(&nk);
	json_key(j, "kernel_cflags");
	json_begin_object(j);
	for (size_t i = 0; i < nk; i++)
		json_kv_string(j, kf[i].file, kf[i].flags);
	json_end_object(j);
	json_kv_bool(j, "cuda", gpu_built());
	json_kv_string(j, "nvcc", sysinfo_nvcc());
	json_kv_string(j, "nvcc_flags", sysinfo_nvcc_flags());
	json_kv_string(j, "git_commit", sysinfo_git_commit());
	json_kv_bool(j, "git_dirty", sysinfo_git_dirty());
	json_end_object(j);
}

static const struct results_cpu_facts *results_cpu;

void results_set_cpu_facts(const struct results_cpu_facts *facts)
{
	results_cpu = facts;
}

static void results_json_host(struct json_out *j)
{
	struct sysinfo_host h;
	sysinfo_host_read(&h);
	json_key(j, "host");
	json_begin_object(j);
	json_kv_string(j, "hostname", h.hostname);
	json_kv_string(j, "cpu_model", h.cpu_model);
	json_kv_int(j, "logical_cpus", h.logical_cpus);
	json_kv_string(j, "os", h.os);
	if (results_cpu) {
		json_kv_string(j, "cpu_simd_isa", results_cpu->simd_isa());
		json_kv_int(j, "cpu_simd_threads", results_cpu->simd_threads());
	}
	json_end_object(j);

	json_key(j, "gpus");
	json_begin_array(j);
	int count = gpu_device_count();
	for (int d = 0; d < count; d++) {
		struct gpu_device_info g;
		if (gpu_device_query(d, &g) != 0)
			continue;
		char cc[16];
		snprintf(cc, sizeof cc, "%d.%d", g.cc_major, g.cc_minor);
		json_begin_object(j);
		json_kv_int(j, "index", g.index);
		json_kv_string(j, "name", g.name);
		json_kv_string(j, "compute_capability", cc);
		json_kv_int(j, "sm_count", g.sm_count);
		json_kv_int(j, "sm_clock_khz", g.clock_khz);
		json_kv_int(j, "mem_clock_khz", g.mem_clock_khz);
		json_kv_int(j, "mem_bus_bits", g.mem_bus_bits);
		json_kv_int(j, "total_mem_bytes", (long long)g.total_mem);
		json_kv_int(j, "driver_version", g.driver_version);
		json_kv_int(j, "runtime_version", g.runtime_version);
		json_end_object(j);
	}
	json_end_array(j);
}

/* Every rank's host and device (one entry for a run of one process). */
static void results_json_ranks(struct json_out *j, const struct results_meta *meta)
{
	if (!meta->ranks)
		return;
	json_key(j, "ranks");
	json_begin_array(j);
	for (int r = 0; r < meta->nranks; r++) {
		const struct sysinfo_rank *f = &meta->ranks[r];
		json_begin_object(j);
		json_kv_int(j, "rank", r);
		json_kv_string(j, "host", f->host);
		json_kv_string(j, "cpu_model", f->cpu_model);
		if (f->gpu_name[0]) {
			json_kv_string(j, "gpu", f->gpu_name);
			json_kv_string(j, "gpu_pci_bus_id", f->gpu_bus);
		}
		json_end_object(j);
	}
	json_end_array(j);
}

static void results_json_rows(struct json_out *j, const void *rows_, size_t nrows)
{
	const struct result_row *rows = rows_;
	json_key(j, "samples");
	json_begin_array(j);
	for (size_t r = 0; r < nrows; r++)
		results_json_samples(j, rows[r].v->name, rows[r].n, &rows[r].t, rows[r].timed);
	json_end_array(j);
}

uint64_t results_fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The sidecar: who measured what, where, with which build; the problem's
 * own part comes from table->json. */
static void results_json(FILE *fp, const char *csv_path, const struct results_table *table,
			 const struct results_meta *meta, const struct results_stamp *stamp)
{
	struct json_out j;
	char now[32];
	sysinfo_utc_now(now, sizeof now);
	json_init(&j, fp);
	json_begin_object(&j);
	json_kv_string(&j, "schema", table->schema);
	json_kv_string(&j, "csv", csv_path);
	results_json_stamp(&j, stamp);
	json_kv_string(&j, "created_utc", now);
	json_key(&j, "argv");
	json_begin_array(&j);
	for (int i = 0; i < meta->argc; i++)
		json_string(&j, meta->argv[i]);
	json_end_array(&j);
	results_json_host(&j);
	results_json_ranks(&j, meta);
	results_json_build(&j);
	if (meta->timing) {
		json_key(&j, "timing");
		json_begin_object(&j);
		json_kv_double(&j, "min_time_s", meta->timing->min_time);
		json_kv_double(&j, "max_time_s", meta->timing->max_time);
		json_kv_double(&j, "max_noise_pct", meta->timing->max_noise);
		json_kv_double(&j, "sample_time_s", meta->timing->sample_time);
		json_kv_int(&j, "min_samples", (long long)meta->timing->min_samples);
		json_kv_string(&j, "noise_measure", "relative sample standard deviation");
		if (testhook_active(TESTHOOK_WORK))
			json_kv_string(&j, "test_hook_work", testhook_active(TESTHOOK_WORK));
		if (testhook_active(TESTHOOK_SLOWDOWN))
			json_kv_string(&j, "test_hook_slowdown", testhook_active(TESTHOOK_SLOWDOWN));
		json_end_object(&j);
	}
	if (meta->skipped)
		skips_json(&j, meta->skipped);
	if (table->json)
		table->json(&j, table->ctx);
	json_end_object(&j);
	json_finish(&j);
}

int (*results_fault_between_commits)(const char *csv_path);

/* The running state of a stamp: FNV-1a over the bytes, records ended
 * outside quotes. */
struct results_stamping {
	uint64_t h;
	size_t records, bytes;
	bool quoted;
};

static void results_stamping_add(struct results_stamping *s, const unsigned char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		s->h = (s->h ^ buf[i]) * 0x100000001b3ULL;
		s->quoted ^= buf[i] == '"';
		s->records += !s->quoted && buf[i] == '\n';
	}
	s->bytes += n;
}

/* The stamp of what was added: data rows are the records past the header. */
static struct results_stamp results_stamping_end(const struct results_stamping *s)
{
	struct results_stamp st = { s->h, s->records > 0 ? s->records - 1 : 0, s->bytes };
	return st;
}

void results_json_stamp(struct json_out *j, const struct results_stamp *st)
{
	char hex[20];
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)st->fnv1a64);
	json_kv_string(j, "csv_fnv1a64", hex);
	json_kv_int(j, "csv_rows", (long long)st->rows);
	json_kv_int(j, "csv_bytes", (long long)st->bytes);
}

int results_write_files(const char *csv_path, int (*write_csv)(FILE *fp, void *ctx),
			void (*write_sidecar)(FILE *fp, void *ctx, const struct results_stamp *stamp),
			void *ctx, char *err, size_t errlen)
{
	int rc = -1;
	struct atomic_file csv = { 0 }, side = { 0 };
	char *text = NULL, *side_path = results_sidecar_path(csv_path);
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!side_path || !mem) {
		snprintf(err, errlen, "out of memory writing %s", csv_path);
		if (mem)
			fclose(mem);
		goto out_free;
	}
	/* The CSV in memory first, so that its stamp can go into the sidecar. */
	if (write_csv(mem, ctx) != 0) {
		fclose(mem);
		snprintf(err, errlen, "cannot write %s", csv_path);
		goto out_free;
	}
	if (fclose(mem) != 0) {
		snprintf(err, errlen, "out of memory writing %s", csv_path);
		goto out_free;
	}
	struct results_stamping sg = { 0xcbf29ce484222325ULL, 0, 0, false };
	results_stamping_add(&sg, (const unsigned char *)text, len);
	const struct results_stamp stamp = results_stamping_end(&sg);
	if (atomic_file_open(&csv, csv_path, err, errlen) != 0)
		goto out_free;
	if (atomic_file_open(&side, side_path, err, errlen) != 0)
		goto out_abort;
	/* A short write sets the stream's error flag, which commit checks. */
	fwrite(text, 1, len, csv.fp);
	write_sidecar(side.fp, ctx, &stamp);

	/* Sidecar first (see results.h): a CSV never appears without its stamp. */
	if (atomic_file_commit(&side, err, errlen) != 0)
		goto out_abort;
	if (results_fault_between_commits && results_fault_between_commits(csv_path) != 0) {
		snprintf(err, errlen, "cannot write %s: failed after its sidecar %s (a test fault)",
			 csv_path, side_path);
		goto out_abort;
	}
	if (atomic_file_commit(&csv, err, errlen) != 0)
		goto out_abort;
	rc = 0;
	goto out_free;

out_abort:
	atomic_file_abort(&side);
	atomic_file_abort(&csv);
out_free:
	free(text);
	free(side_path);
	return rc;
}

/* Checksum, size and data rows of the file at path. 0, or -1 when it
 * cannot be read. */
static int results_stamp_file(const char *path, struct results_stamp *st)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return -1;
	unsigned char buf[65536];
	size_t got;
	struct results_stamping sg = { 0xcbf29ce484222325ULL, 0, 0, false };
	while ((got = fread(buf, 1, sizeof buf, fp)) > 0)
		results_stamping_add(&sg, buf, got);
	int bad = ferror(fp);
	fclose(fp);
	*st = results_stamping_end(&sg);
	return bad ? -1 : 0;
}

/* The stamp a parsed sidecar records: 1 when it has one, 0 when it
 * predates checksums, -1 when its stamp is malformed. */
static int results_stamp_recorded(const struct json_in_value *side, struct results_stamp *st)
{
	const struct json_in_value *h = json_in_find(side, "csv_fnv1a64");
	const struct json_in_value *r = json_in_find(side, "csv_rows");
	char *end;
	if (!h)
		return 0;
	if (h->type != JSON_IN_STRING || !r || r->type != JSON_IN_NUMBER || r->number < 0)
		return -1;
	st->fnv1a64 = strtoull(h->string, &end, 16);
	if (strlen(h->string) != 16 || *end != '\0')
		return -1;
	st->rows = (size_t)r->number;
	return 1;
}

int results_pair_check(const char *csv_path, char *msg, size_t msglen)
{
	char *side_path = results_sidecar_path(csv_path), jerr[256];
	struct json_in_value side = { 0 };
	struct results_stamp want, have;
	int rc;
	if (!side_path) {
		snprintf(msg, msglen, "out of memory checking %s", csv_path);
		rc = RESULTS_PAIR_MISMATCH;
	} else if (access(side_path, F_OK) != 0) {
		snprintf(msg, msglen, "no sidecar %s: not checked", side_path);
		rc = RESULTS_PAIR_NO_SIDECAR;
	} else if (json_in_read_file(side_path, &side, jerr, sizeof jerr) != 0) {
		snprintf(msg, msglen, "%s", jerr);
		rc = RESULTS_PAIR_MISMATCH;
	} else if ((rc = results_stamp_recorded(&side, &want)) <= 0) {
		if (rc == 0)
			snprintf(msg, msglen, "sidecar predates checksums: not checked");
		else
			snprintf(msg, msglen, "%s: malformed csv_fnv1a64 or csv_rows", side_path);
		rc = rc == 0 ? RESULTS_PAIR_UNSTAMPED : RESULTS_PAIR_MISMATCH;
	} else if (results_stamp_file(csv_path, &have) != 0) {
		snprintf(msg, msglen, "%s: %s", csv_path, strerror(errno));
		rc = RESULTS_PAIR_MISMATCH;
	} else if (have.fnv1a64 != want.fnv1a64 || have.rows != want.rows) {
		snprintf(msg, msglen,
			 "%s does not match its sidecar %s (%zu rows, FNV-1a %016llx recorded; %zu rows, "
			 "%016llx found): a write was interrupted or the files were mixed up; re-run, or "
			 "restore both files together",
			 csv_path, side_path, want.rows, (unsigned long long)want.fnv1a64, have.rows,
			 (unsigned long long)have.fnv1a64);
		rc = RESULTS_PAIR_MISMATCH;
	} else {
		snprintf(msg, msglen, "%zu rows, checksum matches its sidecar", have.rows);
		rc = RESULTS_PAIR_OK;
	}
	json_in_free(&side);
	free(side_path);
	return rc;
}

/* What results_write_table hands results_write_files. */
struct results_table_job {
	const char *csv_path;
	const struct results_table *table;
	const struct results_meta *meta;
};

static int results_table_csv(FILE *fp, void *ctx)
{
	const struct results_table *table = ((struct results_table_job *)ctx)->table;
	char (*cells)[RESULTS_CELL] = calloc(table->ncols, sizeof *cells);
	const char **fields = calloc(table->ncols, sizeof *fields);
	int rc = cells && fields ? csv_write_row(fp, table->columns, table->ncols) : -1;
	for (size_t r = 0; rc == 0 && r < table->nrows; r++) {
		table->format(table->ctx, r, cells);
		for (size_t c = 0; c < table->ncols; c++)
			fields[c] = cells[c];
		rc = csv_write_row(fp, fields, table->ncols);
	}
	free(cells);
	free(fields);
	return rc;
}

static void results_table_sidecar(FILE *fp, void *ctx, const struct results_stamp *stamp)
{
	const struct results_table_job *job = ctx;
	results_json(fp, job->csv_path, job->table, job->meta, stamp);
}

int results_write_table(const char *csv_path, const struct results_table *table,
			const struct results_meta *meta, char *err, size_t errlen)
{
	struct results_table_job job = { csv_path, table, meta };
	return results_write_files(csv_path, results_table_csv, results_table_sidecar, &job, err,
				   errlen);
}

/* The N-body part of the sidecar: validation rules, flop count, samples. */
static void results_json_nbody(struct json_out *j, const void *ctx)
{
	const struct results_table *t = ctx;
	json_key(j, "validation");
	json_begin_object(j);
	json_kv_int(j, "all_bodies_up_to_n", VALIDATE_FULL_MAX);
	json_kv_int(j, "sample_bodies_above", VALIDATE_SAMPLE);
	json_kv_string(j, "sample_rule", "random bodies drawn with the run's seed, plus the first and the last, each against all N");
	json_kv_string(j, "max_norm_err", "max_i |a_i - a_ref_i| / sum_j |f_ij|");
	json_kv_string(j, "rel_l2_err", "sqrt(sum |a - a_ref|^2 / sum |a_ref|^2)");
	json_end_object(j);
	json_kv_string(j, "flop_count", "20 flops per interaction (GPU Gems 3 ch. 31, Listing 31-1)");
	results_json_rows(j, t->rows, t->nrows);
}

static void results_format_nbody(const void *ctx, size_t row, char (*cells)[RESULTS_CELL])
{
	const struct results_table *t = ctx;
	results_format(&((const struct result_row *)t->rows)[row], cells);
}

int results_write(const char *csv_path, const struct result_row *rows, size_t nrows,
		  const struct results_meta *meta, char *err, size_t errlen)
{
	struct results_table t = {
		.schema = "nbody-harness-results/1", .columns = results_columns,
		.ncols = results_column_count, .nrows = nrows, .rows = rows,
		.format = results_format_nbody, .json = results_json_nbody,
	};
	t.ctx = &t;
	return results_write_table(csv_path, &t, meta, err, errlen);
}

/* Writes a per-row array of raw samples: what every timed row measured. */
void results_json_samples(struct json_out *j, const char *name, size_t n,
			  const struct timing_result *t, int timed)
{
	json_begin_object(j);
	json_kv_string(j, "variant", name);
	json_kv_int(j, "n", (long long)n);
	json_kv_int(j, "reps_per_sample", timed ? t->reps_per_sample : 0);
	json_key(j, "seconds_per_call");
	json_begin_array(j);
	for (size_t s = 0; timed && s < t->count; s++)
		json_double(j, t->samples[s]);
	json_end_array(j);
	json_end_object(j);
}

/* "12.3 ms" style: three significant digits with an SI prefix. */
static void results_fmt_time(char *buf, size_t len, double s)
{
	if (isnan(s))
		snprintf(buf, len, "-");
	else if (s >= 1)
		snprintf(buf, len, "%.3g s", s);
	else if (s >= 1e-3)
		snprintf(buf, len, "%.3g ms", s * 1e3);
	else
		snprintf(buf, len, "%.3g us", s * 1e6);
}

/* A figure printed with fmt, or a dash where there is none (NaN: a column
 * that check does not measure, or a row that was not timed). */
static void results_fmt_figure(char *buf, size_t len, const char *fmt, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
}

void results_print_table(FILE *fp, const struct result_row *rows, size_t nrows)
{
	bool steps = false;
	for (size_t r = 0; r < nrows; r++)
		steps = steps || rows[r].steps_mode;
	fprintf(fp, "%-18s %9s %-5s %9s %10s %8s %13s %9s%s\n", "variant", "N", "valid",
		"max_err", "median", "noise", "interact/s", "GFLOP/s", steps ? "    steps/s" : "");
	for (size_t r = 0; r < nrows; r++) {
		const struct result_row *row = &rows[r];
		char med[32], noise[32];
		results_fmt_time(med, sizeof med, row->timed ? row->t.s.median : NAN);
		if (row->timed && row->t.count < 2)
			snprintf(noise, sizeof noise, "1 sample"); /* no spread to measure */
		else if (row->timed)
			snprintf(noise, sizeof noise, "%.2f%%%s", 100.0 * row->t.s.rel_stddev,
				 row->t.noise_met ? "" : "*");
		else
			snprintf(noise, sizeof noise, "-");
		char ips[32], gflops[32], sps[32];
		results_fmt_figure(ips, sizeof ips, "%.3e", results_interactions_per_s(row));
		results_fmt_figure(gflops, sizeof gflops, "%.1f", results_gflops(row));
		results_fmt_figure(sps, sizeof sps, "%.1f", results_steps_per_s(row));
		fprintf(fp, "%-18s %9zu %-5s %9.2e %10s %8s %13s %9s", row->v->name, row->n,
			row->val.pass ? "ok" : "FAIL", row->val.max_norm, med, noise, ips, gflops);
		if (steps)
			fprintf(fp, " %10s", sps);
		fputc('\n', fp);
	}
	bool missed = false, single = false;
	for (size_t r = 0; r < nrows; r++) {
		missed = missed || (rows[r].timed && rows[r].t.count >= 2 && !rows[r].t.noise_met);
		single = single || (rows[r].timed && rows[r].t.count < 2);
	}
	if (missed)
		fprintf(fp, "* noise target not met within --max-time; the median is still the figure to quote\n");
	if (single)
		fprintf(fp, "1 sample: one call outlasted --max-time; its noise is unknown (compare and ab "
			    "call such a row inconclusive unless ab has three rounds of it)\n");
}
