#!/usr/bin/env bash
# after warp aggregation (6f... build = "new"): per-class times of taxol/cc-pVDZ under other
# choices, to see which tuning the aggregation moved: path=jeng/hgp/md, HGP caps off or doubled.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
UNCAP="2:0,3:0,4:0,5:0,7:0,8:0:0,9:0:0,10:0,11:0,12:0:0,13:0:0,15:0:0,16:0"
DOUBLE="2:12,3:12,4:8,5:4,7:12,8:4:6,9:6:4,10:12,11:6,12:0:4,13:0:6,15:6:4,16:6"
{
nvidia-smi --query-gpu=name --format=csv,noheader
for round in 1 2; do
for v in auto jeng hgp md uncap double; do
  env=""; p=auto
  case $v in jeng|hgp|md) p=$v;; uncap) env="SB_ERI_BPS=$UNCAP";; double) env="SB_ERI_BPS=$DOUBLE";; esac
  echo "== round $round $v taxol"
  env $env timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --param path=$p --json $R/json/$v.taxol.r$round.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|error"
done
done
for v in auto jeng; do
  echo "== $v water64"
  timeout 150 $N run eri_brush --backend cuda --quiet --reps 3 --size 64 --param path=$v --json $R/json/$v.water64.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|error"
  echo "== $v benzene/cc-pvtz"
  timeout 150 $N run eri_brush --backend cuda --quiet --reps 5 --param molecule=benzene --param basis=cc-pvtz --param path=$v --json $R/json/$v.benzene-tz.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|error"
done
} 2>&1 | tee $R/log.txt
cp carry/eri_tune1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
