# Helpers shared by the benchmark scripts (sourced from the repository's
# root: `. benches/common.sh`).

# The median of the numbers on stdin, one per line (the mean of the middle
# two for an even count).
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# The median of the numbers given as arguments (a list of runs' figures
# gathered in a string: `median_of $runs`).
median_of() { printf '%s\n' "$@" | median; }

# The N of the last "Calibration result: N static evaluations/second." line
# on stdin (gnubg's and bgkit's calibrate; gnubg's progress lines end in \r).
calibration_figure() { tr '\r' '\n' | sed -n 's/^Calibration result: \([0-9]*\) static evaluations\/second\.$/\1/p' | tail -1; }
