#!/bin/sh
# slurm-array.sh — a sharesim sweep, validation grid or cluster study as a Slurm array job,
# without MPI (docs/distributed.md). Task I of an array of N runs the items p with p mod N = I
# (`--shard I/N`) into a shard directory; one more job, started when every task has
# succeeded, merges the shards into exactly the files one run would have written.
#
#   jid=$(sbatch --parsable --array=0-15 scripts/slurm-array.sh SHARDS sweep SCENARIO \
#             --set PATH=VALUES … --out DIR)
#   sbatch --dependency=afterok:$jid scripts/slurm-array.sh SHARDS --merge sweep SCENARIO \
#             --set PATH=VALUES … --out DIR
#
#   jid=$(sbatch --parsable --array=0-31 scripts/slurm-array.sh SHARDS validate)
#   sbatch --dependency=afterok:$jid scripts/slurm-array.sh SHARDS --merge validate \
#             --markdown results/validation.md
#
#   jid=$(sbatch --parsable --array=0-9 scripts/slurm-array.sh SHARDS cluster SCENARIO)
#   sbatch --dependency=afterok:$jid scripts/slurm-array.sh SHARDS --merge cluster SCENARIO \
#             --json study.json --csv alloc.csv
#
# SHARDS is a directory on a filesystem every node sees (created if missing): task I writes
# SHARDS/I (a sweep's --out) or SHARDS/I.partial (validate's and cluster's --partial)
# there, and the merge reads them all. Everything after SHARDS [--merge] is the sharesim
# command line, the same for every task and for the merge: the script only rewrites a
# sweep's --out DIR to SHARDS/I, and drops the report options in the array tasks (a shard
# writes no report): validate's --json, --markdown and --csv, cluster's --json, --csv,
# --csv-frag and --csv-frag-ratio. The array must be numbered from 0 (--array=0-(N-1)); N is Slurm's
# SLURM_ARRAY_TASK_COUNT, or SHARESIM_SHARD_COUNT when set: a task that failed or was
# cancelled is rerun alone with SHARESIM_SHARD_COUNT=N sbatch --array=I … (an array of one
# task would otherwise count 1), and a sweep shard resumes, keeping its finished points.
#
# Environment: SHARESIM (default: sharesim on PATH) is the binary. Each task uses the cores
# Slurm gives it (--cpus-per-task) as --jobs.
#
#SBATCH --job-name=sharesim
#SBATCH --cpus-per-task=1
#SBATCH --output=sharesim-%A_%a.log
set -eu

usage() {
    sed -n '2,32s/^# \{0,1\}//p' "$0" >&2
    exit 2
}

[ $# -ge 2 ] || usage
shards=$1
shift
merge=0
if [ "$1" = "--merge" ]; then
    merge=1
    shift
fi
[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
sweep | validate | cluster) ;;
*)
    echo "slurm-array.sh: expected sweep, validate or cluster, got \"$cmd\"" >&2
    exit 2
    ;;
esac
bin=${SHARESIM:-sharesim}
jobs=${SLURM_CPUS_PER_TASK:-1}

if [ $merge = 1 ]; then
    if [ "$cmd" = sweep ]; then
        # sweep SCENARIO … --out DIR --merge SHARDS/0 SHARDS/1 …, in task order
        set -- "$@" --jobs "$jobs" --merge
        n=0
        while [ -d "$shards/$n" ]; do
            set -- "$@" "$shards/$n"
            n=$((n + 1))
        done
    else
        set -- "$@" --merge
        n=0
        while [ -f "$shards/$n.partial" ]; do
            set -- "$@" "$shards/$n.partial"
            n=$((n + 1))
        done
    fi
    [ $n -gt 0 ] || { echo "slurm-array.sh: no shard in $shards" >&2; exit 2; }
    exec "$bin" "$cmd" "$@"
fi

task=${SLURM_ARRAY_TASK_ID:?"slurm-array.sh: not an array task (sbatch --array=0-N ...)"}
count=${SHARESIM_SHARD_COUNT:-${SLURM_ARRAY_TASK_COUNT:?"slurm-array.sh: SLURM_ARRAY_TASK_COUNT is not set"}}
mkdir -p "$shards"

# The same arguments with --out rewritten (sweep) or the report options dropped (validate,
# cluster).
n=$#
i=0
while [ $i -lt $n ]; do
    a=$1
    shift
    i=$((i + 1))
    case $cmd:$a in
    sweep:--out)
        shift
        i=$((i + 1))
        set -- "$@" --out "$shards/$task"
        ;;
    sweep:--out=*) set -- "$@" --out "$shards/$task" ;;
    validate:--json | validate:--markdown | validate:--csv | cluster:--json | cluster:--csv | \
        cluster:--csv-frag | cluster:--csv-frag-ratio)
        shift
        i=$((i + 1))
        ;;
    validate:--json=* | validate:--markdown=* | validate:--csv=* | cluster:--json=* | \
        cluster:--csv=* | cluster:--csv-frag=* | cluster:--csv-frag-ratio=*) ;;
    *) set -- "$@" "$a" ;;
    esac
done
if [ "$cmd" = sweep ]; then
    exec "$bin" sweep "$@" --jobs "$jobs" --shard "$task/$count"
else
    exec "$bin" "$cmd" "$@" --jobs "$jobs" --shard "$task/$count" --partial "$shards/$task.partial"
fi
