#!/usr/bin/env bash
# dfratom_scf job=bsize on the GPU machine: the basis-size workflow's timings and results.
# Usage: bash tools/dev/dfr_bsize_bench.sh RESULTS_DIR PART [PART ...]
#   compare  Xe Dirac, a shortened workflow (start s(1:M) p(1:M) d(1:M), M = BZ_XE_M, the first
#            BZ_STEPS steps, BZ_EVALS NEWUOA evaluations a candidate): the batched engine (4 padding
#            groups side by side, the default, then one after another), then the same workflow one
#            candidate at a time (batch_engine=sequential), all on cuda; prints the speed-ups (the
#            bar: >= 20x)
#   openmp   the same Xe case on openmp_simd (every core), and batched on cuda again for the ratio
#   groups   the same Xe case, batched on cuda with bsize_groups=1, 2, 8 and 16 (compare has 4), 8
#            with one lane a group (batch_lanes=1), and eigensolver=cusolver
#   ne-nr    Ne nonrelativistic, point nucleus, from s(1:40) p(1:40) against the numerical HF limit
#            (the bar: a smaller basis within 5e-8, local minimality checks passing)
#   he-nr, be-nr, ar-nr   the same against the HF limits;  kr-nr, xe-nr   against the start basis
#   ne-dirac, ar-dirac, xe-dirac   Dirac-Coulomb (Gaussian nucleus) against the start basis
# Every run writes RESULTS_DIR/dfratom_scf.<backend>.bsize.<case>.json and, for the full workflows,
# the final basis RESULTS_DIR/<case>.basis.json, then reads it back with job=scf (the energy must
# repeat to 1e-10). The log, with every step's table of candidates, goes to $OUT/bsize.log.
# A run that passes BZ_LIMIT seconds (default 540) is stopped; a device command allows 600 s in all,
# so give one command only as many parts as fit (see kernels/dfratom_scf/BSIZE.md for estimates).
# Environment: SB (default build/scibench), BZ_XE_M (24), BZ_STEPS (4), BZ_EVALS (20),
# BZ_MEM (GiB of tensors in flight for the M = 40 Dirac runs, default 32).
set -u
res=${1:?usage: dfr_bsize_bench.sh RESULTS_DIR PART [PART ...]}
shift
[ $# -gt 0 ] || { echo "usage: dfr_bsize_bench.sh RESULTS_DIR PART [PART ...]" >&2; exit 2; }
SB=${SB:-build/scibench}
out=${OUT:-/tmp/sb_out}
lim=${BZ_LIMIT:-540}
xm=${BZ_XE_M:-24} steps=${BZ_STEPS:-4} evals=${BZ_EVALS:-20} mem=${BZ_MEM:-32}
mkdir -p "$res" "$out"
exec > >(tee -a "$out/bsize.log") 2>&1
export OMP_PROC_BIND=close OMP_PLACES=cores
fail=0
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)"
git log -1 --format='commit %h %s' 2>/dev/null

# bz NAME BACKEND [--param ...]: one workflow; its tables, summary and checks into the log
bz() {
  local name=$1 be=$2 rc
  shift 2
  echo "== $name on $be: $*"
  timeout "$lim" "$SB" run dfratom_scf --backend "$be" --reps 1 --warmup 0 --param job=bsize "$@" \
    --json "$res/dfratom_scf.$be.bsize.$name.json" >"$out/bsize-$name.txt" 2>&1
  rc=$?
  grep -vE "^  (kernel|size|repetitions|seed|params|CPU|GPU) |^(machine|bandwidth|FLOP|OpenMP|CUDA|scibench run)|^  dirac_one_electron" \
    "$out/bsize-$name.txt"
  if [ $rc != 0 ]; then
    echo "!! $name on $be: exit $rc$([ $rc = 124 ] && echo ", stopped after $lim s")"
    fail=1
  fi
}

# full NAME BACKEND "CASE" ["WORKFLOW"]: a whole workflow from s(1:40) .. for the case's parameters
# (atom, Hamiltonian, nucleus), its basis written, then job=scf in that basis (energy to 1e-10)
full() {
  local name=$1 be=$2 case=$3 extra=${4:-}
  # shellcheck disable=SC2086
  bz "$name" "$be" $case $extra --param bsize_out="$res/$name.basis.json"
  [ -f "$res/$name.basis.json" ] || return
  echo "== $name: job=scf in $res/$name.basis.json"
  # shellcheck disable=SC2086
  "$SB" validate dfratom_scf --backend "$be" --quiet $case --param basis="$res/$name.basis.json" |
    grep -E "^  (energy |basis_functions|hf_limit_dev|pyscf_dhf)|basis_file_energy|dirac_fock_same_basis|VALIDATION" ||
    fail=1
}

# time_of JSON: the repetition's seconds
time_of() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); b=[x for x in d['benchmarks'] if x.get('aggregate_name')=='median'][0]; print(b['real_time']*{'ns':1e-9,'us':1e-6,'ms':1e-3,'s':1}[b['time_unit']])" "$1"; }

ratio() {
  local a=$res/dfratom_scf.$1.bsize.$2.json b=$res/dfratom_scf.$3.bsize.$4.json
  [ -f "$a" ] && [ -f "$b" ] || return
  python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'speed-up: {a:.2f} s / {b:.2f} s = {a/b:.1f}x')" \
    "$(time_of "$a")" "$(time_of "$b")"
}

XE=(--param atom=Xe --param bsize_max="$xm" --param bsize_steps="$steps" --param bsize_evals="$evals" --param bsize_local=0)
NR="--param hamiltonian=schrodinger --param nucleus=point"
for part in "$@"; do
case $part in
compare)
  bz xe-dirac-short cuda "${XE[@]}"
  bz xe-dirac-short-side0 cuda "${XE[@]}" --param bsize_side=0
  bz xe-dirac-short-sequential cuda "${XE[@]}" --param batch_engine=sequential
  echo "Xe Dirac, shortened workflow, cuda, one candidate at a time against batched (4 padding groups side by"
  echo "side, then one after another):"
  ratio cuda xe-dirac-short-sequential cuda xe-dirac-short
  ratio cuda xe-dirac-short-sequential cuda xe-dirac-short-side0
  ;;
openmp)
  bz xe-dirac-short-openmp openmp_simd "${XE[@]}"
  bz xe-dirac-short cuda "${XE[@]}"
  echo "Xe Dirac, shortened workflow, openmp_simd batched against cuda batched:"
  ratio openmp_simd xe-dirac-short-openmp cuda xe-dirac-short
  ;;
groups)
  for g in 1 2 8 16; do bz "xe-dirac-short-groups$g" cuda "${XE[@]}" --param bsize_groups=$g; done
  bz xe-dirac-short-groups8-lanes1 cuda "${XE[@]}" --param bsize_groups=8 --param batch_lanes=1
  bz xe-dirac-short-cusolver cuda "${XE[@]}" --param eigensolver=cusolver
  ;;
he-nr | be-nr | ne-nr | ar-nr)
  a=${part%-nr}
  full "$part" cuda "--param atom=${a^} $NR"
  ;;
kr-nr | xe-nr)
  a=${part%-nr}
  full "$part" cuda "--param atom=${a^} $NR" "--param bsize_ref=large"
  ;;
ne-dirac | ar-dirac | xe-dirac)
  a=${part%-dirac}
  full "$part" cuda "--param atom=${a^}" "--param batch_mem=$mem"
  ;;
*)
  echo "dfr_bsize_bench: unknown part $part (compare, openmp, groups, <atom>-nr for he be ne ar kr xe," \
    "<atom>-dirac for ne ar xe)" >&2
  fail=1
  ;;
esac
done
if [ $fail = 0 ]; then echo "dfr_bsize_bench $*: finished"; else echo "dfr_bsize_bench $*: finished, with failures above"; fi
exit $fail
