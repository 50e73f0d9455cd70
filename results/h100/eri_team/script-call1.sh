#!/usr/bin/env bash
# Two lanes a quartet for (dp|dp) and (dd|dd) (je_quartet_kernel_team): GPU tests, five libint2
# validations, A/B on taxol/cc-pVDZ against c4eff2c (old) and SB_ERI_JE_TEAM=0, ncu of team<4>.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs OMP_PROC_BIND=close OMP_PLACES=cores
R=$OUT/r; mkdir -p $R/val $R/json; N=carry/new/scibench O=carry/old/scibench
{
nvidia-smi --query-gpu=name --format=csv,noheader
$N --version | head -1; $O --version | head -1
echo "== gpu_eri_brush"; SB_REQUIRE_GPU=1 timeout 200 carry/new/gpu_eri_brush 2>&1 | grep -E "PASS|FAIL|rror|lanes"
for c in water.cc-pvdz benzene.cc-pvdz vitamin_c.cc-pvdz water.cc-pvtz benzene.cc-pvtz; do
  m=${c%%.*} b=${c#*.}
  timeout 100 $N validate eri_brush --backend cuda --param molecule=$m --param basis=$b > $R/val/$c.txt 2>&1
  echo "== validate cuda $c: $(grep -c ' PASS ' $R/val/$c.txt) PASS, $(grep -c ' FAIL ' $R/val/$c.txt) FAIL, $(grep -E 'VALIDATION (PASSED|FAILED)' $R/val/$c.txt)"
done
for round in 1 2; do
  for v in old new team0; do
    B=$N; env=""; [ $v = old ] && B=$O; [ $v = team0 ] && env="SB_ERI_JE_TEAM=0"
    echo "== round $round $v taxol/cc-pvdz"
    env $env timeout 150 $B run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/$v.taxol.r$round.json 2>&1 | grep -E "^time|VALIDATION (PASSED|FAILED)|rror"
    grep -o '"t_d[dp]d[dp]": [0-9.e+-]*' $R/json/$v.taxol.r$round.json | tr '\n' ' '; echo
  done
done
$N run eri_brush --backend cuda --quiet --reps 1 --param molecule=taxol --param basis=cc-pvdz 2>&1 | grep -i "team\|smem (dd"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
SB_ERI_GRAPH=0 timeout 200 $NCU --kernel-name-base mangled --kernel-name "regex:je_quartet_kernel_teamILi4E" --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats --section LaunchStats \
  --section ComputeWorkloadAnalysis --section InstructionStats -o $R/team4 \
  $N run eri_brush --backend cuda --size 16 --reps 1 --warmup 0 --quiet --param molecule=taxol --param basis=cc-pvdz --param oracle=0 > $R/ncu_run.txt 2>&1
$NCU -i $R/team4.ncu-rep --page details > $R/ncu-team4.txt 2>&1
grep -E "Duration|Registers|Achieved Active|Theoretical Active|Warp Cycles Per Issued|Executed Ipc A|Block Limit" $R/ncu-team4.txt
} 2>&1 | tee $R/log.txt
cp carry/eri_team1.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
