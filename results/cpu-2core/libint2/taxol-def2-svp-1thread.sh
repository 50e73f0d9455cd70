#!/usr/bin/env bash
# taxol/def2-SVP on one core of the development VM: the openmp_simd backend (1 thread), then libint2 2.7 (1 thread), same quartets
cd /work/main
O=/tmp/svp
lscpu | grep -E "Model name|Flags" | cut -c1-120 > $O/cpu.txt
date > $O/log.txt
echo "== openmp_simd 1 thread" >> $O/log.txt
OMP_NUM_THREADS=1 taskset -c 1 build/scibench run eri_brush --backend openmp_simd --size 16 --reps 1 --warmup 0 --quiet --param molecule=taxol --param basis=def2-svp --param oracle=0 --json $O/eri_brush.openmp_simd.16.molecule-taxol.basis-def2-svp.threads-1.json >> $O/log.txt 2>&1
date >> $O/log.txt
echo "== libint2 1 thread" >> $O/log.txt
taskset -c 1 build/tools/eri_libint2 bench --molecule taxol --basis def2-svp --threads 1 --reps 1 --warmup 0 --json $O/eri_brush.libint2.taxol.def2-svp.threads-1.json >> $O/log.txt 2>&1
date >> $O/log.txt
echo finished >> $O/log.txt
