#!/usr/bin/env bash
# IO500's find phase through pfind, in one walk.
#
# IO500 (io500.ini, section [find]) runs, on rank 0, through the shell:
#   [external-mpi-args] SCRIPT [external-extra-args] DATADIR -newer FILE -size Nc -name GLOB
# and reads the last line of what it prints, `MATCHED found/scanned`. This script
# turns the find expression into pfind's options (--newer FILE, -S Nb, -n GLOB; as
# IO500's own pfind, regular files only), runs pfind once with -c and --stats, and
# prints that line from pfind's count and its entries examined. external-extra-args
# are given to pfind before DATADIR (`-j 8`, say); external-mpi-args should be
# empty: pfind is one process. Set PFIND to the binary to use (default: pfind on
# PATH, else this repository's target/release/pfind).
#
# Exit status: pfind's (IO500 marks a run invalid when it is not 0); 2 when the
# arguments are not the find expression above.
set -uo pipefail

usage() {
    echo "io500-find.sh: $1" >&2
    echo "usage: io500-find.sh [PFIND-OPTIONS...] DATADIR -newer FILE -size Nc -name GLOB" >&2
    exit 2
}

[ $# -ge 7 ] || usage "expected DATADIR -newer FILE -size Nc -name GLOB at the end"
# The last seven words are IO500's; anything before them is external-extra-args.
extra=("${@:1:$#-7}")
set -- "${@: -7}"
datadir=$1
[ "$2" = "-newer" ] || usage "expected -newer after DATADIR, got '$2'"
newer=$3
[ "$4" = "-size" ] || usage "expected -size after -newer FILE, got '$4'"
size=$5
[ "$6" = "-name" ] || usage "expected -name after -size N, got '$6'"
name=$7
# find's -size Nc is exactly N bytes; +Nc and -Nc are strict bounds, which pfind's
# -S +N and -N (at least, at most) are not, so only the exact form is taken.
[[ $size =~ ^[0-9]+c$ ]] || usage "only -size Nc (exactly N bytes) is supported, got '$size'"

if [ -z "${PFIND:-}" ]; then
    if command -v pfind >/dev/null; then
        PFIND=pfind
    else
        PFIND=$(dirname "$0")/../target/release/pfind
    fi
fi

stats=$(mktemp) || exit 1
trap 'rm -f "$stats"' EXIT
found=$("$PFIND" "${extra[@]}" "$datadir" --newer "$newer" -S "${size%c}b" -n "$name" \
    -c --stats 2>"$stats")
status=$?
# pfind's own messages go on to stderr; its statistics are read here.
grep -v -E '^[0-9]+ (matches|entries examined|pieces of giant directories listed)$|^[0-9.]+ seconds$' \
    "$stats" >&2
scanned=$(sed -n 's/^\([0-9]*\) entries examined$/\1/p' "$stats")
[ -n "$found" ] && [ -n "$scanned" ] || exit $((status == 0 ? 1 : status))
echo "MATCHED $found/$scanned"
exit "$status"
