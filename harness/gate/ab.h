/* ab.h - harness ab: the same rows with a base build and this one, interleaved, compared */
#ifndef HARNESS_AB_H
#define HARNESS_AB_H

/*
 * `harness ab (--base REV | --base-tree DIR [--base-commit SHA] | --base-bin FILE)
 *             [--rounds R] [--budget SECONDS] [--threshold PCT] [--min-change PCT]
 *             [--allow-missing] [--allow-inconclusive] [--out-dir DIR] [--rebuild]
 *             [sph] [ROW OPTIONS]`
 *
 * BASE is this harness built from another revision (ab_build.h); NEW is
 * the running binary. ROW OPTIONS are those of `harness run` (or, after
 * the word sph or with an sph-* suite, of `harness sph run`): both sides
 * run exactly them, in rounds AB BA AB BA ..., so that a drift in clocks
 * or temperature weighs on both sides alike; every run validates each row
 * before timing it. After R rounds, each side's rounds are pooled
 * (ab_pool.h) into DIR/base.csv and DIR/new.csv with their sidecars and
 * judged by compare's rule with a resolution from the rounds (ab_judge.h);
 * while a row is inconclusive and one more round is expected to end
 * within the budget (from the first round's start), a round is added and
 * everything judged again. DIR/verdicts.csv holds each row's verdict,
 * change and resolution; the round files stay in DIR/rounds/.
 *
 * Exit status (enum compare_status): 0 every row compared and decided,
 * none regressed; 1 a regression, or a row of NEW that failed validation
 * or timing; 2 bad input, a failed build, a run that refused the rows or
 * died; 3 rows still inconclusive, rows of BASE missing or failed,
 * variants NEW's runs could not run here (unless allowed), or nothing
 * compared. An interruption (SIGINT, SIGTERM, SIGHUP) stops the running
 * child, removes the worktree and everything written to DIR, and ends by
 * that signal.
 */

/* The subcommand: argv[0] is "ab". Returns the exit status. */
int ab_command(int argc, char **argv);

#endif /* HARNESS_AB_H */
