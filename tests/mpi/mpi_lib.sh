#!/usr/bin/env bash
# Shared by mpi_test.sh (the CPU backends, in CI) and mpi_gpu_test.sh (the GPUs): a case run on
# 1 and on RANKS ranks with its physics counters compared, and bad input expected to exit with
# a code and leave no JSON. Sourced with SB and RANKS set; MPI_TEST_ONLY=regex runs the cases
# whose names match.
# CI runs as root in a container: Open MPI refuses root unless told, and has no network.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader \
  OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

if ! "$SB" --version >/dev/null 2>&1; then echo "mpi_test: $SB does not run" >&2; exit 1; fi
if ! command -v mpirun >/dev/null; then echo "mpi_test: mpirun not found (apt-get install openmpi-bin)" >&2; exit 1; fi

# compare NAME FILE1 FILE2 "counter:tol ..." ; tol 0 = exact
compare() {
  python3 - "$@" <<'PY'
import json, sys
name, f1, f2, spec = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
def median(path):
    d = json.load(open(path))
    for b in d["benchmarks"]:
        if b.get("aggregate_name") == "median":
            return b, d["context"]["mpi"]["ranks"]
    sys.exit(f"{path}: no median entry")
a, ra = median(f1)
b, rb = median(f2)
bad = 0
for item in spec.split():
    key, tol = item.rsplit(":", 1)
    tol = float(tol)
    if key not in a or key not in b:
        print(f"  FAIL {name}: counter {key} missing"); bad = 1; continue
    x, y = a[key], b[key]
    ok = x == y if tol == 0 else abs(x - y) <= tol * max(abs(x), abs(y), 1e-300)
    print(f"  {'ok  ' if ok else 'FAIL'} {name}: {key} {ra} rank(s) {x!r}  {rb} ranks {y!r}  ({'exact' if tol == 0 else f'rel {tol:g}'})")
    bad |= not ok
for side, r in ((a, ra), (b, rb)):
    v = side["validation"]
    if not v["passed"] or not v["checks"]:
        print(f"  FAIL {name}: the {r}-rank run's validation failed"); bad = 1
if rb > 1 and not any(c["name"] == "ranks_passing_validation" for c in b["validation"]["checks"]):
    print(f"  FAIL {name}: the {rb}-rank run did not check every rank"); bad = 1
sys.exit(bad)
PY
}

# case NAME "scibench args" "counter:tol ..." [COMM]: with COMM, the many-rank run must have
# moved its data that way (context.mpi.comm: nccl, host, mpi)
case_() {
  local name=$1 args=$2 spec=$3 comm=${4:-}
  [[ "$name" =~ ${MPI_TEST_ONLY:-.} ]] || return 0
  echo "== $name: 1 vs $RANKS ranks"
  # shellcheck disable=SC2086
  if ! timeout "${CASE_LIMIT:-300}" mpirun -n 1 "$SB" run $args --quiet --reps 2 --warmup 1 --json "$tmp/$name.1.json" >"$tmp/$name.1.log" 2>&1; then
    echo "  FAIL $name: 1 rank exited non-zero"; tail -5 "$tmp/$name.1.log"; fail=1; return
  fi
  # shellcheck disable=SC2086
  if ! timeout "${CASE_LIMIT:-300}" mpirun -n "$RANKS" "$SB" run $args --quiet --reps 2 --warmup 1 --json "$tmp/$name.$RANKS.json" \
       --baseline "$tmp/$name.1.json" >"$tmp/$name.$RANKS.log" 2>&1; then
    echo "  FAIL $name: $RANKS ranks exited non-zero"; tail -5 "$tmp/$name.$RANKS.log"; fail=1; return
  fi
  grep -E "^MPI|^  (per rank|communication|efficiency)" "$tmp/$name.$RANKS.log" | sed 's/^/  /'
  compare "$name" "$tmp/$name.1.json" "$tmp/$name.$RANKS.json" "$spec" || fail=1
  [ -z "$comm" ] && return
  local got
  got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["context"]["mpi"]["comm"])' "$tmp/$name.$RANKS.json")
  if [ "$got" = "$comm" ]; then echo "  ok   $name: data between ranks: $got"
  else echo "  FAIL $name: data between ranks: $got, expected $comm"; fail=1; fi
}

# expect NAME CODE PATTERN cmd...: exit CODE and PATTERN in its output; a JSON at $tmp/x.json
# only after success (a failed run leaves none)
expect() {
  local name=$1 code=$2 pat=$3 out rc json=0
  [[ "$name" =~ ${MPI_TEST_ONLY:-.} ]] || return 0
  shift 3
  rm -f "$tmp/x.json"
  out=$(timeout "${CASE_LIMIT:-300}" "$@" --json "$tmp/x.json" 2>&1); rc=$?
  [ -e "$tmp/x.json" ] && json=1
  if [ "$rc" -ne "$code" ] || ! grep -q -- "$pat" <<<"$out" || [ "$json" -ne "$((code == 0))" ]; then
    echo "  FAIL $name: exit $rc (expected $code), '$pat' $(grep -q -- "$pat" <<<"$out" && echo found || echo missing), JSON $([ $json = 1 ] && echo written || echo absent)"
    echo "$out" | tail -3 | sed 's/^/    /'; fail=1
  else
    echo "  ok   $name: exit $code"
  fi
}

