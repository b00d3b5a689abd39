#!/usr/bin/env bash
# readme-walkthrough.sh - runs the README's walk-through without a GPU, line by line, into a log
#
# Usage: tests/readme-walkthrough.sh [LOG]   (default LOG: results/dev-cpu/logs/without-gpu.log)
#
# From the repository root, after make: takes the command lines of the
# README block marked `<!-- checked: tests/test_readme.c without-gpu -->`
# and runs each in turn with bash (outputs go where the README says:
# results/local/, plots/out/), logging for each
#
#   $ THE LINE AS THE README HAS IT
#   ... the last lines of its output ...
#   # exit STATUS after SECONDS s
#
# then the machine it ran on. tests/test_readme.c holds the block to the
# log: every line of it ran and exited 0. The exit status is the number
# of lines that failed (0: all passed).
set -u
log=${1:-results/dev-cpu/logs/without-gpu.log}
marker='<!-- checked: tests/test_readme.c without-gpu -->'
[ -f README.md ] && [ -x bin/harness ] || { echo "run from the repository root after make" >&2; exit 2; }
mapfile -t lines < <(awk -v m="$marker" '
	$0 == m { want = 1; next }
	want && /^```/ { if (open) exit; open = 1; next }
	open && NF { print }' README.md)
[ ${#lines[@]} -gt 0 ] || { echo "README.md has no block '$marker'" >&2; exit 2; }
mkdir -p "$(dirname "$log")"
# the lines run as the README has them: nothing of the environment is
# set here (mpirun's permission to run as root is on its line)
unset OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
tmp=$log.tmp
failed=0
{
	echo "# the README's walk-through without a GPU, at $(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
	     "$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo '(with uncommitted changes)')"
	echo "# on $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1), $(nproc) cores," \
	     "$(command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | head -n1 || echo 'no GPU')," \
	     "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$tmp"
for line in "${lines[@]}"; do
	cmd=${line%%  #*}   # the README's comment after two spaces is not run
	echo "\$ $line" >> "$tmp"
	t0=$SECONDS
	out=$(bash -c "$cmd" 2>&1 </dev/null)
	st=$?
	secs=$((SECONDS - t0))
	printf '%s\n' "$out" | tail -n 6 >> "$tmp"
	echo "# exit $st after $secs s" >> "$tmp"
	echo "$secs s, exit $st: $line"
	[ "$st" -eq 0 ] || failed=$((failed + 1))
done
mv "$tmp" "$log"
echo "wrote $log ($failed of ${#lines[@]} lines failed)"
exit "$failed"
