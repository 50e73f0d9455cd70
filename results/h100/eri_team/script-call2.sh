#!/usr/bin/env bash
# Two lanes a quartet, second version (the ket's lanes add directly, the bra's run sums over
# the first half-warp only): GPU tests, three libint2 validations, A/B on taxol/cc-pVDZ against SB_ERI_JE_TEAM=0
# and the same code with __launch_bounds__(32, 9) (minb9), ncu by source line.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val $R/json; N=carry/new/scibench O=carry/old/scibench M=carry/minb9/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "PASS|FAIL|rror|lanes"
for c in benzene.cc-pvdz vitamin_c.cc-pvdz water.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
SB_ERI_JE_TEAM=1 timeout 100 $M validate eri_brush --backend cuda --param molecule=benzene --param basis=cc-pvdz 2>&1 | grep -E "VALIDATION (PASSED|FAILED)" | sed 's/^/minb9 benzene: /'
for round in 1 2; do
  for v in team0 new minb9; do
    B=$N; env=""; [ $v = team0 ] && env="SB_ERI_JE_TEAM=0"; [ $v = minb9 ] && B=$M
    echo "== round $round $v taxol/cc-pvdz"
    env $env timeout 150 $B run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/$v.taxol.r$round.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|rror"
    grep -o '"t_d[dp]d[dp]": [0-9.e+-]*' $R/json/$v.taxol.r$round.json | sort -u | tr '\n' ' '; echo
  done
done
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for v in new minb9; do
B=$N; [ $v = minb9 ] && B=$M
SB_ERI_GRAPH=0 timeout 200 $NCU --kernel-name-base mangled --kernel-name "regex:je_quartet_kernel_teamILi4E" --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats --section LaunchStats \
  --section ComputeWorkloadAnalysis --section InstructionStats --section SourceCounters -o $R/team4-$v \
  $B run eri_brush --backend cuda --size 16 --reps 1 --warmup 0 --quiet --param molecule=taxol --param basis=cc-pvdz --param oracle=0 > $R/ncu_run-$v.txt 2>&1
$NCU -i $R/team4-$v.ncu-rep --page details > $R/ncu-team4-$v.txt 2>&1
echo "== ncu $v"; grep -E "Duration|Registers Per|Achieved Active|Theoretical Active|Warp Cycles Per Issued|Executed Ipc A|Executed Instructions  |highest-utilized" $R/ncu-team4-$v.txt
done
$NCU -i $R/team4-new.ncu-rep --page source --print-source cuda --csv > $R/src-cuda.csv 2> $R/src-cuda.err
$NCU -i $R/team4-new.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $R/sass.csv.gz
wc -l $R/src-cuda.csv; head -c 600 $R/src-cuda.err
} 2>&1 | tee $R/log.txt
rm -f $R/*.ncu-rep.unused
cp carry/eri_team2.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
