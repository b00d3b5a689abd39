/* cli.h - the command line: subcommands, options and their strict parsing */
#ifndef HARNESS_CLI_H
#define HARNESS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../reference/ic.h"
#include "../variants/registry.h"
#include "core/timing.h"

/* Exit statuses of bin/harness. */
enum cli_status {
	CLI_OK = 0,      /* everything validated (and was timed) */
	CLI_FAILED = 1,  /* a variant failed validation or could not run */
	CLI_USAGE = 2,   /* bad input: nothing was measured or written */
};

enum cli_command { CLI_LIST, CLI_RUN, CLI_CHECK, CLI_FORCES, CLI_HELP };

/* Largest N accepted before the memory check: kernels index bodies with
 * 32-bit ints. */
#define CLI_N_MAX ((size_t)1 << 30)

struct cli_options {
	enum cli_command cmd;
	bool help;                            /* --help given: print and exit 0 */
	bool selected[NBODY_VARIANT_COUNT];   /* from --variant */
	bool variant_given;
	bool filtered[NBODY_VARIANT_COUNT];   /* from --filter: the names its regex matches */
	bool filter_given;
	int device_filter;                    /* --device: -1 any, else enum variant_device */
	int gpu;                              /* --gpu INDEX among the visible GPUs; -1: not given */
	size_t *n_list;                       /* from --n (owned) */
	size_t n_count;
	bool n_given;
	enum ic_kind ic;
	const char *ic_file;                  /* --ic FILE; NULL for generated bodies */
	uint64_t seed;
	double eps;
	bool steps;
	double dt;
	struct timing_opts timing;
	const char *out;                      /* --out; NULL: command's default */
	const char *suite;                    /* --suite NAME or "all"; NULL: none */
	const char *out_dir;                  /* --out-dir for suites; NULL: results/local */
	bool quiet;
};

/* Parses argv (argv[1] is the subcommand). Returns CLI_OK, or CLI_USAGE
 * with one line in err naming the bad value and what is allowed. */
int cli_parse(int argc, char **argv, struct cli_options *o, char *err, size_t errlen);

void cli_options_free(struct cli_options *o);

/* Parses an N list: comma-separated items, each a count ("4097"), a power
 * ("2^10") or a doubling range ("2^10..2^20", "1000..8000": the first
 * value, doubled while it stays <= the last). Every N must be in
 * [1, CLI_N_MAX]. Returns CLI_OK with a new array in *out, or CLI_USAGE. */
int cli_parse_n_list(const char *s, size_t **out, size_t *count, char *err, size_t errlen);

/* A suite's N list (suites.def): the --n syntax, optionally followed by
 * " per rank", in which case every N is multiplied by ranks (weak
 * scaling). CLI_OK with a new array, or CLI_USAGE. */
int cli_parse_suite_n(const char *s, size_t ranks, size_t **out, size_t *count, char *err,
		      size_t errlen);

/* Strict number parsers: the whole text must be the number. CLI_OK or
 * CLI_USAGE with a message naming the option. */
int cli_parse_double(const char *opt, const char *s, double lo, double hi, double *out,
		     char *err, size_t errlen);
int cli_parse_u64(const char *opt, const char *s, uint64_t *out, char *err, size_t errlen);
/* A whole number in lo .. hi. */
int cli_parse_int(const char *opt, const char *s, int lo, int hi, int *out, char *err,
		  size_t errlen);
/* Moments of a flow: step counts, or seconds of flow where a value ends
 * in 's' ("0,0.1s,0.2s"), each turned into a step by cli_moments_steps
 * once the scene's time step is known. One rule for every option that
 * takes them (--warm-steps, --at): at most CLI_MAX_MOMENTS values, steps
 * from 0 to CLI_MOMENT_MAX_STEPS, seconds from 0 to CLI_MOMENT_MAX_SECONDS,
 * and a time in seconds may not come to more steps than that either.
 * CLI_MOMENTS_RULE (its two halves CLI_MOMENTS_STEPS and _SECONDS) states
 * it, units and all, for --help and the messages. */
#define CLI_MAX_MOMENTS 16
#define CLI_MOMENT_MAX_STEPS 1000000
#define CLI_MOMENT_MAX_SECONDS 10
#define CLI_TEXT_(x) #x
#define CLI_TEXT(x) CLI_TEXT_(x)
#define CLI_MOMENTS_STEPS "0 <= steps <= " CLI_TEXT(CLI_MOMENT_MAX_STEPS)
#define CLI_MOMENTS_SECONDS "0s <= seconds of flow <= " CLI_TEXT(CLI_MOMENT_MAX_SECONDS) "s"
#define CLI_MOMENTS_RULE CLI_MOMENTS_STEPS " or " CLI_MOMENTS_SECONDS
struct cli_moments {
	size_t n;
	unsigned long step[CLI_MAX_MOMENTS]; /* as given, or 0 where secs is */
	double secs[CLI_MAX_MOMENTS];        /* seconds of flow where given, else NAN */
	const char *arg;                     /* the option's text */
};
/* At most CLI_MAX_MOMENTS values into m, each within the rule above;
 * else CLI_USAGE with one line in err naming the value as given (its
 * unit too) and the rule. */
int cli_parse_moments(const char *opt, const char *s, struct cli_moments *m, char *err,
		      size_t errlen);
/* m's moments as steps of dt (seconds to the nearest step) into steps[]:
 * each <= max_step (CLI_MOMENT_MAX_STEPS, the rule's) and, when
 * ascending, each later than the one before; else -1 with one line in
 * err. */
int cli_moments_steps(const char *opt, const struct cli_moments *m, double dt,
		      unsigned long max_step, bool ascending, unsigned long *steps, char *err,
		      size_t errlen);
/* "0,300,600": at most max_count ascending steps, each <= max_step, into
 * at[] and *count. */
int cli_parse_steps(const char *opt, const char *s, size_t max_count, unsigned long max_step,
		    unsigned long *at, size_t *count, char *err, size_t errlen);

/* Writes into out (len bytes, used of them taken) the count names
 * name(0) .. name(count - 1), comma-separated, then whole; where they
 * would take more than CLI_NAMES_WIDTH characters, their families
 * instead, as globs with how many names each holds ("tiled-* (6)", a
 * family of one by its name); when even those do not fit, as many as
 * fit, "... and K more, see 'LIST_CMD'" and cut (an unknown variant's
 * line). */
#define CLI_NAMES_WIDTH 200
void cli_names_list(char *out, size_t len, size_t used, const char *(*name)(size_t),
		    size_t count, const char *list_cmd, const char *whole, const char *cut);

/* One line "harness: CMD: msg" (or "harness: msg" when cmd is NULL) on
 * stderr; returns CLI_USAGE, the status of bad input. */
int cli_usage_error(const char *cmd, const char *msg);

/* The message for what getopt_long returned as c (':' a missing value,
 * else an unknown option) about option text arg, for `harness cmd`. */
int cli_getopt_error(int c, const char *arg, const char *cmd, char *err, size_t errlen);

/* Whether argv[*i] is option name, as "--name VALUE" or "--name=VALUE":
 * 1 with the value in *val (*i moved past a separate value), 0 when it is
 * something else, -1 when the value is missing. For commands that parse
 * their own options (compare, ab). */
int cli_take_option(int argc, char **argv, int *i, const char *name, const char **val);

/* Which of the n valued options names argv[*i] is (cli_take_option on
 * each): its index, with the value in *val; or -1 after one line for
 * `harness cmd` (cli_usage_error) saying the value is missing or the
 * option unknown. */
int cli_take_one_of(int argc, char **argv, int *i, const char *const *names, size_t n,
		    const char **val, const char *cmd);

/* Marks in o->selected the variants matching each comma-separated name or
 * glob of s. CLI_OK, or CLI_USAGE naming a pattern that matches nothing. */
int cli_select_variants(const char *s, struct cli_options *o, char *err, size_t errlen);

/* Whether variant i is selected: by --variant (every one without it),
 * by --filter and by --device, all three. */
bool cli_wants_variant(const struct cli_options *o, size_t i);

/* --filter: marks in keep[0 .. count) the names name(i) that the POSIX
 * extended regular expression re matches anywhere (regcomp with
 * REG_EXTENDED | REG_NOSUB; anchor it with ^ and $), clearing the others.
 * CLI_OK, or CLI_USAGE with one line in err when re does not compile, or
 * matches none of the names (then listed as an unknown variant's line
 * lists them; what names them, "variant" or "SPH variant", and list_cmd
 * is the command that lists them). */
int cli_filter_names(const char *re, const char *(*name)(size_t), size_t count, bool *keep,
		     const char *what, const char *list_cmd, char *err, size_t errlen);

/* --gpu INDEX: makes the GPU of that index among the visible ones (the
 * CUDA runtime's numbering, after CUDA_VISIBLE_DEVICES) this process's.
 * CLI_OK, or CLI_USAGE with one line in err naming how many GPUs are
 * visible when there is no such GPU, whatever the variants selected
 * (gpu_wanted false: only CPU variants, which the line then says need no
 * --gpu). */
int cli_use_gpu(int index, bool gpu_wanted, char *err, size_t errlen);

/* The --gpu value: a whole number from 0. CLI_OK or CLI_USAGE with err. */
int cli_parse_gpu(const char *s, int *out, char *err, size_t errlen);

/* The timing options every measuring command shares: opt is "--min-time",
 * "--max-time", "--max-noise", "--min-samples" or "--repetitions".
 * CLI_OK, or CLI_USAGE with err (also for an opt that is none of them). */
int cli_parse_timing(const char *opt, const char *value, struct timing_opts *t, char *err,
		     size_t errlen);

/* Rules across the timing options (--max-time >= --min-time). */
int cli_check_timing(const struct timing_opts *t, char *err, size_t errlen);

/* Usage text of a command (CLI_HELP: the overview). */
void cli_print_help(enum cli_command cmd);

/* Whether pattern (a name or fnmatch(3) glob) matches a variant of either
 * registry, N-body or SPH. */
bool cli_names_variant(const char *pattern);

#endif
