#!/usr/bin/env bash
# Fourteenth session, call 8 (40f85a2 build): the nonrelativistic limit for Be, Ar and Kr (point
# nucleus, hamiltonian=schrodinger) in large even-tempered bases against the numerical HF limits.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
NR="--param hamiltonian=schrodinger --param nucleus=point"
sel() { grep -E "^(time|machine|  GPU)|hf_limit|hartree_fock_limit|scf_iterations|VALIDATION (PASSED|FAILED)|FAIL|rror"; }
run() { local name=$1; shift; echo "== $name"; timeout 150 $N run dfratom_scf --backend cuda --reps 1 --warmup 0 $NR "$@" --json $R/json/$name.json > $R/$name.txt 2>&1; echo "rc $?"; sel < $R/$name.txt; }
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
run be.30 --size 30 --param atom=Be --param beta=1.8
run be.40 --size 40 --param atom=Be --param beta=1.6 --param alpha=0.03
run ar.34 --size 34 --param atom=Ar --param beta=1.8 --param np=30
run ar.40 --size 40 --param atom=Ar --param beta=1.7 --param alpha=0.03 --param np=34
run kr.50 --size 50 --param atom=Kr --param beta=1.65 --param alpha=0.02 --param np=42 --param nd=34
run kr.60 --size 60 --param atom=Kr --param beta=1.55 --param alpha=0.015 --param np=50 --param nd=40
} 2>&1 | tee $R/log.txt
cp carry/script-call8.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
