/* plot_from.h - which results directory a figure is drawn from: this machine's newest, else the committed default */
#ifndef HARNESS_PLOT_FROM_H
#define HARNESS_PLOT_FROM_H

#include <stdbool.h>
#include <stddef.h>

#define PLOT_RESULTS_ROOT "results"
/* The committed results a figure falls back on: one H200's, and for the
 * scaling suites four H200s' (where the scaling model is too). */
#define PLOT_FALLBACK_DIR "results/h200"
#define PLOT_FALLBACK_DIR_MULTI "results/h200x4"
#define PLOT_LOCAL_DIR "local" /* results/local: the user's own runs */

/* This machine as the default --from matches it against sidecars. */
struct plot_machine {
	const char *gpu; /* GPU 0's name; NULL or "" on a machine without a GPU */
	const char *cpu; /* the CPU model, as sysinfo_host_read gives it */
};

/* Why the default --from took its directory. */
enum plot_from_why {
	PLOT_FROM_NONE = -1,   /* nothing fits */
	PLOT_FROM_MATCH = 0,   /* measured on this machine (its GPU, or its CPU without one) */
	PLOT_FROM_DEFAULT = 1, /* nothing was: results/h200 (scaling: results/h200x4), the default */
};

/*
 * The default --from for suite under root (normally "results") on machine
 * m: the directory whose <suite>.csv has a sidecar that matches m
 * (plot_sidecar_matches), the one modified last. First among root/X/ and
 * root/local/X/ (a machine's results, and the user's own runs); only
 * where none of them matches, among the other root/X/Y/ (sub-folders such
 * as tc-splits/, ab/ or sph-walls/ hold special-purpose runs). Else
 * root/h200 when it holds <suite>.csv. Writes the directory to out and
 * returns PLOT_FROM_MATCH or PLOT_FROM_DEFAULT; PLOT_FROM_NONE (out empty)
 * when none fits.
 */
enum plot_from_why plot_find_from(const char *root, const char *suite,
				  const struct plot_machine *m, char *out, size_t outlen);

/* The same with root/fallback_dir in place of root/h200: "h200x4" for
 * the scaling suites' per-rank files, where the scaling model is too. */
enum plot_from_why plot_find_from_or(const char *root, const char *suite,
				     const struct plot_machine *m, const char *fallback_dir,
				     char *out, size_t outlen);

/*
 * Whether the sidecar of csv_path was measured on machine m. With a GPU:
 * one of its "gpus" names equals m's GPU. Without one: its host.cpu_model
 * equals m's CPU and it records no GPU at all (its rows ran on that CPU
 * alone). A GPU host's sidecar lists its GPUs even for rows that ran on its
 * CPU, and shares its CPU's name with many machines ("Intel(R) Xeon(R)
 * Processor" of a virtual machine), so a machine without a GPU never takes
 * GPU results for its own by the CPU's name. False without a sidecar.
 */
bool plot_sidecar_matches(const char *csv_path, const struct plot_machine *m);

/*
 * Why a figure without --from was drawn from the CSV at csv, as the
 * parenthesis its line carries: " (newest measured on this machine's GPU,
 * NVIDIA H200)", " (newest measured on this CPU, AMD EPYC, without a GPU)",
 * or, for PLOT_FROM_DEFAULT, " (the default: nothing under results/
 * measured on this machine's GPU, NVIDIA B200; these on NVIDIA H200)"
 * naming the machine the CSV's sidecar records. Writes into out.
 */
void plot_from_says(enum plot_from_why why, const struct plot_machine *m, const char *csv,
		    char *out, size_t outlen);

/* The device a directory's suite CSV was measured on (its first row's). */
char *plot_csv_device(const char *csv);

/* This machine as words: "this machine's GPU, NAME" or "this CPU, NAME,
 * without a GPU". */
void plot_machine_words(const struct plot_machine *m, char *out, size_t outlen);

/* This machine as sidecars name it: GPU 0's name (empty without a GPU) and
 * the CPU model, into the buffers gpu and cpu (256 bytes each) m points at. */
void plot_this_machine(char *gpu, char *cpu, struct plot_machine *m);

#endif /* HARNESS_PLOT_FROM_H */
