#!/usr/bin/env bash
# Compile time of every file of a full build: wall seconds, CPU seconds (user + sys, the
# compiler's children such as cicc and ptxas included) and peak memory of each compiler
# call, the top N by CPU time, and the build's own wall and CPU time. Builds from scratch
# into a scratch directory, so the working build/ is left alone.
# Usage: tools/dev/compile_times.sh [N [JOBS [make arguments...]]]   (defaults 10 and nproc)
# e.g.  tools/dev/compile_times.sh 10 2 CUDA=0
# Environment: TIMES_BUILD (default build-times; removed first), CUDA_HOME as the Makefile's.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=${1:-10}
jobs=${2:-$(nproc)}
shift $(($# < 2 ? $# : 2))
dir=${TIMES_BUILD:-build-times}
case "$dir" in build | "" | / | .) echo "$0: TIMES_BUILD=$dir would remove a build in use" >&2; exit 2 ;; esac
[[ $top =~ ^[0-9]+$ && $jobs =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [N [JOBS [make arguments]]]" >&2; exit 2; }
rm -rf "$dir"
mkdir -p "$dir"
log=$(realpath "$dir")/compile-times.tsv
wrap=$(realpath "$dir")/timed
# one line per call: wall, user, sys, peak RSS (kB), output file (the argument after -o)
cat >"$wrap" <<EOF
#!/usr/bin/env bash
out=?; prev=
for a in "\$@"; do [ "\$prev" = -o ] && out=\$a; prev=\$a; done
exec /usr/bin/time -a -o "$log" -f "%e	%U	%S	%M	\$out" "\$@"
EOF
chmod +x "$wrap"
nvcc=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}/bin/nvcc
cuda=$([ -x "$nvcc" ] && echo 1 || echo 0)
/usr/bin/time -o "$dir/make-time" -f "%e %U %S" \
  make -s -j"$jobs" BUILD="$dir" CC="$wrap gcc" CXX="$wrap g++" NVCC="$wrap $nvcc" CUDA="$cuda" "$@" \
  all tests eri-libint2 >"$dir/make.log" 2>&1 || { tail -20 "$dir/make.log"; exit 1; }
read -r wall user sys <"$dir/make-time"
printf 'build: %.0f s wall, %.1f CPU-min (user + sys), -j%s, %s cores, load average at the end %s\n' \
  "$wall" "$(echo "($user + $sys) / 60" | bc -l)" "$jobs" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-52s %8s %8s %8s\n' "file (top $top by CPU time)" "wall s" "CPU s" "peak MB"
awk -F'\t' 'NF == 5 && $5 != "?"' "$log" | awk -F'\t' -v d="$dir/" '{sub("^" d "(obj/)?", "", $5); printf "%s\t%.1f\t%.1f\t%.0f\n", $5, $1, $2 + $3, $4 / 1024}' |
  sort -t$'\t' -k3,3 -gr | head -n "$top" | awk -F'\t' '{printf "%-52s %8s %8s %8s\n", $1, $2, $3, $4}'
echo "(every call: $log)"
