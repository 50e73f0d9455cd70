#!/usr/bin/env bash
# compute-sanitizer over every CUDA kernel: the GPU test binaries, one small validated run of
# each kernel, and the backend's peak probes (scibench info), under each of memcheck,
# racecheck, initcheck and synccheck. Errors are counted from compute-sanitizer's own
# "ERROR SUMMARY: N errors" lines; an item without that line (crashed, timed out) counts as
# failed. Writes OUTDIR/compute-sanitizer.md and .json and one log per tool and item under
# OUTDIR/compute-sanitizer-logs/. Exit 0 only when every item ran, exited 0 and had 0 errors.
#
# Usage (GPU machine, build/ made beforehand with nvcc; `make test-sanitize-gpu` runs it):
#   bash tools/compute_sanitizer.sh [--build DIR] [--out OUTDIR] [--tools "memcheck racecheck ..."]
#        [--items "tests cases probes" or item names] [--timeout S] [--jobs N] [--summarise]
# --items picks item groups (tests: every build/tests/gpu_*; cases: one run per kernel; probes:
# scibench info) or single items by name (gpu_lattice_mc, lattice_mc, ...). --summarise writes
# the summary from the logs in OUTDIR/compute-sanitizer-logs/ (those of several calls, each of
# which ran a share, copied together), on any machine. --jobs runs N items at once (default 1):
# the tools' overhead is mostly on the host, so a many-core GPU machine takes several at a time.
# OUTDIR defaults to $OUT when set (the device's output folder), else results/<machine>.
# CS_EXTRA adds compute-sanitizer options (e.g. CS_EXTRA="--leak-check full"); COMPUTE_SANITIZER
# names the binary (default: the one on PATH, /usr/local/cuda/bin first).
set -u
build=build out="" tools="memcheck racecheck initcheck synccheck" items="tests cases probes" limit=240 only_sum=0 jobs=1
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --items) items=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --summarise) only_sum=1; shift ;;
    *) echo "compute_sanitizer: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
    esac
done
export PATH=/usr/local/cuda/bin:$PATH
# RUNTIME_PREFIX: a folder with usr/bin and usr/lib/x86_64-linux-gnu of the runtime libraries
# the build needs, where the host lacks them
if [ -n "${RUNTIME_PREFIX:-}" ]; then
  export PATH=$RUNTIME_PREFIX/usr/bin:$PATH
  export LD_LIBRARY_PATH=$RUNTIME_PREFIX/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
sb=$build/scibench
if [ $only_sum = 1 ]; then
    [ -n "$out" ] || { echo "compute_sanitizer: --summarise needs --out OUTDIR (the folder of compute-sanitizer-logs/)" >&2; exit 2; }
    logs=$out/compute-sanitizer-logs
    [ -f "$logs/meta.env" ] || { echo "compute_sanitizer: no $logs/meta.env: no logs to summarise" >&2; exit 2; }
else
    [ -x "$sb" ] || { echo "compute_sanitizer: $sb missing (make first, with nvcc)" >&2; exit 2; }
    cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer)} || { echo "compute_sanitizer: compute-sanitizer not on PATH" >&2; exit 2; }
    machine=$("$sb" machine)
    out=${out:-${OUT:-results/$machine}}
    logs=$out/compute-sanitizer-logs
    mkdir -p "$logs"
    # what the summary names, kept beside the logs: logs of several calls summarise anywhere
    {
        printf 'machine=%q\n' "$machine"
        printf 'gpu=%q\n' "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
        printf 'csver=%q\n' "$("$cs" --version 2>/dev/null | grep -Eo 'Version [^ ]+' | head -1)"
        printf 'commit=%q\n' "$("$sb" --version | head -1)"
    } >"$logs/meta.env"
fi

# One small case per kernel (validated: the run must also pass), warm-up and a timed rep: the
# kernel and its arguments. Sizes keep memcheck's 10-100x slowdown to seconds a case (lattice_mc's
# validation runs thousands of sweeps: minutes). *_fused, *_batch: the same kernel with its other
# CUDA kernels (the fused sweep, the batch engine).
declare -A case_args=(
    [lattice_mc]="lattice_mc --size 16 --param sweeps=2"
    [lattice_mc_fused]="lattice_mc --size 16 --param sweeps=2 --param fuse=slab"
    [nlchains]="nlchains --size 64 --param copies=64 --param steps=20 --param batch=10"
    [fullerene_ff]="fullerene_ff --size 60 --param isomers=32 --param oracle=2"
    [eri_brush]="eri_brush --size 1 --param molecule=water --param basis=cc-pvdz --param oracle=2"
    [dfratom_scf]="dfratom_scf --size 12 --param atom=Be"
    [dfratom_scf_batch]="dfratom_scf --size 12 --param atom=Be --param job=batch"
)
case_order="lattice_mc lattice_mc_fused nlchains fullerene_ff eri_brush dfratom_scf dfratom_scf_batch"
# gpu_faults drives whole scibench processes (out of memory, a busy GPU): no kernel of its own;
# gpu_profile runs ncu, which cannot profile a process under a sanitizer (its copy kernel is a
# probe: item probes). SKIP_TESTS leaves out more (names, space-separated).
gpu_tests=$(ls "$build"/tests/gpu_* 2>/dev/null | grep -v '\.d$' | xargs -rn1 basename |
            grep -vxE "gpu_faults|gpu_profile$(printf '|%s' ${SKIP_TESTS:-})")

# Expands --items into item names.
expand() {
    local it
    for it in $items; do
        case $it in
        tests) printf '%s\n' $gpu_tests ;;
        cases) printf '%s\n' $case_order ;;
        probes) echo probes ;;
        *) echo "$it" ;;
        esac
    done
}

# command of an item, as words
item_cmd() {
    case $1 in
    gpu_*) echo "$build/tests/$1" ;;
    probes) echo "$sb info" ;;
    *) [ -n "${case_args[$1]:-}" ] || return 1
       echo "$sb validate ${case_args[$1]} --backend cuda --warmup 1 --reps 1 --quiet" ;;
    esac
}

run_one() {
    local tool=$1 item=$2 cmd log t0 rc
    cmd=$(item_cmd "$item") || { echo "compute_sanitizer: unknown item '$item'" >&2; return 2; }
    log=$logs/$tool.$item.log
    t0=$(date +%s.%N)
    # --error-exitcode: an error fails the process even where the program itself exits 0
    SB_REQUIRE_GPU=1 SB_UNDER_SANITIZER=1 timeout "$limit" "$cs" --tool "$tool" --error-exitcode 86 --print-limit 50 ${CS_EXTRA:-} \
        $cmd >"$log" 2>&1
    rc=$?
    printf '%s\n' "# exit $rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s, command: $cmd" >>"$log"
    echo "$tool $item: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1 | sed 's/^=* *//') ($(tail -1 "$log" | cut -d, -f1,2 | sed 's/^# //'))"
}

if [ $only_sum = 0 ]; then
    for tool in $tools; do
        for item in $(expand); do
            while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
            run_one "$tool" "$item" &
        done
    done
    wait
fi

# ---- summary from every log present ------------------------------------------------------
. "$logs/meta.env"
total=0 bad=0 rows="" json=""
for log in "$logs"/memcheck.*.log "$logs"/racecheck.*.log "$logs"/initcheck.*.log "$logs"/synccheck.*.log; do
    [ -e "$log" ] || continue
    name=$(basename "$log" .log) tool=${name%%.*} item=${name#*.}
    tail=$(tail -1 "$log")
    rc=$(printf '%s' "$tail" | sed -n 's/^# exit \([0-9]*\),.*/\1/p')
    secs=$(printf '%s' "$tail" | sed -n 's/^# exit [0-9]*, \([0-9.]*\) s,.*/\1/p')
    cmd=$(printf '%s' "$tail" | sed -n 's/^# exit [0-9]*, [0-9.]* s, command: //p')
    # racecheck's own line: "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)"
    sums=$( (grep -Eo "ERROR SUMMARY: [0-9]+ error" "$log"; grep -Eo "RACECHECK SUMMARY: .*\([0-9]+ error" "$log" |
             sed 's/.*(//') | grep -Eo "[0-9]+")
    if [ -z "$sums" ]; then
        errors=null status="no ERROR SUMMARY (exit ${rc:-?})"
        bad=$((bad + 1))
    else
        errors=0
        for n in $sums; do errors=$((errors + n)); done
        total=$((total + errors))
        status=ok
        [ "${rc:-1}" = 0 ] || status="exit $rc"
        [ "$errors" = 0 ] || status="errors"
        [ "$status" = ok ] || bad=$((bad + 1))
    fi
    rows+="| $tool | $item | ${errors/null/-} | ${rc:--} | $(printf '%.1f' "${secs:-0}") | $status |"$'\n'
    json+="${json:+,}"$'\n'"    {\"tool\": \"$tool\", \"item\": \"$item\", \"errors\": $errors, \"exit\": ${rc:-null}, \"seconds\": ${secs:-null}, \"command\": \"$cmd\"}"
done
{
    echo "# compute-sanitizer: $machine"
    echo
    echo "GPU $gpu; compute-sanitizer $csver; $commit."
    echo "Generated by tools/compute_sanitizer.sh: every GPU test binary, one validated run of each kernel (warm-up and"
    echo "one timed repetition at a small size) and the peak probes (scibench info), under each tool, with"
    echo "--error-exitcode 86. Errors are the sum of compute-sanitizer's ERROR SUMMARY lines; exit is the process's."
    echo
    echo "| tool | item | errors | exit | time (s) | status |"
    echo "|---|---|---:|---:|---:|---|"
    printf '%s' "$rows"
    echo
    echo "Total: $total errors; $bad item(s) not clean."
} >"$out/compute-sanitizer.md"
printf '{\n  "machine": "%s",\n  "gpu": "%s",\n  "compute_sanitizer": "%s",\n  "scibench": "%s",\n  "total_errors": %d,\n  "items_not_clean": %d,\n  "items": [%s\n  ]\n}\n' \
    "$machine" "$gpu" "$csver" "$commit" "$total" "$bad" "$json" >"$out/compute-sanitizer.json"
echo "compute_sanitizer: $total errors, $bad item(s) not clean; summary in $out/compute-sanitizer.md"
[ "$bad" = 0 ]
