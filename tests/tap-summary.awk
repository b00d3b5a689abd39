# tap-summary.awk - make test's closing lines from Criterion's TAP reports: skips by reason, totals
#
# Usage: awk -f tests/tap-summary.awk build/tests-gpu.tap build/tests.tap
# A skipped test's reason is its cr_skip_test message; messages that differ
# only before their last ": " (the variant or test named first) are one
# reason, so "sph-gpu-brute cannot run here: no CUDA driver ..." and
# "no GPU here: no CUDA driver ..." count together.
/^ok - / {
	if (match($0, /# SKIP /)) {
		why = substr($0, RSTART + RLENGTH)
		if (why == "test was skipped")
			why = "not selected (--filter)"
		else
			while (match(why, /: /))
				why = substr(why, RSTART + RLENGTH)
		skipped++
		reasons[why]++
	} else {
		passed++
	}
	next
}
/^not ok - / { failed++ }
END {
	total = passed + failed + skipped
	if (skipped == 0) {
		print "skipped: none of " total " tests"
	} else {
		print "skipped: " skipped " of " total " tests, so this run is not complete:"
		for (why in reasons)
			printf "  %5d  %s\n", reasons[why], why
	}
	printf "tests: %d passed, %d failed, %d skipped\n", passed, failed, skipped
}
