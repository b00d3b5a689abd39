/* main.c - bin/harness: the commands, and the one that the command line names */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/nbody/nbody_cpu.h"
#include "gate/ab.h"
#include "nbody/commbench.h"
#include "nbody/scaling_model.h"
#include "cli.h"
#include "gate/calibrate.h"
#include "gate/compare.h"
#include "nbody/dist.h"
#include "export.h"
#include "core/interrupt.h"
#include "figures/plot.h"
#include "report.h"
#include "nbody/nbody_run.h"
#include "sph/sph_run.h"
#include "core/results.h"
#include "core/sysinfo.h"
#include "core/testhook.h"

/* Whether this is "run ... --suite sph-..." (an SPH suite): those belong
 * to the sph command, so that `harness run --suite sph-table` works. */
static bool main_is_sph_suite(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "run") != 0)
		return false;
	for (int i = 2; i < argc; i++) {
		const char *v = NULL;
		if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc)
			v = argv[i + 1];
		else if (strncmp(argv[i], "--suite=", 8) == 0)
			v = argv[i] + 8;
		if (v && strncmp(v, "sph-", 4) == 0)
			return true;
	}
	return false;
}

/* Runs "harness run ARGS" as "harness sph run ARGS". */
static int main_sph_suite(int argc, char **argv)
{
	char **av = malloc((size_t)(argc + 2) * sizeof *av);
	if (!av)
		return cli_usage_error(NULL, "out of memory");
	av[0] = argv[0];
	av[1] = "sph";
	for (int i = 1; i < argc; i++)
		av[i + 1] = argv[i];
	av[argc + 1] = NULL;
	int status = sph_command(argc + 1, av);
	free(av);
	return status;
}

/* sph_command reads the whole command line (argv[1] is "sph"); argv here
 * starts at "sph", one past the program's name. */
static int main_sph(int argc, char **argv)
{
	return sph_command(argc + 1, argv - 1);
}

static int main_version(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: harness version   (or harness --version)\n\n"
		       "Prints the commit this binary was built from (and whether the tree had\n"
		       "uncommitted changes), whether CUDA (with its architectures), MPI, NCCL\n"
		       "and PNG output were built in, and the compilers.\n");
		return CLI_OK;
	}
	if (argc > 1) {
		char err[256];
		snprintf(err, sizeof err, "version takes no arguments ('%s')", argv[1]);
		return cli_usage_error(NULL, err);
	}
	sysinfo_print_version(stdout);
	return CLI_OK;
}

/* Every command, in the order the help overview lists them: the overview
 * and the unknown-command message are both made from this table. run:
 * commands that parse their own options, called with argv at the command's
 * name; NULL for those of cli_parse (list, run, check, forces). */
static const struct main_cmd {
	const char *name, *summary;
	int (*run)(int argc, char **argv);
} main_cmds[] = {
	{ "list", "the variants this harness knows and which can run here", NULL },
	{ "run", "validate, then time; table on screen, CSV + JSON sidecar", NULL },
	{ "check", "validate only", NULL },
	{ "forces", "per-body accelerations of one variant next to the reference", NULL },
	{ "compare", "two results CSVs row by row: same, faster, slower, SLOWER (a\n"
		     "regression) or inconclusive (too noisy to tell)", compare_command },
	{ "calibrate", "what separate runs of the same suites differ by: the floors\n"
		       "compare adds to each row's noise", calibrate_command },
	{ "ab", "the same rows with a base revision's build and this one,\n"
		"interleaved until decided, pooled and compared: a regression gate", ab_command },
	{ "plot", "the chapter's figures from suite CSVs (gnuplot)", plot_command },
	{ "report", "the results pages' tables (N-body, SPH, rendering) from a\n"
		    "results folder", report_command },
	{ "export", "a results CSV as Google Benchmark JSON", export_command },
	{ "sph", "the SPH variants on the paper's dam break (harness sph --help)", main_sph },
	{ "commbench", "times the distributed variants' collectives alone (under mpirun)",
	  commbench_command },
	{ "model", "predicts the distributed variants at more ranks from what was\n"
		   "measured", model_command },
	{ "version", "the commit and build options of this binary (also --version)", main_version },
	{ "help", "this overview (also --help)", NULL },
};
enum { MAIN_NCMDS = sizeof main_cmds / sizeof main_cmds[0] };

static const struct main_cmd *main_find_cmd(const char *name)
{
	for (size_t i = 0; i < MAIN_NCMDS; i++)
		if (strcmp(main_cmds[i].name, name) == 0)
			return &main_cmds[i];
	return NULL;
}

/* The help overview, from main_cmds (continuation lines indented). */
static void main_help(FILE *fp)
{
	fprintf(fp, "usage: harness COMMAND [options]   (harness COMMAND --help for details)\n\n");
	for (size_t i = 0; i < MAIN_NCMDS; i++) {
		fprintf(fp, "  %-10s ", main_cmds[i].name);
		for (const char *p = main_cmds[i].summary; *p; p++) {
			fputc(*p, fp);
			if (*p == '\n')
				fprintf(fp, "  %-10s ", "");
		}
		fputc('\n', fp);
	}
}

/* "unknown command 'x' (allowed: list, run, ...)" from main_cmds. */
static int main_unknown_cmd(const char *name)
{
	char err[1024];
	int w = snprintf(err, sizeof err, "unknown command '%s' (allowed:", name);
	for (size_t i = 0; i < MAIN_NCMDS && w > 0 && (size_t)w < sizeof err; i++)
		w += snprintf(err + w, sizeof err - (size_t)w, "%s %s", i ? "," : "", main_cmds[i].name);
	if (w > 0 && (size_t)w < sizeof err)
		snprintf(err + w, sizeof err - (size_t)w, ")");
	return cli_usage_error(NULL, err);
}

/* --gpu: the GPU of this process (cli_use_gpu), the same on every rank;
 * refused when the run has several ranks, which take the GPU of their
 * rank on their host (dist_gpu_bind). CLI_OK, or CLI_USAGE with err. */
static int main_gpu(const struct cli_options *o, char *err, size_t errlen)
{
	if (o->gpu < 0)
		return CLI_OK;
	if (dist_size() > 1) {
		snprintf(err, errlen, "--gpu %d picks the GPU of a run on one process: under mpirun "
				      "(this run has %d ranks) each rank takes the GPU of its rank on its "
				      "host; CUDA_VISIBLE_DEVICES chooses which GPUs those are", o->gpu,
			 dist_size());
		return CLI_USAGE;
	}
	bool wanted = false;
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++)
		wanted = wanted || (cli_wants_variant(o, i) && nbody_variants[i].device == VARIANT_GPU);
	return cli_use_gpu(o->gpu, wanted, err, errlen);
}

/* The command line's command. With several ranks only list, run and check
 * go on (forces, compare, plot and sph run on one process). */
static int main_command(int argc, char **argv)
{
	struct cli_options o;
	char err[2048];
	const char *cmd = argc > 1 ? argv[1] : "";
	if (dist_size() > 1 && strcmp(cmd, "list") != 0 && strcmp(cmd, "run") != 0 &&
	    strcmp(cmd, "check") != 0 && strcmp(cmd, "commbench") != 0) {
		snprintf(err, sizeof err, "'%s' runs on one process (this run has %d ranks; mpirun runs list, run, check and commbench)",
			 cmd, dist_size());
		return cli_usage_error(NULL, err);
	}
	if (strcmp(cmd, "--version") == 0)
		cmd = "version";
	if (argc < 2) { /* no command: the overview, as bad input */
		main_help(stderr);
		return CLI_USAGE;
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		main_help(stdout);
		return CLI_OK;
	}
	const struct main_cmd *mc = main_find_cmd(cmd);
	if (!mc)
		return main_unknown_cmd(cmd);
	if (testhook_check(cli_names_variant, err, sizeof err) != 0)
		return cli_usage_error(NULL, err);
	if (testhook_active(TESTHOOK_SLOWDOWN) || testhook_active(TESTHOOK_WORK))
		fprintf(stderr, "harness: test hooks on: %s=%s %s=%s lengthen the timings of those variants\n",
			TESTHOOK_WORK, testhook_active(TESTHOOK_WORK) ? testhook_active(TESTHOOK_WORK) : "",
			TESTHOOK_SLOWDOWN,
			testhook_active(TESTHOOK_SLOWDOWN) ? testhook_active(TESTHOOK_SLOWDOWN) : "");
	/* the measuring commands keep their finished rows when interrupted;
	 * not under mpirun with several ranks, whose runtime ends the ranks
	 * by SIGTERM when one of them aborts, after that one has said why */
	if ((strcmp(cmd, "run") == 0 || strcmp(cmd, "check") == 0 || strcmp(cmd, "sph") == 0) &&
	    dist_size() == 1)
		interrupt_trap();
	if (main_is_sph_suite(argc, argv))
		return main_sph_suite(argc, argv);
	if (mc->run)
		return mc->run(argc - 1, argv + 1);
	if (cli_parse(argc, argv, &o, err, sizeof err) != CLI_OK)
		return cli_usage_error(NULL, err);
	if (!o.help && main_gpu(&o, err, sizeof err) != CLI_OK) {
		cli_options_free(&o);
		return dist_rank() == 0 ? cli_usage_error(NULL, err) : CLI_USAGE;
	}
	int status;
	if (o.help) {
		cli_print_help(o.cmd);
		status = CLI_OK;
	} else if (o.cmd == CLI_LIST) {
		status = main_list(&o);
	} else if (o.cmd == CLI_FORCES) {
		status = main_forces(&o);
	} else if (o.suite) {
		status = main_suites(argc, argv, &o);
	} else {
		status = main_run(argc, argv, &o);
	}
	cli_options_free(&o);
	return status;
}

int main(int argc, char **argv)
{
	static const struct results_cpu_facts cpu_facts = { nbody_cpu_simd_isa, nbody_cpu_simd_threads };
	results_set_cpu_facts(&cpu_facts);
	sysinfo_load_mark(); /* what ran beside the run is counted from here */
	char err[512];
	if (dist_init(&argc, &argv, err, sizeof err) != 0) {
		fprintf(stderr, "harness: %s\n", err);
		return CLI_FAILED;
	}
	if (dist_size() > 1)
		dist_gpu_bind();
	/* Every rank took the same decisions; the worst status is the run's. */
	double status = main_command(argc, argv);
	if (dist_allreduce_max(&status, 1) != 0)
		status = CLI_FAILED;
	dist_finalize();
	return (int)status;
}
