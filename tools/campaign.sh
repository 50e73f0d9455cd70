#!/usr/bin/env bash
# make campaign [ARGS='...']: this machine's results regenerated at one clean commit.
#   1. refuses a tree with uncommitted changes, and a binary not built from HEAD (a folder is one
#      clean commit: results/README.md);
#   2. the stored peaks: scibench info --runs N --json OUT/peaks.json;
#   3. every case of the case list (the result files directly in FROM: its headline and scan
#      cases, read back with `scibench table`), each under the same file name in OUT, with the
#      same repetitions; with --profile a headline cuda case (tools/headline_cases.txt) and a case
#      whose file holds a profile (as the kernel's --profile counts it: eri_brush as one range). Skipped,
#      and listed: cuda cases without a GPU here, MPI cases (make scaling-mpi, make MPI=1),
#      cases whose parameters name a file (the dfr_bsize workflows: tools/dev/dfr_bsize_bench.sh);
#   4. make report; then the files in OUT that another commit wrote are listed.
# A machine whose cases do not fit one sitting runs the campaign in parts, each with a --from folder of
# its own cases: --peak-runs 0 keeps the peaks.json a first part stored, --no-report leaves the
# report to the last part.
# Usage: tools/campaign.sh [--dry-run] [--from FOLDER] [--out FOLDER] [--peak-runs N] [--no-report] [--repo DIR]
#   --dry-run    print the commands, run nothing (the tree is checked all the same)
#   --from       the case list (default: OUT; a new machine takes another's, e.g. results/h200)
#   --out        where the results go (default results/<scibench machine>)
#   --peak-runs  processes of the peak probes (default 5; 0: keep OUT/peaks.json, which must exist)
#   --no-report  no make report at the end
#   --repo       the work tree that must be clean (default the one holding this script)
# SB names the binary (default build/scibench). Exit: 0; 1 a case failed (the others still
# run); 2 usage (a dirty tree, a binary of another commit, no case list), after one line.
set -u
usage() { echo "campaign: $1" >&2; exit 2; }
dry=0 from= out= peak_runs=5 report=1
repo=$(cd "$(dirname "$0")/.." && pwd)
tools=$(cd "$(dirname "$0")" && pwd)
while [ $# -gt 0 ]; do
    case $1 in
        --dry-run) dry=1 ;;
        --from) from=${2:-}; shift ;;
        --out) out=${2:-}; shift ;;
        --peak-runs) peak_runs=${2:-}; shift ;;
        --no-report) report=0 ;;
        --repo) repo=${2:-}; shift ;;
        *) usage "unknown argument '$1'; usage: tools/campaign.sh [--dry-run] [--from FOLDER] [--out FOLDER] [--peak-runs N] [--no-report] [--repo DIR]" ;;
    esac
    shift
done
case $peak_runs in '' | *[!0-9]*) usage "--peak-runs '$peak_runs' is not a count; accepted: 0..50" ;; esac
[ "$peak_runs" -le 50 ] || usage "--peak-runs $peak_runs is out of range; accepted: 0..50"

# One clean commit: the tree first, dry runs too (what they list is what a run would do).
changes=$(git -C "$repo" status --porcelain 2>/dev/null) || usage "$repo is not a git work tree"
[ -z "$changes" ] || usage "the tree $repo has uncommitted changes ($(printf '%s\n' "$changes" | wc -l) paths): commit or stash them; a campaign's results are one clean commit"
head=$(git -C "$repo" rev-parse --short=12 HEAD)
. "$tools/sblib.sh"
built=$("$SB" --version | head -1 | awk '{print $2}')
if [ "$built" != "$head" ]; then
    [ $dry = 1 ] || usage "$SB is built from $built, the tree is at $head: run make first"
    echo "# $SB is built from $built, not $head: a campaign (not a dry run) refuses it"
fi
machine=$("$SB" machine) || exit 2
out=${out:-results/$machine}
[ "$peak_runs" != 0 ] || [ -f "$out/peaks.json" ] ||
    usage "--peak-runs 0 keeps $out/peaks.json, which does not exist: run a first part with --peak-runs N"
from=${from:-$out}
gpu=0
sb_backend_here cuda && gpu=1

# The case list: a line a case of FROM's top-level result files, its fields split by \x1f (a
# separator no field holds, and no whitespace that read would merge).
cases=$(CAMPAIGN_TOOLS=$tools python3 - "$SB" "$from" "$gpu" <<'PY'
import os, sys
sys.path.insert(0, os.environ["CAMPAIGN_TOOLS"])
import sbresults as sr
sb, src, gpu = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
if not os.path.isdir(src) or not sr.result_files(src):
    sr.fail(f"no case list: {src} holds no result files; name a machine folder with --from (results/h200)")
heads = {os.path.basename(f) for f in sr.headline_files(src)}
for r in sr.table(sb, sr.result_files(src)):
    name = os.path.basename(r["file"])
    params = [kv for kv in r["case_params"].split(";") if kv]
    why = ""
    if r["size"] is None:
        why = "not a scibench case"
    elif r["ranks"] > 1:
        why = f"MPI case on {r['ranks']} ranks: make scaling-mpi (make MPI=1)"
    elif r["backend"] == "cuda" and not gpu:
        why = "cuda: no GPU here"
    elif any("/" in kv.split("=", 1)[1] for kv in params):
        why = "its parameters name a file (a workflow of its own, e.g. tools/dev/dfr_bsize_bench.sh)"
    threads = int(r["threads"]) if r.get("threads") else ""
    reps = int(r["repetitions"]) if r.get("repetitions") else 5
    # the headline cuda cases, and every case whose file holds a profile: a published count stays measured
    profile = "--profile" if (name in heads and r["backend"] == "cuda") or r["profile_tool"] else ""
    print("\x1f".join(str(x) for x in (why or "run", r["kernel"], r["backend"], r["size"], r["seed"], threads, reps,
                                      profile, ";".join(params), name)))
PY
)
rc=$?
[ $rc = 0 ] || exit $rc

fail=0
# do_ [-q] CMD...: the command, printed; run unless a dry run (-q: its stdout dropped)
do_() {
    local quiet=0
    [ "$1" = -q ] && quiet=1 && shift
    printf '%q ' "$@"
    printf '\n'
    [ $dry = 1 ] && return 0
    if [ $quiet = 1 ]; then "$@" >/dev/null; else "$@"; fi
}
echo "# campaign: machine $machine, commit $head, cases of $from, results into $out"
[ $dry = 1 ] || mkdir -p "$out" || exit 2
if [ "$peak_runs" = 0 ]; then
    echo "# peaks: kept $out/peaks.json"
else
    do_ "$SB" info --runs "$peak_runs" --json "$out/peaks.json" || fail=1
fi
while IFS=$'\x1f' read -r why kernel backend size seed threads reps profile params name; do
    if [ "$why" != run ]; then
        echo "# skipped: $kernel $backend $size ${params//;/ } ($name): $why"
        continue
    fi
    args=()
    IFS=';' read -r -a kv <<<"$params"
    for p in "${kv[@]}"; do args+=(--param "$p"); done
    do_ -q env ${threads:+OMP_NUM_THREADS=$threads} "$SB" run "$kernel" --backend "$backend" --size "$size" --seed "$seed" \
        "${args[@]}" --reps "$reps" --quiet $profile --json "$out/$name" || { fail=1; echo "# failed: $name"; }
done <<<"$cases"
# -o: the report must not relink SB, which a tree now holding new results would mark -dirty
[ $report = 0 ] || do_ make -C "$repo" -o "$SB" report SB="$SB" || fail=1
if [ $dry = 0 ]; then
    left=$("$SB" table "$out" | python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin):
    if r["commit"] != sys.argv[1]: print(r["file"] + " (" + r["commit"] + ")")' "$head")
    [ -z "$left" ] || printf '# from another commit, not regenerated (remove them, or the folder stays mixed):\n%s\n' "$left"
fi
exit $fail
