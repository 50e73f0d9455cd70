#!/usr/bin/env bash
# Thirteenth session, call 3 (same machine as call 2): a diagnostic build whose device Boys
# function reads table row 0 for every lane (wrong values, same instructions: one cache line
# per load instead of up to 32), to bound what the Boys table's gathers cost. Validation is
# expected to FAIL; only the per-class times matter.
set -u
cd "$(dirname "$0")/.."
tar xJf carry/bin.txz -C carry
export LD_LIBRARY_PATH=$PWD/carry/libs
R=$OUT/r; mkdir -p $R/json; N=carry/new/scibench
cls() { grep -o '"t_[spd]*": [0-9.e+-]*' $1 | sort -u | sed -E 's/"t_([spd]+)": ([0-9.e+-]+)/\1 \2/' | awk '{printf "%s %.2f  ", $1, $2*1e3}'; echo; }
{
for r in 1 2; do
timeout 120 $N run eri_brush --backend cuda --quiet --reps 3 --param molecule=taxol --param basis=cc-pvdz --json $R/json/exp.r$r.json > $R/json/exp.r$r.txt 2>&1
echo "== exp r$r: $(grep -E '^time' $R/json/exp.r$r.txt | head -1) $(grep -E 'VALIDATION (PASSED|FAILED)' $R/json/exp.r$r.txt)"
cls $R/json/exp.r$r.json
done
} 2>&1 | tee $R/log.txt
cp carry/script-call3.sh $R/script.sh
cd $OUT && tar czf r.tgz r && rm -rf r
