#!/usr/bin/env bash
# Each kernel's headline case with --profile: timed repetitions, then one repetition read
# by hardware counters; JSON into OUTDIR as `make results` names it, the report on stdout.
# Usage: tools/profile_kernels.sh OUTDIR BACKEND [KERNEL ...]   (default: all five)
# BACKEND cuda needs ncu (PATH or SB_NCU); openmp_simd and reference need PAPI counters
# (a machine without them prints one line per run and writes JSON without a profile).
set -u
out=${1:?outdir}; backend=${2:?backend}; shift 2
sb=${SB:-build/scibench}
kernels=${*:-lattice_mc nlchains fullerene_ff eri_brush dfratom_scf}
mkdir -p "$out"
fail=0
# kernel size tag args: the cases the kernel READMEs headline
case_args() {
  case "$1.$backend" in
    lattice_mc.*) echo "256 ''" ;;
    nlchains.cuda) echo "1024 ''" ;;
    nlchains.*) echo "1024 .copies-1024 --param copies=1024" ;;
    fullerene_ff.cuda) echo "200 .fill-10000 --param fill=10000" ;;
    fullerene_ff.*) echo "60 .isomers-all --param isomers=all" ;;
    eri_brush.cuda) echo "16 .molecule-taxol.basis-cc-pvdz --param molecule=taxol --param basis=cc-pvdz" ;;
    eri_brush.*) echo "16 .molecule-benzene.basis-cc-pvdz --param molecule=benzene --param basis=cc-pvdz" ;;
    dfratom_scf.*) echo "30 .job-fock --param job=fock" ;;
  esac
}
for k in $kernels; do
  read -r size tag args <<< "$(case_args "$k")"
  tag=${tag//\'/}
  echo "== $k $backend $size $args"
  # shellcheck disable=SC2086
  timeout "${PROFILE_LIMIT:-300}" "$sb" run "$k" --backend "$backend" --size "$size" --reps 5 --quiet --profile $args \
    --json "$out/$k.$backend.$size$tag.json" || { echo "FAILED: $k (exit $?)"; fail=1; }
done
exit $fail
