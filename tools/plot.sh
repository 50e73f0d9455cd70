#!/usr/bin/env bash
# make plot: pictures from the committed results (results/<machine>/*.json; results/ci/ is a
# CI baseline, not a result set, and is left out):
#   results/throughput.{svg,png}          items/s vs size, one panel per kernel, a line per
#                                         machine and backend (bars: slowest..fastest repetition)
#   results/roofline-<machine>.{svg,png}  each case at its modelled arithmetic intensity and
#                                         achieved rate under that machine's measured roofs
# Data come from `scibench table` (CSV); drawing is gnuplot (Debian gnuplot-nox).
set -u
SB=${SB:-build/scibench}
RESULTS=${RESULTS:-results}
command -v gnuplot >/dev/null || { echo "plot: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 2; }
[ -x "$SB" ] || { echo "plot: $SB is not an executable (run make first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

dirs=()
for d in "$RESULTS"/*/; do
    d=${d%/}
    [ "$(basename "$d")" = ci ] && continue
    [ -n "$(find "$d" -maxdepth 2 -name '*.json' -not -path '*/hyperfine/*' | head -1)" ] || continue
    dirs+=("$d")
done
[ ${#dirs[@]} -gt 0 ] || { echo "plot: no result JSON under $RESULTS/<machine>/; nothing drawn"; exit 0; }
"$SB" table "${dirs[@]}" >"$tmp/all.csv" || exit 2
grep -v '"' "$tmp/all.csv" | tail -n +2 >"$tmp/rows.csv"   # quoted fields would confuse awk: none expected
echo "plot: $(wc -l <"$tmp/rows.csv") cases from ${dirs[*]}"

# Columns of `scibench table`: 1 machine 2 kernel 3 backend 4 size 5 params 7 item 8 ips 9 ips_min
# 10 ips_max 11 bytes/s 12 flops/s 13 bytes/item 14 flops/item 15 bw_kind 16 peak bw 17 fp32 18 fp64
awk -F, -v T="$tmp" '
function sorted_write(key, file,    n, i, j, t, s) {
    n = cnt[key]
    for (i = 1; i <= n; i++) s[i] = i
    for (i = 2; i <= n; i++) for (j = i; j > 1 && sz[key, s[j]] + 0 < sz[key, s[j-1]] + 0; j--) { t = s[j]; s[j] = s[j-1]; s[j-1] = t }
    for (i = 1; i <= n; i++) print line[key, s[i]] > file
    close(file)
}
function variant(k, p,    n, a, i, out) {
    if (p == mode[k]) return ""
    n = split(p, a, ";"); out = ""
    for (i = 1; i <= n; i++) if (index(";" mode[k] ";", ";" a[i] ";") == 0) out = out " " a[i]
    return out
}
{ row[NR] = $0; pc[$2, $5]++; if (pc[$2, $5] > best[$2]) { best[$2] = pc[$2, $5]; mode[$2] = $5 }
  if (!($2 in kseen)) { kseen[$2] = 1; kern[++nk] = $2; item[$2] = $7 }
  if (!($1 in mseen)) { mseen[$1] = 1; mach[++nm] = $1 } }
END {
    # ---- throughput vs size
    gp = T "/throughput.gp"
    printf "set colorsequence podo\nset multiplot layout %d,1\nset logscale x 2\nset logscale y\nset grid\nset key below left Left reverse\nset xlabel \"size\"\nset format y \"%%.0s%%c\"\nset offsets graph 0.05, graph 0.05, graph 0.1, graph 0.1\n", nk > gp
    for (r = 1; r <= NR; r++) {
        split(row[r], f, ",")
        s = f[2] SUBSEP f[1] " " f[3] variant(f[2], f[5])
        if (!(s in cnt)) { ser[f[2], ++ns[f[2]]] = s }
        cnt[s]++; sz[s, cnt[s]] = f[4]; line[s, cnt[s]] = f[4] " " f[8] " " f[9] " " f[10]
    }
    for (k = 1; k <= nk; k++) {
        K = kern[k]
        printf "set title \"%s: throughput vs size\"\nset ylabel \"%s/s\"\nplot ", K, item[K] >> gp
        for (i = 1; i <= ns[K]; i++) {
            s = ser[K, i]; file = T "/tp_" k "_" i ".dat"; sorted_write(s, file)
            split(s, nm2, SUBSEP)
            printf "%s\"%s\" using 1:2:3:4 with yerrorlines pt 7 title \"%s\"", (i > 1 ? ", " : ""), file, nm2[2] >> gp
        }
        printf "\n" >> gp
    }
    printf "unset multiplot\n" >> gp
    close(gp)

    # ---- roofline per machine
    for (m = 1; m <= nm; m++) {
        M = mach[m]; gp = T "/roofline-" M ".gp"; nkind = 0; npt = 0; xmin = 1e300; xmax = 0
        delete bw; delete f32; delete f64; delete kinds; delete pcount; delete pname; delete pix; npix = 0
        for (r = 1; r <= NR; r++) {
            split(row[r], f, ",")
            if (f[1] != M) continue
            if (f[15] != "" && !(f[15] in bw)) kinds[++nkind] = f[15]
            if (f[16] + 0 > bw[f[15]]) bw[f[15]] = f[16] + 0
            if (f[17] + 0 > f32[f[15]]) f32[f[15]] = f[17] + 0
            if (f[18] + 0 > f64[f[15]]) f64[f[15]] = f[18] + 0
            if (f[13] + 0 <= 0) continue
            if (f[12] != "" && f[14] + 0 > 0) { x = f[14] / f[13]; y = f[12]; u = "FLOP/s" } else { x = 1 / f[13]; y = f[8]; u = f[7] "/s" }
            p = f[2] " " f[3] variant(f[2], f[5]) " (" u ")"
            if (!(p in pcount)) pname[++npt] = p
            pcount[p]++; pfile = T "/rl_" m "_" pidx(p) ".dat"
            print x, y, f[4] >> pfile; close(pfile)
            if (x < xmin) xmin = x; if (x > xmax) xmax = x
        }
        for (i = 1; i <= nkind; i++) if (bw[kinds[i]] > 0 && f32[kinds[i]] / bw[kinds[i]] > xmax) xmax = f32[kinds[i]] / bw[kinds[i]]
        if (npt == 0) continue
        printf "set title \"roofline, machine %s: measured peaks, each case at its modelled intensity (dotted: bandwidth roof alone, the bound for items/s)\"\n", M > gp
        printf "set colorsequence podo\nset logscale xy\nset grid\nset key below left Left reverse\nset samples 400\nset format y \"%%.0s%%c\"\n" >> gp
        printf "set xlabel \"arithmetic intensity: FLOP per byte (items per byte where flops are not modelled)\"\n" >> gp
        printf "set ylabel \"FLOP/s (items/s where flops are not modelled)\"\n" >> gp
        printf "set xrange [%g:%g]\n", xmin / 10, xmax * 10 >> gp
        printf "plot " >> gp; sep = ""
        for (i = 1; i <= nkind; i++) {
            K = kinds[i]; dev = (K == "copy" ? "GPU" : "CPU")
            printf "%s(x*%g < %g ? x*%g : %g) with lines lw 2 dt 1 lc %d title \"%s %s %.0f GB/s, FMA FP32 %.0f GFLOP/s\"", sep, bw[K], f32[K], bw[K], f32[K], i, dev, K, bw[K] / 1e9, f32[K] / 1e9 >> gp; sep = ", "
            printf "%s%g with lines dt 2 lc %d title \"%s FMA FP64 %.0f GFLOP/s\"", sep, f64[K], i, dev, f64[K] / 1e9 >> gp
            printf "%sx*%g with lines dt 3 lc %d notitle", sep, bw[K], i >> gp
        }
        for (i = 1; i <= npt; i++) {
            file = T "/rl_" m "_" i ".dat"
            printf "%s\"%s\" using 1:2 with points pt %d ps 1.5 title \"%s\"", sep, file, 4 + i, pname[i] >> gp
            printf "%s\"%s\" using 1:2:(sprintf(\" %%d\", $3)) with labels left offset 0.5,0 font \",8\" notitle", sep, file >> gp
        }
        printf "\n" >> gp
        close(gp)
    }
}
function pidx(p) { if (!(p in pix)) pix[p] = ++npix; return pix[p] }
' "$tmp/rows.csv" || exit 3

fail=0
for gp in "$tmp"/*.gp; do
    name=$(basename "$gp" .gp)
    for ext in svg png; do
        if [ $ext = svg ]; then term="svg size 1000,$([ "$name" = throughput ] && echo 420 || echo 600) dynamic noenhanced font 'sans,12' background rgb 'white'"
        else term="pngcairo size 1000,$([ "$name" = throughput ] && echo 420 || echo 600) noenhanced font 'sans,10'"; fi
        [ "$name" = throughput ] && term=${term/420/$((420 * $(grep -c '^plot ' "$gp")))}
        gnuplot -e "set terminal $term; set output '$RESULTS/$name.$ext'" "$gp" || fail=1
        echo "plot: wrote $RESULTS/$name.$ext"
    done
done
exit $fail
