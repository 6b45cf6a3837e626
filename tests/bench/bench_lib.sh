# Helpers shared by the benchmark scripts (sourced, not run).

# median FILE / minimum FILE: of the numbers in FILE, one per line.
median() { sort -g "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
minimum() { sort -g "$1" | head -n 1; }

# rotate N A B C ...: the words starting N places on, so that round N of an
# interleaved benchmark runs its configurations in another order and none is
# always the one after a traced run (its page cache and writeback).
rotate() {
    n=$1; shift
    awk -v n="$n" 'BEGIN {c = ARGC - 1; for (i = 0; i < c; i++) printf "%s ", ARGV[1 + (i + n) % c]; print ""}' "$@"
}
