#!/usr/bin/env bash
# ncu on the J engine's shared-memory kernels, taxol/cc-pVDZ: (dd|dd) (4,4) and (dd|dp) (4,3)
set -u
cd "$(dirname "$0")/.."
[ -d carry/new ] || tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs
R=$OUT/r; mkdir -p $R
N=carry/new/scibench
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
T="--param molecule=taxol --param basis=cc-pvdz --param oracle=0"
for ks in "je_quartet_kernel_smemILi4ELi4E:8" "je_quartet_kernel_smemILi4ELi3E:7"; do
  k=${ks%:*}; sm=${ks##*:}
  SB_ERI_GRAPH=0 SB_ERI_JE_SMEM=$sm timeout 250 $NCU --kernel-name-base mangled --kernel-name "regex:$k" --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section InstructionStats --section Occupancy --section LaunchStats --section SchedulerStats \
    $N run eri_brush --backend cuda --size 16 --reps 1 --warmup 0 --quiet $T > $R/ncu_$sm.txt 2>&1
  grep -n "Section:\|  [A-Z].* [0-9]" $R/ncu_$sm.txt | grep -v "^[0-9]*:  [a-z_]" | tail -120
done 2>&1 | tee $R/ncu.txt
cp carry/eri_ncu2.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
