/* cli.c - the command line: subcommands, options and their strict parsing */
#define _GNU_SOURCE
#include "cli.h"

#include "../variants/sph_registry.h"
#include "../variants/suites.h"
#include "core/gpu_device.h"
#include "core/repetitions.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const cli_command_names[] = {
	[CLI_LIST] = "list", [CLI_RUN] = "run", [CLI_CHECK] = "check",
	[CLI_FORCES] = "forces", [CLI_HELP] = "help",
};

int cli_parse_u64(const char *opt, const char *s, uint64_t *out, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno == ERANGE) {
		snprintf(err, errlen, "%s '%s' is not a non-negative integer", opt, s);
		return CLI_USAGE;
	}
	*out = v;
	return CLI_OK;
}

int cli_take_option(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t len = strlen(name);
	if (strncmp(argv[*i], name, len) != 0 || (argv[*i][len] != '\0' && argv[*i][len] != '='))
		return 0;
	if (argv[*i][len] == '=') {
		*val = argv[*i] + len + 1;
		return 1;
	}
	if (*i + 1 >= argc)
		return -1;
	*val = argv[++*i];
	return 1;
}

int cli_parse_double(const char *opt, const char *s, double lo, double hi, double *out,
		     char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v) || s[0] == ' ') {
		snprintf(err, errlen, "%s '%s' is not a number", opt, s);
		return CLI_USAGE;
	}
	if (v < lo || v > hi) {
		snprintf(err, errlen, "%s %s is out of range (allowed: %g to %g)", opt, s, lo, hi);
		return CLI_USAGE;
	}
	*out = v;
	return CLI_OK;
}

int cli_parse_int(const char *opt, const char *s, int lo, int hi, int *out, char *err,
		  size_t errlen)
{
	double v;
	if (cli_parse_double(opt, s, lo, hi, &v, err, errlen) != CLI_OK)
		return CLI_USAGE;
	if (v != floor(v)) {
		snprintf(err, errlen, "%s '%s' is not a whole number", opt, s);
		return CLI_USAGE;
	}
	*out = (int)v;
	return CLI_OK;
}

int cli_parse_steps(const char *opt, const char *s, size_t max_count, unsigned long max_step,
		    unsigned long *at, size_t *count, char *err, size_t errlen)
{
	char *copy = strdup(s), *save = NULL;
	int rc = copy ? CLI_OK : CLI_USAGE;
	if (!copy)
		snprintf(err, errlen, "%s: out of memory", opt);
	*count = 0;
	for (char *w = copy ? strtok_r(copy, ",", &save) : NULL; w && rc == CLI_OK;
	     w = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		rc = cli_parse_u64(opt, w, &v, err, errlen);
		if (rc == CLI_OK && (*count == max_count || v > max_step ||
				     (*count && v <= at[*count - 1]))) {
			snprintf(err, errlen, "%s '%s': at most %zu ascending steps, each <= %lu", opt, s,
				 max_count, max_step);
			rc = CLI_USAGE;
		}
		if (rc == CLI_OK)
			at[(*count)++] = (unsigned long)v;
	}
	free(copy);
	return rc;
}

/* One line for a moment of opt's list s that breaks the rule: what is
 * wrong with it (printf-style), then the rule. Returns CLI_USAGE. */
static int cli_moment_error(char *err, size_t errlen, const char *opt, const char *s,
			    bool ascending, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static int cli_moment_error(char *err, size_t errlen, const char *opt, const char *s,
			    bool ascending, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s '%s': %s (allowed: at most %d %svalues, each " CLI_MOMENTS_RULE ")",
		 opt, s, what, CLI_MAX_MOMENTS, ascending ? "ascending " : "");
	return CLI_USAGE;
}

int cli_parse_moments(const char *opt, const char *s, struct cli_moments *m, char *err,
		      size_t errlen)
{
	char *copy = strdup(s), *save = NULL;
	int rc = copy ? CLI_OK : CLI_USAGE;
	if (!copy)
		snprintf(err, errlen, "%s: out of memory", opt);
	m->n = 0;
	m->arg = s;
	for (char *w = copy ? strtok_r(copy, ",", &save) : NULL; w && rc == CLI_OK;
	     w = strtok_r(NULL, ",", &save)) {
		const size_t len = strlen(w);
		const bool secs = len > 1 && w[len - 1] == 's';
		const char *digits = w + (w[0] == '-');
		char *end;
		errno = 0;
		double v = strtod(w, &end);
		/* steps: digits alone; seconds: a decimal number, then s */
		bool number = end == w + len - secs && errno != ERANGE && isfinite(v) &&
			      (secs ? (digits[0] == '.' || (digits[0] >= '0' && digits[0] <= '9')) &&
					      !strpbrk(w, "xX")
				    : digits[0] != '\0' && strspn(digits, "0123456789") == strlen(digits));
		if (m->n == CLI_MAX_MOMENTS)
			rc = cli_moment_error(err, errlen, opt, s, false, "more than %d values",
					      CLI_MAX_MOMENTS);
		else if (!number)
			rc = cli_moment_error(err, errlen, opt, s, false,
					      "'%s' is neither a whole number of steps nor seconds "
					      "of flow ending in s", w);
		else if (v < 0 || v > (secs ? CLI_MOMENT_MAX_SECONDS : CLI_MOMENT_MAX_STEPS))
			rc = cli_moment_error(err, errlen, opt, s, false, "%s is out of range", w);
		if (rc == CLI_OK) {
			m->step[m->n] = secs ? 0 : (unsigned long)v;
			m->secs[m->n++] = secs ? v : NAN;
		}
	}
	free(copy);
	return rc;
}

int cli_moments_steps(const char *opt, const struct cli_moments *m, double dt,
		      unsigned long max_step, bool ascending, unsigned long *steps, char *err,
		      size_t errlen)
{
	for (size_t k = 0; k < m->n; k++) {
		steps[k] = m->step[k];
		if (isfinite(m->secs[k])) {
			const double step = round(m->secs[k] / dt);
			steps[k] = step <= (double)max_step ? (unsigned long)step : max_step + 1;
		}
		if (steps[k] > max_step && isfinite(m->secs[k])) {
			cli_moment_error(err, errlen, opt, m->arg, ascending,
					 "%gs is %.0f steps of %.4g s here, more than %lu", m->secs[k],
					 round(m->secs[k] / dt), dt, max_step);
			return -1;
		}
		if (steps[k] > max_step) {
			cli_moment_error(err, errlen, opt, m->arg, ascending, "%lu steps is more than %lu",
					 steps[k], max_step);
			return -1;
		}
		if (ascending && k > 0 && steps[k] <= steps[k - 1]) {
			cli_moment_error(err, errlen, opt, m->arg, ascending,
					 "value %zu is step %lu, not after step %lu before it (seconds are "
					 "steps of %.4g s here)", k + 1, steps[k], steps[k - 1], dt);
			return -1;
		}
	}
	return 0;
}

int cli_getopt_error(int c, const char *arg, const char *cmd, char *err, size_t errlen)
{
	if (c == ':')
		snprintf(err, errlen, "%s needs a value", arg);
	else
		snprintf(err, errlen, "unknown option '%s' (see 'harness %s --help')", arg, cmd);
	return CLI_USAGE;
}

int cli_parse_timing(const char *opt, const char *value, struct timing_opts *t, char *err,
		     size_t errlen)
{
	if (strcmp(opt, "--min-time") == 0)
		return cli_parse_double(opt, value, 0, 86400, &t->min_time, err, errlen);
	if (strcmp(opt, "--max-time") == 0)
		return cli_parse_double(opt, value, 1e-3, 86400, &t->max_time, err, errlen);
	if (strcmp(opt, "--max-noise") == 0)
		return cli_parse_double(opt, value, 0, 100, &t->max_noise, err, errlen);
	int k;
	if (strcmp(opt, "--min-samples") == 0) {
		if (cli_parse_int(opt, value, 1, (int)t->max_samples, &k, err, errlen) != CLI_OK)
			return CLI_USAGE;
		t->min_samples = (size_t)k;
		return CLI_OK;
	}
	if (strcmp(opt, "--repetitions") == 0) {
		if (cli_parse_int(opt, value, 1, REPETITIONS_MAX, &k, err, errlen) != CLI_OK)
			return CLI_USAGE;
		t->repetitions = (size_t)k;
		return CLI_OK;
	}
	snprintf(err, errlen, "%s is not a timing option", opt);
	return CLI_USAGE;
}

int cli_check_timing(const struct timing_opts *t, char *err, size_t errlen)
{
	if (t->max_time < t->min_time) {
		snprintf(err, errlen, "--max-time %g is below --min-time %g", t->max_time, t->min_time);
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* One N: decimal digits, or "2^k". The text is [s, e). CLI_OK or CLI_USAGE. */
static int cli_parse_one_n(const char *s, const char *e, size_t *out)
{
	char buf[32];
	size_t len = (size_t)(e - s);
	if (len == 0 || len >= sizeof buf)
		return CLI_USAGE;
	memcpy(buf, s, len);
	buf[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (!(buf[i] >= '0' && buf[i] <= '9') && !(buf[i] == '^' && i == 1 && buf[0] == '2'))
			return CLI_USAGE;
	unsigned long long v;
	if (len > 2 && buf[0] == '2' && buf[1] == '^') {
		unsigned long long k = strtoull(buf + 2, NULL, 10);
		if (k > 62)
			return CLI_USAGE;
		v = 1ULL << k;
	} else {
		errno = 0;
		v = strtoull(buf, NULL, 10);
		if (errno == ERANGE || strchr(buf, '^'))
			return CLI_USAGE;
	}
	*out = (size_t)v;
	return CLI_OK;
}

/* Appends v to the growing list. CLI_OK, or CLI_USAGE when it is too long. */
static int cli_push_n(size_t **list, size_t *count, size_t *cap, size_t v)
{
	if (*count == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		if (ncap > 4096)
			return CLI_USAGE;
		size_t *p = realloc(*list, ncap * sizeof *p);
		if (!p)
			return CLI_USAGE;
		*list = p;
		*cap = ncap;
	}
	(*list)[(*count)++] = v;
	return CLI_OK;
}

int cli_parse_n_list(const char *s, size_t **out, size_t *count, char *err, size_t errlen)
{
	size_t *list = NULL, n = 0, cap = 0;
	const char *item = s;
	for (;;) {
		const char *end = item + strcspn(item, ",");
		const char *dots = strstr(item, "..");
		size_t lo, hi;
		if (dots && dots < end) {
			if (cli_parse_one_n(item, dots, &lo) != CLI_OK ||
			    cli_parse_one_n(dots + 2, end, &hi) != CLI_OK || lo == 0 || lo > hi)
				goto out_bad;
			for (size_t v = lo; v <= hi; v *= 2) {
				if (v > CLI_N_MAX || cli_push_n(&list, &n, &cap, v) != CLI_OK)
					goto out_bad;
				if (v > hi / 2)
					break;
			}
		} else {
			if (cli_parse_one_n(item, end, &lo) != CLI_OK ||
			    cli_push_n(&list, &n, &cap, lo) != CLI_OK)
				goto out_bad;
		}
		if (*end == '\0')
			break;
		item = end + 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (list[i] < 1 || list[i] > CLI_N_MAX) {
			snprintf(err, errlen, "--n '%s': %zu is out of range (allowed: 1 <= N <= %zu)", s,
				 list[i], CLI_N_MAX);
			free(list);
			return CLI_USAGE;
		}
	}
	*out = list;
	*count = n;
	return CLI_OK;

out_bad:
	free(list);
	snprintf(err, errlen,
		 "--n '%s' is not a valid list (allowed: N, 2^k, A..B doubling ranges, comma-separated; 1 <= N <= %zu)",
		 s, CLI_N_MAX);
	return CLI_USAGE;
}

int cli_parse_suite_n(const char *s, size_t ranks, size_t **out, size_t *count, char *err,
		      size_t errlen)
{
	static const char per_rank[] = " per rank";
	size_t len = strlen(s), plen = sizeof per_rank - 1;
	if (len <= plen || strcmp(s + len - plen, per_rank) != 0)
		return cli_parse_n_list(s, out, count, err, errlen);
	char *head = strndup(s, len - plen);
	if (!head) {
		snprintf(err, errlen, "out of memory");
		return CLI_USAGE;
	}
	int rc = cli_parse_n_list(head, out, count, err, errlen);
	free(head);
	for (size_t i = 0; rc == CLI_OK && i < *count; i++) {
		if ((*out)[i] > CLI_N_MAX / ranks) {
			snprintf(err, errlen, "'%s' on %zu ranks exceeds N = %zu", s, ranks, CLI_N_MAX);
			free(*out);
			*out = NULL;
			return CLI_USAGE;
		}
		(*out)[i] *= ranks;
	}
	return rc;
}

/* The family of a name: its text before the first '-' ("tiled" of
 * "tiled-p32"), its whole length when it has none. */
static size_t cli_family_len(const char *name)
{
	return strcspn(name, "-");
}

/* Writes name(i)'s family as a list item: the name itself when no other
 * name shares the family, else the family's glob and how many it holds
 * ("tiled-* (6)"); "" for a name whose family an earlier name showed. */
static void cli_family_item(const char *(*name)(size_t), size_t count, size_t i, char *item,
			    size_t len)
{
	const char *n = name(i);
	const size_t f = cli_family_len(n);
	size_t members = 0;
	item[0] = '\0';
	for (size_t j = 0; j < count; j++) {
		const bool same = cli_family_len(name(j)) == f && strncmp(name(j), n, f) == 0;
		if (same && j < i)
			return; /* shown with its family's first name */
		members += same;
	}
	if (members == 1)
		snprintf(item, len, "%s", n);
	else
		snprintf(item, len, "%.*s-* (%zu)", (int)f, n, members);
}

void cli_names_list(char *out, size_t len, size_t used, const char *(*name)(size_t),
		    size_t count, const char *list_cmd, const char *whole, const char *cut)
{
	size_t all = 0;
	for (size_t i = 0; i < count; i++)
		all += strlen(name(i)) + 2;
	/* more than a line's worth: by family, each a glob that selects it */
	const bool families = all > CLI_NAMES_WIDTH;
	size_t i = 0, shown = 0;
	for (; i < count; i++) {
		char item[128];
		if (families)
			cli_family_item(name, count, i, item, sizeof item);
		else
			snprintf(item, sizeof item, "%s", name(i));
		if (!item[0])
			continue;
		/* after the item, room for the end or for how many are left out */
		size_t tail = i + 1 < count ? strlen(cut) + strlen(list_cmd) + 48 : strlen(whole);
		if (used + 2 + strlen(item) + tail >= len)
			break;
		used += (size_t)snprintf(out + used, len - used, "%s%s", shown++ ? ", " : "", item);
	}
	if (used >= len)
		return;
	/* the names left out: those from i on whose family was not shown */
	size_t left = 0;
	for (size_t j = i; j < count; j++) {
		const size_t f = cli_family_len(name(j));
		size_t first = 0;
		while (families && !(cli_family_len(name(first)) == f &&
				     strncmp(name(first), name(j), f) == 0))
			first++;
		left += !families || first >= i;
	}
	if (i < count)
		snprintf(out + used, len - used, "%s... and %zu more, see '%s'%s", shown ? ", " : "",
			 left, list_cmd, cut);
	else
		snprintf(out + used, len - used, "%s", whole);
}

static const char *cli_nbody_name(size_t i)
{
	return nbody_variants[i].name;
}

int cli_select_variants(const char *s, struct cli_options *o, char *err, size_t errlen)
{
	char *copy = strdup(s);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return CLI_USAGE;
	}
	int rc = CLI_OK;
	char *save = NULL;
	bool any = false;
	for (char *pat = strtok_r(copy, ",", &save); pat; pat = strtok_r(NULL, ",", &save)) {
		any = true;
		if (variant_match(pat, o->selected) == 0) {
			int w = snprintf(err, errlen, "unknown variant '%s' (known: ", pat);
			cli_names_list(err, errlen, w > 0 ? (size_t)w : 0, cli_nbody_name,
				       NBODY_VARIANT_COUNT, "harness list",
				       "; globs such as 'cpu-*' work; see 'harness list')",
				       "; globs such as 'cpu-*' work)");
			rc = CLI_USAGE;
			break;
		}
	}
	if (rc == CLI_OK && !any) {
		snprintf(err, errlen, "--variant needs a name or a glob");
		rc = CLI_USAGE;
	}
	free(copy);
	o->variant_given = true;
	return rc;
}

bool cli_wants_variant(const struct cli_options *o, size_t i)
{
	return (!o->variant_given || o->selected[i]) && (!o->filter_given || o->filtered[i]) &&
	       (o->device_filter < 0 || (int)nbody_variants[i].device == o->device_filter);
}

int cli_filter_names(const char *re, const char *(*name)(size_t), size_t count, bool *keep,
		     const char *what, const char *list_cmd, char *err, size_t errlen)
{
	regex_t rx;
	int rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		char why[128];
		regerror(rc, &rx, why, sizeof why);
		snprintf(err, errlen, "--filter '%s' is not a POSIX extended regular expression (%s)",
			 re, why);
		return CLI_USAGE;
	}
	size_t matched = 0;
	for (size_t i = 0; i < count; i++) {
		keep[i] = regexec(&rx, name(i), 0, NULL, 0) == 0;
		matched += keep[i];
	}
	regfree(&rx);
	if (matched > 0)
		return CLI_OK;
	char whole[96];
	snprintf(whole, sizeof whole, "; see '%s')", list_cmd);
	int w = snprintf(err, errlen, "--filter '%s' matches no %s (known: ", re, what);
	cli_names_list(err, errlen, w > 0 ? (size_t)w : 0, name, count, list_cmd, whole, ")");
	return CLI_USAGE;
}

int cli_parse_gpu(const char *s, int *out, char *err, size_t errlen)
{
	return cli_parse_int("--gpu", s, 0, 1023, out, err, errlen);
}

int cli_use_gpu(int index, bool gpu_wanted, char *err, size_t errlen)
{
	int count = gpu_device_count();
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	char env[160] = "";
	if (visible)
		snprintf(env, sizeof env, " with CUDA_VISIBLE_DEVICES='%.100s'", visible);
	if (index >= count) {
		/* the same rule whatever was selected: an index names a GPU that is there */
		const char *cpu_only = gpu_wanted ? "" : "; the CPU variants selected need no --gpu";
		if (count == 0)
			snprintf(err, errlen, "--gpu %d: 0 GPUs are visible here%s: %s%s", index, env,
				 gpu_unavailable_reason() ? gpu_unavailable_reason() : "no CUDA device",
				 cpu_only);
		else
			snprintf(err, errlen, "--gpu %d: %d GPU%s visible here%s (allowed: 0 to %d)%s",
				 index, count, count > 1 ? "s are" : " is", env, count - 1, cpu_only);
		return CLI_USAGE;
	}
	if (gpu_device_select(index) != 0) {
		snprintf(err, errlen, "--gpu %d: the CUDA runtime cannot make it the current device", index);
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* Cross-option rules, after every option is known. */
static int cli_check_combinations(struct cli_options *o, char *err, size_t errlen)
{
	if (cli_check_timing(&o->timing, err, errlen) != CLI_OK)
		return CLI_USAGE;
	if (!o->ic_file && o->ic == IC_TWOBODY) {
		for (size_t i = 0; i < o->n_count; i++)
			if (o->n_given && o->n_list[i] != 2) {
				snprintf(err, errlen, "--ic twobody has N = 2, not %zu", o->n_list[i]);
				return CLI_USAGE;
			}
	}
	if (o->suite && (o->cmd != CLI_RUN || o->variant_given || o->steps || o->out || o->ic_file)) {
		snprintf(err, errlen, "--suite sets variants and mode and writes to --out-dir: it takes "
				      "no --variant, --steps, --out or --ic FILE (run only; --n keeps its rows at those N)");
		return CLI_USAGE;
	}
	if (o->out_dir && !o->suite) {
		snprintf(err, errlen, "--out-dir goes with --suite; use --out FILE.csv otherwise");
		return CLI_USAGE;
	}
	if (o->cmd == CLI_FORCES) {
		size_t nsel = 0;
		for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++)
			nsel += cli_wants_variant(o, i);
		if (nsel != 1) {
			snprintf(err, errlen, "forces needs exactly one --variant (%zu selected)", nsel);
			return CLI_USAGE;
		}
		if (o->n_count > 1) {
			snprintf(err, errlen, "forces takes one N, not a list of %zu", o->n_count);
			return CLI_USAGE;
		}
		if (!o->out) {
			snprintf(err, errlen, "forces needs --out FILE.csv");
			return CLI_USAGE;
		}
	}
	return CLI_OK;
}

/* The N list used when --n is absent. */
static int cli_default_n(struct cli_options *o)
{
	static const size_t run_n[] = { 1024, 4096, 16384 };
	static const size_t check_n[] = { 1, 2, 3, 1000, 1024, 4097 };
	static const size_t two[] = { 2 };
	static const size_t forces_n[] = { 1024 };
	const size_t *src = run_n;
	size_t count = 3;
	if (!o->ic_file && o->ic == IC_TWOBODY)
		src = two, count = 1;
	else if (o->cmd == CLI_CHECK)
		src = check_n, count = 6;
	else if (o->cmd == CLI_FORCES)
		src = forces_n, count = 1;
	o->n_list = malloc(count * sizeof *o->n_list);
	if (!o->n_list)
		return CLI_USAGE;
	memcpy(o->n_list, src, count * sizeof *o->n_list);
	o->n_count = count;
	return CLI_OK;
}

enum { OPT_SEED = 256, OPT_EPS, OPT_STEPS, OPT_DT, OPT_MIN_TIME, OPT_MAX_TIME, OPT_MAX_NOISE, OPT_IC, OPT_DEVICE, OPT_SUITE, OPT_OUT_DIR,
       OPT_MIN_SAMPLES, OPT_REPETITIONS, OPT_FILTER, OPT_GPU };

int cli_parse(int argc, char **argv, struct cli_options *o, char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "variant", required_argument, NULL, 'v' }, { "n", required_argument, NULL, 'n' },
		{ "ic", required_argument, NULL, OPT_IC },   { "seed", required_argument, NULL, OPT_SEED },
		{ "eps", required_argument, NULL, OPT_EPS }, { "steps", no_argument, NULL, OPT_STEPS },
		{ "dt", required_argument, NULL, OPT_DT },
		{ "min-time", required_argument, NULL, OPT_MIN_TIME },
		{ "max-time", required_argument, NULL, OPT_MAX_TIME },
		{ "max-noise", required_argument, NULL, OPT_MAX_NOISE },
		{ "out", required_argument, NULL, 'o' },     { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },          { "device", required_argument, NULL, OPT_DEVICE },
		{ "suite", required_argument, NULL, OPT_SUITE },
		{ "out-dir", required_argument, NULL, OPT_OUT_DIR },
		{ "min-samples", required_argument, NULL, OPT_MIN_SAMPLES },
		{ "repetitions", required_argument, NULL, OPT_REPETITIONS },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof *o);
	o->ic = IC_PLUMMER;
	o->device_filter = -1;
	o->gpu = -1;
	o->seed = 42;
	o->eps = 0.01;
	o->dt = 0.001;
	timing_opts_default(&o->timing);

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		o->cmd = CLI_HELP;
		o->help = true;
		return CLI_OK;
	}
	size_t ci;
	for (ci = 0; ci < sizeof cli_command_names / sizeof *cli_command_names; ci++)
		if (strcmp(argv[1], cli_command_names[ci]) == 0)
			break;
	if (ci == CLI_HELP || ci == sizeof cli_command_names / sizeof *cli_command_names) {
		snprintf(err, errlen, "unknown command '%s' (see 'harness --help')", argv[1]);
		return CLI_USAGE;
	}
	o->cmd = (enum cli_command)ci;

	int rc = CLI_OK, c;
	char **av = argv + 1; /* the subcommand plays argv[0] for getopt */
	optind = 0; /* glibc: restart scanning, so cli_parse can run again */
	opterr = 0;
	while (rc == CLI_OK && (c = getopt_long(argc - 1, av, ":v:n:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v': rc = cli_select_variants(optarg, o, err, errlen); break;
		case 'n':
			free(o->n_list);
			o->n_list = NULL;
			rc = cli_parse_n_list(optarg, &o->n_list, &o->n_count, err, errlen);
			o->n_given = true;
			break;
		case OPT_IC:
			if (ic_kind_parse(optarg, &o->ic) == 0)
				break;
			if (access(optarg, R_OK) != 0) {
				char kinds[128] = "";
				for (int k = 0; k < IC_KIND_COUNT; k++)
					snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s",
						 k ? ", " : "", ic_kind_name((enum ic_kind)k));
				snprintf(err, errlen, "--ic '%s' is neither a kind of bodies (%s) nor a file "
					 "that can be read (%s)", optarg, kinds, strerror(errno));
				rc = CLI_USAGE;
				break;
			}
			o->ic_file = optarg;
			break;
		case OPT_SUITE:
			o->suite = optarg;
			if (!suite_exists(optarg)) {
				snprintf(err, errlen, "unknown suite '%s' (see 'harness run --help' for the list, or 'all')",
					 optarg);
				rc = CLI_USAGE;
			}
			break;
		case OPT_OUT_DIR: o->out_dir = optarg; break;
		case OPT_DEVICE:
			if (strcmp(optarg, "cpu") == 0) {
				o->device_filter = VARIANT_CPU;
			} else if (strcmp(optarg, "gpu") == 0) {
				o->device_filter = VARIANT_GPU;
			} else {
				snprintf(err, errlen, "--device '%s' is not allowed (cpu or gpu)", optarg);
				rc = CLI_USAGE;
			}
			break;
		case OPT_SEED: rc = cli_parse_u64("--seed", optarg, &o->seed, err, errlen); break;
		case OPT_EPS: rc = cli_parse_double("--eps", optarg, 0, 1e3, &o->eps, err, errlen); break;
		case OPT_STEPS: o->steps = true; break;
		case OPT_DT: rc = cli_parse_double("--dt", optarg, 1e-12, 1e3, &o->dt, err, errlen); break;
		case OPT_MIN_TIME: rc = cli_parse_timing("--min-time", optarg, &o->timing, err, errlen); break;
		case OPT_MAX_TIME: rc = cli_parse_timing("--max-time", optarg, &o->timing, err, errlen); break;
		case OPT_MAX_NOISE: rc = cli_parse_timing("--max-noise", optarg, &o->timing, err, errlen); break;
		case OPT_MIN_SAMPLES:
			rc = cli_parse_timing("--min-samples", optarg, &o->timing, err, errlen);
			break;
		case OPT_REPETITIONS:
			rc = cli_parse_timing("--repetitions", optarg, &o->timing, err, errlen);
			break;
		case OPT_FILTER:
			rc = cli_filter_names(optarg, cli_nbody_name, NBODY_VARIANT_COUNT, o->filtered,
					      "variant", "harness list", err, errlen);
			o->filter_given = true;
			break;
		case OPT_GPU: rc = cli_parse_gpu(optarg, &o->gpu, err, errlen); break;
		case 'o': o->out = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h': o->help = true; break;
		case ':':
			snprintf(err, errlen, "%s needs a value", av[optind - 1]);
			rc = CLI_USAGE;
			break;
		default:
			snprintf(err, errlen, "unknown option '%s' for %s (see 'harness %s --help')",
				 av[optind - 1], argv[1], argv[1]);
			rc = CLI_USAGE;
			break;
		}
	}
	if (rc == CLI_OK && optind < argc - 1) {
		snprintf(err, errlen, "unexpected argument '%s' (options start with --)", av[optind]);
		rc = CLI_USAGE;
	}
	if (rc == CLI_OK && o->help)
		return CLI_OK;
	if (rc == CLI_OK && !o->n_given && !o->ic_file)
		rc = cli_default_n(o);
	if (rc == CLI_OK)
		rc = cli_check_combinations(o, err, errlen);
	if (rc != CLI_OK)
		cli_options_free(o);
	return rc;
}

void cli_options_free(struct cli_options *o)
{
	free(o->n_list);
	o->n_list = NULL;
	o->n_count = 0;
}

void cli_print_help(enum cli_command cmd)
{
	static const char *const common =
		"  --variant, -v PAT   variant name or glob, repeatable or comma-separated\n"
		"                      (default: every variant available here)\n"
		"  --filter REGEX      only variants whose name the POSIX extended regex\n"
		"                      matches anywhere (^ $ anchor it); with --variant and\n"
		"                      --device, the variants all of them select\n"
		"  --device cpu|gpu    only variants of that device\n"
		"  --gpu INDEX         the GPU to use, among those visible (CUDA_VISIBLE_DEVICES\n"
		"                      picks and orders them; the sidecar records both): 0.\n"
		"                      Not under mpirun with several ranks, where each rank\n"
		"                      takes the GPU of its rank on its host\n"
		"  --n, -n LIST        N values: 1024,4096  2^10..2^20 (doubling)  2^16\n"
		"  --ic KIND|FILE      plummer (default), cube, twobody (N = 2), or a CSV\n"
		"                      (x,y,z,mass[,vx,vy,vz]) or Tipsy file of bodies\n"
		"  --seed S            seed of the generated bodies and of the sample (42)\n"
		"  --eps E             softening length; eps^2 enters the force (0.01)\n";
	static const char *const timing =
		"  --steps             time whole leapfrog steps (forces + kick-drift-kick)\n"
		"                      and report steps/s; default: force evaluation only\n"
		"  --dt DT             step size for --steps (0.001)\n"
		"  --min-time S        measure at least S seconds per row (0.2)\n"
		"  --max-time S        give up on the noise target after S seconds (5)\n"
		"  --max-noise PCT     target relative std. deviation of samples (0.5)\n"
		"  --min-samples K     at least K samples per row, even past --max-time (5)\n"
		"  --repetitions R     measure each row R times independently, each with its\n"
		"                      own warm-up and samples: the row's median is the median\n"
		"                      of their medians, its noise at least their spread (1)\n";
	switch (cmd) {
	case CLI_LIST:
		printf("usage: harness list [--variant PAT] [--filter REGEX] [--device cpu|gpu]\n\n"
		       "Prints the variant registry: name, family, precision, device, the\n"
		       "chapter's parameters (tile p, threads per body q, unroll, bodies per\n"
		       "thread k) and whether this build and machine can run it.\n");
		break;
	case CLI_RUN:
		printf("usage: harness run [options]\n\n"
		       "Validates each selected variant against the double-precision\n"
		       "reference, then times it; prints a table and writes CSV + sidecar.\n"
		       "Variants that cannot run here (no GPU, no CUDA driver) are left out,\n"
		       "named in one line on stderr and listed in the sidecar (\"skipped\").\n"
		       "Exit status: 0 all valid, 1 a variant failed, 2 bad input, or nothing\n"
		       "selected can run here (then no file is written).\n\n%s%s"
		       "  --out, -o FILE.csv  results file (default results/local/nbody-<UTC time>.csv);\n"
		       "                      its metadata goes to FILE.meta.json\n"
		       "  --quiet, -q         no table, no progress, no line of skipped variants (the\n"
		       "                      progress: rewritten in place on a terminal, else a line\n"
		       "                      every $HARNESS_PROGRESS_INTERVAL seconds, 10)\n"
		       "  --suite NAME|all    a predefined sweep (variants/suites.def): fig31-5,\n"
		       "                      fig31-6, fig31-7, fig31-8, steps, cpu-speedup,\n"
		       "                      baseline, scaling, weak-scaling, tensor-core; one\n"
		       "                      CSV per suite\n"
		       "                      in --out-dir (scaling suites: NAME-pP.csv for P ranks;\n"
		       "                      mpirun -np P bin/harness run --suite scaling)\n"
		       "                      A suite none of whose rows can run here writes no\n"
		       "                      file and exits 2 (under all: a note); with --n, only\n"
		       "                      the suite's rows at those N\n"
		       "  --out-dir DIR       where suites write (results/local)\n", common, timing);
		break;
	case CLI_CHECK:
		printf("usage: harness check [options]\n\n"
		       "Validates only (no timing). Default N: 1,2,3,1000,1024,4097.\n\n%s"
		       "  --out, -o FILE.csv  also write the rows (timing columns empty)\n"
		       "  --quiet, -q         no table\n", common);
		break;
	case CLI_FORCES:
		printf("usage: harness forces --variant NAME --out FILE.csv [options]\n\n"
		       "Writes every body's position and mass, the variant's acceleration,\n"
		       "the reference acceleration and the error, for checking a kernel on\n"
		       "your own bodies (--ic FILE). One N (default: all bodies of the file,\n"
		       "else 1024).\n\n%s", common);
		break;
	case CLI_HELP:
		printf("usage: harness COMMAND [options]   (harness --help lists the commands)\n");
		break;
	}
}

bool cli_names_variant(const char *pattern)
{
	bool nbody[NBODY_VARIANT_COUNT] = { false }, sph[SPH_VARIANT_COUNT] = { false };
	return variant_match(pattern, nbody) + sph_variant_match(pattern, sph) > 0;
}

int cli_usage_error(const char *cmd, const char *msg)
{
	if (cmd)
		fprintf(stderr, "harness: %s: %s\n", cmd, msg);
	else
		fprintf(stderr, "harness: %s\n", msg);
	return CLI_USAGE;
}

int cli_take_one_of(int argc, char **argv, int *i, const char *const *names, size_t n,
		    const char **val, const char *cmd)
{
	const char *a = argv[*i];
	int t = 0;
	for (size_t k = 0; k < n; k++)
		if ((t = cli_take_option(argc, argv, i, names[k], val)) != 0) {
			if (t > 0)
				return (int)k;
			break;
		}
	char msg[512];
	snprintf(msg, sizeof msg, t < 0 ? "%s needs a value (see --help)"
					: "unknown option: %s (see --help)", a);
	cli_usage_error(cmd, msg);
	return -1;
}
