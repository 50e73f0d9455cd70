#!/usr/bin/env bash
# ncu source-level stall sampling of the (dd|dd) shared-memory J-engine kernel, taxol/cc-pVDZ
set -u
cd "$(dirname "$0")/.."
[ -d carry/new ] || tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs
R=$OUT/r; mkdir -p $R
N=carry/new/scibench
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
T="--param molecule=taxol --param basis=cc-pvdz --param oracle=0"
SB_ERI_GRAPH=0 SB_ERI_JE_SMEM=8 timeout 250 $NCU --kernel-name-base mangled --kernel-name "regex:je_quartet_kernel_smemILi4ELi4E" --launch-count 1 \
  --section WarpStateStats --section SourceCounters --section InstructionStats -o $R/dddd \
  $N run eri_brush --backend cuda --size 16 --reps 1 --warmup 0 --quiet $T > $R/ncu_run.txt 2>&1
$NCU -i $R/dddd.ncu-rep --page source --print-source sass --csv > $R/sass.csv 2> $R/sass.err
$NCU -i $R/dddd.ncu-rep --page details > $R/details.txt 2>&1
ls -la $R; head -3 $R/sass.csv | cut -c1-600; wc -l $R/sass.csv; cat $R/sass.err | head
cp carry/eri_ncu3.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
