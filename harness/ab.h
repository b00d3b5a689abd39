/* ab.h - harness ab: the same rows with a base build and this one, interleaved, compared */
#ifndef HARNESS_AB_H
#define HARNESS_AB_H

/*
 * `harness ab (--base REV | --base-tree DIR [--base-commit SHA] | --base-bin FILE)
 *             [--rounds R] [--threshold PCT] [--out-dir DIR] [--rebuild]
 *             [sph] [ROW OPTIONS]`
 *
 * BASE is this harness built from another revision (ab_build.h); NEW is
 * the running binary. ROW OPTIONS are those of `harness run` (or, after
 * the word sph or with an sph-* suite, of `harness sph run`): both sides
 * run exactly them, R rounds in the order AB BA AB BA ..., so that a drift
 * in clocks or temperature weighs on both sides alike; every run validates
 * each row before timing it. Each side's rounds are pooled (ab_pool.h) into
 * DIR/base.csv and DIR/new.csv with their sidecars, and `harness compare`
 * judges them with --threshold; the round files stay in DIR/rounds/.
 *
 * Exit status: 0 no regression; 1 a regression beyond the noise and the
 * threshold, or a row of NEW that failed validation or could not be timed;
 * 2 bad input, a failed build, a run that refused the rows or died. An
 * interruption (SIGINT, SIGTERM, SIGHUP) stops the running child, removes
 * the worktree and everything written to DIR, and ends by that signal.
 */

/* The subcommand: argv[0] is "ab". Returns the exit status. */
int ab_command(int argc, char **argv);

#endif /* HARNESS_AB_H */
