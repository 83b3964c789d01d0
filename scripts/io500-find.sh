#!/usr/bin/env bash
# IO500's find phase through pfind, in one walk.
#
# IO500 (io500.ini, section [find]) runs, on rank 0, through the shell:
#   [external-mpi-args] SCRIPT [external-extra-args] DATADIR -newer FILE -size Nc -name GLOB
# and reads the last line of what it prints, `MATCHED found/scanned`. This script
# turns the find expression into pfind's options (--newer FILE, -S Nb, -n GLOB; as
# IO500's own pfind, regular files only), runs pfind once with -c and --stats, and
# prints that line from pfind's count and its entries examined. external-extra-args
# are given to pfind before DATADIR (`-j 8`, say). With pfind, external-mpi-args
# is empty: pfind is one process. With pfind-mpi (PFIND=pfind-mpi), it is the
# launcher (`mpirun -np 8`, `srun -n 8`): every rank runs this script, each one
# pfind-mpi rank, and rank 0 alone prints the line. Set PFIND to the binary to use
# (default: pfind on PATH, else this repository's target/release/pfind; which one
# is said on stderr).
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

# Under pfind-mpi, ranks other than 0 print nothing: they end with its status.
rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-${SLURM_PROCID:-0}}}}
if [ -z "${PFIND:-}" ]; then
    if PFIND=$(command -v pfind); then
        why="on PATH"
    else
        PFIND=${0%/*}/../target/release/pfind
        why="this repository's build: no pfind on PATH"
    fi
    # Which one is run, once (issue 51); IO500 reads stdout's last line only.
    [ "$rank" != 0 ] || echo "io500-find.sh: pfind: $PFIND ($why)" >&2
fi

# One process besides the shell: pfind's count (stdout) and its statistics and
# messages (stderr) come back in one capture, read with the shell's own builtins
# (mktemp, grep and sed cost 10-20 ms, a tenth of a walk of 400,000 entries).
output=$("$PFIND" "${extra[@]}" "$datadir" --newer "$newer" -S "${size%c}b" -n "$name" \
    -c --stats 2>&1)
status=$?
found="" scanned=""
while IFS= read -r line; do
    case $line in
        *[!0-9]* | "") ;;
        *) found=$line; continue ;;
    esac
    case $line in
        *" entries examined") scanned=${line% entries examined} ;;
        *" matches" | *" pieces of giant directories listed" | *" workers" | *" seconds") ;;
        *) printf '%s\n' "$line" >&2 ;;
    esac
done <<<"$output"
[ "$rank" = 0 ] || exit "$status"
[ -n "$found" ] && [ -n "$scanned" ] || exit $((status == 0 ? 1 : status))
echo "MATCHED $found/$scanned"
exit "$status"
