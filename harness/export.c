/* export.c - a results CSV in another tool's format (Google Benchmark JSON) */
#define _POSIX_C_SOURCE 200809L
#include "export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomic_file.h"
#include "gate/compare.h"
#include "core/json_in.h"
#include "core/json_out.h"
#include "core/results.h"

/* A string value of the sidecar, or dflt. */
static void export_sidecar_string(const struct json_in_value *side, const char *key,
				  const char *dflt, char *out, size_t outlen)
{
	const struct json_in_value *v = json_in_find(side, key);
	snprintf(out, outlen, "%s", v && v->type == JSON_IN_STRING ? v->string : dflt);
}

static void export_context(struct json_out *j, const struct csv_table *t,
			   const struct compare_kind *kind, const struct json_in_value *side,
			   long skipped)
{
	char buf[1024];
	const struct json_in_value *v;
	json_key(j, "context");
	json_begin_object(j);
	export_sidecar_string(side, "created_utc", "", buf, sizeof buf);
	json_kv_string(j, "date", buf);
	export_sidecar_string(side, "hostname", "", buf, sizeof buf);
	json_kv_string(j, "host_name", buf);
	json_kv_string(j, "executable", "bin/harness");
	v = json_in_find(side, "logical_cpus");
	json_kv_int(j, "num_cpus", v && v->type == JSON_IN_NUMBER ? (long long)v->number : 0);
	json_kv_int(j, "mhz_per_cpu", 0);
	json_kv_bool(j, "cpu_scaling_enabled", false);
	json_key(j, "caches");
	json_begin_array(j);
	json_end_array(j);
	json_key(j, "load_avg");
	json_begin_array(j);
	json_end_array(j);
	json_kv_string(j, "library_build_type", "release");
	json_kv_string(j, "harness_kind", kind->slug);
	export_sidecar_string(side, "schema", "", buf, sizeof buf);
	json_kv_string(j, "harness_schema", buf);
	json_kv_string(j, "harness_csv", t->path);
	export_sidecar_string(side, "git_commit", "", buf, sizeof buf);
	json_kv_string(j, "git_commit", buf);
	json_kv_int(j, "skipped_rows", skipped);
	json_end_object(j);
}

/* "nbody/auto/n:16384/tile_p:0/...": the kind and its join columns. */
static void export_name(const struct compare_kind *kind, const struct csv_table *t, size_t row,
			char *out, size_t outlen)
{
	size_t n = (size_t)snprintf(out, outlen, "%s/%s", kind->slug,
				    csv_table_named(t, row, kind->keys[0]));
	for (size_t i = 1; kind->keys[i] && n < outlen; i++) {
		const char *v = csv_table_named(t, row, kind->keys[i]);
		/* An optional key at its default (or absent) stays out of the
		 * name, so one-rank rows keep the names they were tracked by. */
		const struct compare_optional *opt = compare_optional_of(kind, kind->keys[i]);
		if (opt && (v[0] == '\0' || strcmp(v, opt->dflt) == 0))
			continue;
		n += (size_t)snprintf(out + n, outlen - n, "/%s:%s", kind->keys[i], v);
	}
}

/* Seconds in the largest unit that keeps the value >= 1. */
static const char *export_unit(double seconds, double *value)
{
	static const struct { const char *name; double scale; } units[] = {
		{ "s", 1 }, { "ms", 1e3 }, { "us", 1e6 }, { "ns", 1e9 },
	};
	size_t u = 0;
	while (u + 1 < sizeof units / sizeof *units && seconds * units[u].scale < 1)
		u++;
	*value = seconds * units[u].scale;
	return units[u].name;
}

/* Whether row validated and was timed; *seconds its median. */
static bool export_timed(const struct compare_kind *kind, const struct csv_table *t, size_t row,
			 double *seconds)
{
	const char *s = csv_table_named(t, row, kind->time_col);
	*seconds = s[0] ? atof(s) : NAN;
	return strcmp(csv_table_named(t, row, "valid"), "1") == 0 && *seconds > 0;
}

static void export_benchmark(struct json_out *j, const struct compare_kind *kind,
			     const struct csv_table *t, size_t row, long index, double seconds)
{
	char name[1024];
	double value;
	export_name(kind, t, row, name, sizeof name);
	const char *unit = export_unit(seconds, &value);
	const char *reps = csv_table_named(t, row, kind->reps_col);
	long long iterations = atoll(csv_table_named(t, row, kind->samples_col)) * (reps[0] ? atoll(reps) : 1);
	json_begin_object(j);
	json_kv_string(j, "name", name);
	json_kv_int(j, "family_index", index);
	json_kv_int(j, "per_family_instance_index", 0);
	json_kv_string(j, "run_name", name);
	json_kv_string(j, "run_type", "iteration");
	json_kv_int(j, "repetitions", 1);
	json_kv_int(j, "repetition_index", 0);
	json_kv_int(j, "threads", 1);
	json_kv_int(j, "iterations", iterations);
	json_kv_double(j, "real_time", value);
	json_kv_double(j, "cpu_time", value);
	json_kv_string(j, "time_unit", unit);
	json_kv_string(j, "label", csv_table_named(t, row, "device_name"));
	for (size_t c = 0; kind->counters[c]; c++) {
		const char *cell = csv_table_named(t, row, kind->counters[c]);
		if (cell[0] && isfinite(atof(cell)))
			json_kv_double(j, kind->counters[c], atof(cell));
	}
	json_end_object(j);
}

long export_gbench(FILE *fp, const struct csv_table *t, const struct json_in_value *sidecar, char *err,
		   size_t errlen)
{
	const struct compare_kind *kind = compare_kind_of(t);
	if (!kind) {
		snprintf(err, errlen, "%s: not a results CSV of bin/harness (no column '%s', '%s' nor '%s')",
			 t->path, compare_kinds[0].signature, compare_kinds[1].signature,
			 compare_kinds[2].signature);
		return -1;
	}
	if (kind->untimed) {
		snprintf(err, errlen, "%s holds %s rows: nothing timed to export", t->path, kind->name);
		return -1;
	}
	if (csv_table_col(t, kind->time_col) < 0 || csv_table_col(t, "valid") < 0) {
		snprintf(err, errlen, "%s: no column '%s' or 'valid'", t->path, kind->time_col);
		return -1;
	}
	long written = 0, skipped = 0;
	double seconds;
	for (size_t r = 0; r < t->nrows; r++)
		skipped += !export_timed(kind, t, r, &seconds);
	struct json_out j;
	json_init(&j, fp);
	json_begin_object(&j);
	export_context(&j, t, kind, sidecar, skipped);
	json_key(&j, "benchmarks");
	json_begin_array(&j);
	for (size_t r = 0; r < t->nrows; r++)
		if (export_timed(kind, t, r, &seconds))
			export_benchmark(&j, kind, t, r, written++, seconds);
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
	return written;
}

#define EXPORT_USAGE "usage: harness export [--format gbench] FILE.csv [--out FILE.json]"

static int export_usage_error(const char *what, const char *value)
{
	fprintf(stderr, "harness: export: %s%s%s%s (%s)\n", what, value ? " '" : "",
		value ? value : "", value ? "'" : "", EXPORT_USAGE);
	return 2;
}

/* Reads, checks and exports csv to out (NULL: stdout). 0, or 2 with a line. */
static int export_file(const char *csv, const char *out)
{
	char err[2048], *side_path = results_sidecar_path(csv);
	struct csv_table t = { 0 };
	struct atomic_file af = { 0 };
	struct json_in_value side = { 0 };
	bool have_side = false;
	int rc = 2;
	if (results_pair_check(csv, err, sizeof err) == RESULTS_PAIR_MISMATCH ||
	    csv_table_read(csv, &t, err, sizeof err) != 0)
		goto out_free;
	{
		char jerr[256];
		have_side = side_path && json_in_read_file(side_path, &side, jerr, sizeof jerr) == 0;
	}
	if (out && atomic_file_open(&af, out, err, sizeof err) != 0)
		goto out_free;
	if (export_gbench(out ? af.fp : stdout, &t, have_side ? &side : NULL, err, sizeof err) < 0) {
		atomic_file_abort(&af);
		goto out_free;
	}
	rc = out && atomic_file_commit(&af, err, sizeof err) != 0 ? 2 : 0;
out_free:
	if (rc != 0)
		fprintf(stderr, "harness: export: %s\n", err);
	csv_table_free(&t);
	json_in_free(&side);
	free(side_path);
	return rc;
}

int export_command(int argc, char **argv)
{
	const char *format = NULL, *out = NULL, *csv = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("%s\n\nWrites a results CSV (N-body or SPH rows) as Google Benchmark JSON (gbench,\n"
			       "the one format, so the default): one benchmark per valid, timed row, the\n"
			       "median time per call as real_time and cpu_time, the harness's figures as\n"
			       "counters.\n",
			       EXPORT_USAGE);
			return 0;
		}
		if ((strcmp(a, "--format") == 0 || strcmp(a, "--out") == 0) && i + 1 >= argc)
			return export_usage_error("missing value after", a);
		if (strcmp(a, "--format") == 0)
			format = argv[++i];
		else if (strcmp(a, "--out") == 0 || strcmp(a, "-o") == 0)
			out = argv[++i];
		else if (a[0] == '-' && a[1])
			return export_usage_error("unknown option", a);
		else if (!csv)
			csv = a;
		else
			return export_usage_error("one FILE.csv only; extra", a);
	}
	if (format && strcmp(format, "gbench") != 0)
		return export_usage_error("unknown format (known: gbench, the default)", format);
	if (!csv)
		return export_usage_error("needs FILE.csv", NULL);
	return export_file(csv, out);
}
