// eri_libint2: the independent libint2 reference for eri_brush (reference files, a brute-force
// check of the Coulomb build, and a libint2 timing to compare against). Only eri.h's density
// and bohr constant are shared with scibench; every integral comes from libint2. See
// tools/eri_libint2.md.
// libint2 2.7's g94 reader leaves a variable that GCC 12 sees as maybe-uninitialized once
// inlined here; the warning is about libint2's code, so it is off for the whole unit.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <libint2.hpp>
#include <libint2/config.h>

#include "eri_brush/eri.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <string>
#include <vector>

using libint2::Shell;

namespace {

struct Opts {
    std::string mode, molecule = "water", basis = "cc-pvdz", out, json, data;
    bool cart = false, full = false;
    long sample = 0;
    double screen = 1e-12;
    double precision = -1; // bench: libint2's own default (below); ref, check, info: always 0
    uint64_t seed = 1;
    int threads = 0, reps = 3, warmup = 1;
    std::string cmdline;
};

[[noreturn]] void usage(const char *msg)
{
    std::fprintf(stderr,
                 "eri_libint2: %s\n"
                 "usage: eri_libint2 ref   --molecule M --basis B [--cart] [--screen S] [--seed N]\n"
                 "                         (--full | --sample K) --out FILE\n"
                 "       eri_libint2 bench --molecule M --basis B [--cart] [--threads N] [--reps R] [--warmup W]\n"
                 "                         [--screen S] [--seed N] [--precision E] [--json FILE]\n"
                 "                         (E: Engine::set_precision, default libint2's own, the double\n"
                 "                         epsilon, which drops negligible primitive pairs and quartets)\n"
                 "       eri_libint2 check --molecule M --basis B [--cart] [--seed N]\n"
                 "       eri_libint2 info  --molecule M --basis B [--cart] [--screen S]\n"
                 "common: --data DIR (default $SB_DATA or kernels/eri_brush/data)\n",
                 msg);
    std::exit(2);
}

Opts parse(int argc, char **argv)
{
    Opts o;
    if (argc < 2) usage("missing mode");
    o.mode = argv[1];
    for (int i = 0; i < argc; ++i) o.cmdline += (i ? " " : "") + std::string(argv[i]);
    auto val = [&](int &i) -> const char * {
        if (i + 1 >= argc) usage((std::string(argv[i]) + " needs a value").c_str());
        return argv[++i];
    };
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--molecule") o.molecule = val(i);
        else if (a == "--basis") o.basis = val(i);
        else if (a == "--cart") o.cart = true;
        else if (a == "--full") o.full = true;
        else if (a == "--sample") o.sample = std::atol(val(i));
        else if (a == "--screen") o.screen = std::atof(val(i));
        else if (a == "--precision") o.precision = std::atof(val(i));
        else if (a == "--seed") o.seed = std::strtoull(val(i), nullptr, 10);
        else if (a == "--threads") o.threads = std::atoi(val(i));
        else if (a == "--reps") o.reps = std::atoi(val(i));
        else if (a == "--warmup") o.warmup = std::atoi(val(i));
        else if (a == "--out") o.out = val(i);
        else if (a == "--json") o.json = val(i);
        else if (a == "--data") o.data = val(i);
        else usage(("unknown option " + a).c_str());
    }
    if (o.data.empty()) o.data = getenv("SB_DATA") ? getenv("SB_DATA") : "kernels/eri_brush/data";
    if (o.mode != "ref" && o.mode != "bench" && o.mode != "check" && o.mode != "info")
        usage(("unknown mode " + o.mode).c_str());
    if (o.mode == "ref" && (o.out.empty() || o.full == (o.sample > 0)))
        usage("ref needs --out and exactly one of --full, --sample K");
    if (o.reps < 1) usage("--reps must be >= 1");
    if (o.warmup < 0) usage("--warmup must be >= 0");
    return o;
}

uint64_t splitmix(uint64_t &s)
{
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// k distinct sorted values from [0, n) (Floyd's algorithm), all of them when k >= n.
std::vector<long> choose(long n, long k, uint64_t state)
{
    std::vector<long> r;
    if (k >= n) {
        for (long i = 0; i < n; ++i) r.push_back(i);
        return r;
    }
    std::vector<char> taken(n, 0);
    for (long j = n - k; j < n; ++j) {
        long t = (long)(splitmix(state) % (uint64_t)(j + 1));
        if (taken[t]) t = j;
        taken[t] = 1;
        r.push_back(t);
    }
    std::sort(r.begin(), r.end());
    return r;
}

struct Problem {
    std::vector<Shell> sh;
    std::vector<int> bf0, atom;
    int nbf = 0;
    std::vector<std::pair<int, int>> pair; // (a, b), a >= b, index a(a+1)/2 + b
    std::vector<double> Q;                 // Schwarz factor per pair
    std::vector<int> byQ;                  // pair indices, Q descending
    std::vector<double> D;                 // nbf*nbf density
    std::vector<int> pcls, psize, pnpp;    // per pair: class, functions, primitive pairs
    double precision = 0;                  // Engine::set_precision for coulomb()
};

int quartet_cls(const Problem &p, int P, int Q)
{
    int cp = p.pcls[P], cq = p.pcls[Q];
    return eri_quartet_class(std::max(cp, cq), std::min(cp, cq));
}

// precision 0 (reference data, Schwarz factors): libint2 drops no primitive pair or quartet,
// so blocks are exact to roundoff; the bench passes its --precision
libint2::Engine make_engine(const Problem &p, double precision = 0)
{
    libint2::Engine e(libint2::Operator::coulomb, (int)libint2::max_nprim(p.sh), libint2::max_l(p.sh),
                      0);
    e.set_precision(precision);
    return e;
}

void load(const Opts &o, Problem &p)
{
    std::string xyz = o.data + "/molecules/" + o.molecule + ".xyz";
    std::ifstream is(xyz);
    if (!is) {
        std::fprintf(stderr, "eri_libint2: cannot open %s\n", xyz.c_str());
        std::exit(2);
    }
    // explicit CODATA 2018 (eri.h); libint2 2.7's default is the same value
    auto atoms = libint2::read_dotxyz(is, ERI_BOHR_ANGSTROM);
    setenv("LIBINT_DATA_PATH", (o.data + "/basis").c_str(), 1);
    libint2::BasisSet bs(o.basis, atoms, true);
    // atom of each shell: BasisSet places shells at their atom's centre, in atom order
    auto s2a = bs.shell2atom(atoms);
    for (size_t s = 0; s < bs.size(); ++s) {
        Shell sh = bs[s];
        if (sh.contr.size() != 1 || sh.contr[0].l > ERI_LMAX) {
            std::fprintf(stderr, "eri_libint2: shell %zu: l=%d or general contraction unsupported\n",
                         s, sh.contr[0].l);
            std::exit(2);
        }
        int l = sh.contr[0].l;
        // the contract (eri.h): pure d, Cartesian s/p; check libint2 built exactly that
        if (sh.contr[0].pure != (l >= 2)) {
            std::fprintf(stderr, "eri_libint2: shell %zu (l=%d): libint2 pure=%d, contract wants %d\n",
                         s, l, (int)sh.contr[0].pure, (int)(l >= 2));
            std::exit(2);
        }
        if (o.cart) sh.contr[0].pure = false;
        p.sh.push_back(sh);
        p.atom.push_back((int)s2a[s]);
    }
    for (auto &s : p.sh) {
        p.bf0.push_back(p.nbf);
        p.nbf += (int)s.size();
    }
    int ns = (int)p.sh.size();
    for (int a = 0; a < ns; ++a)
        for (int b = 0; b <= a; ++b) {
            int la = p.sh[a].contr[0].l, lb = p.sh[b].contr[0].l;
            p.pair.emplace_back(a, b);
            p.pcls.push_back(eri_pair_class(std::max(la, lb), std::min(la, lb)));
            p.psize.push_back((int)(p.sh[a].size() * p.sh[b].size()));
            p.pnpp.push_back((int)(p.sh[a].nprim() * p.sh[b].nprim()));
        }
    p.D.resize((size_t)p.nbf * p.nbf);
    for (int i = 0; i < p.nbf; ++i)
        for (int j = 0; j < p.nbf; ++j) p.D[(size_t)i * p.nbf + j] = eri_density_elem(o.seed, i, j);
}

void schwarz(Problem &p)
{
    long np = (long)p.pair.size();
    p.Q.assign(np, 0.0);
#pragma omp parallel
    {
        auto eng = make_engine(p);
        const auto &buf = eng.results();
#pragma omp for schedule(dynamic)
        for (long P = 0; P < np; ++P) {
            const Shell &a = p.sh[p.pair[P].first], &b = p.sh[p.pair[P].second];
            eng.compute(a, b, a, b);
            double m = 0;
            if (buf[0])
                for (size_t i = 0, n = a.size() * b.size() * a.size() * b.size(); i < n; ++i)
                    m = std::max(m, std::fabs(buf[0][i]));
            p.Q[P] = std::sqrt(m);
        }
    }
    p.byQ.resize(np);
    for (long P = 0; P < np; ++P) p.byQ[P] = (int)P;
    std::stable_sort(p.byQ.begin(), p.byQ.end(), [&](int x, int y) { return p.Q[x] > p.Q[y]; });
}

// Calls f(P, Q), P >= Q, for every kept unique pair of pairs whose higher-Q member is the pair
// of rank r in byQ: walking ranks r' >= r in Q order visits each unordered {P, Q} once and
// stops at the first product below the threshold.
template <class F> void for_rank(const Problem &p, int r, double screen, F &&f)
{
    const int np = (int)p.byQ.size(), A = p.byQ[r];
    const double qa = p.Q[A];
    for (int r2 = r; r2 < np; ++r2) {
        const int B = p.byQ[r2];
        if (qa * p.Q[B] < screen) break;
        f(std::max(A, B), std::min(A, B));
    }
}

struct Counts {
    double nq = 0, neris = 0, nprimq = 0;
    std::vector<long> per_class = std::vector<long>(ERI_NCLASS, 0);
};

size_t block_size(const Problem &p, int P, int Q) { return (size_t)p.psize[P] * p.psize[Q]; }

Counts count(const Problem &p, double screen)
{
    Counts c;
    for (int r = 0; r < (int)p.pair.size(); ++r)
        for_rank(p, r, screen, [&](int P, int Q) {
            c.nq += 1;
            c.neris += (double)block_size(p, P, Q);
            c.nprimq += (double)p.pnpp[P] * p.pnpp[Q];
            c.per_class[quartet_cls(p, P, Q)]++;
        });
    return c;
}

struct Digest {
    std::vector<double> J;        // full symmetric Coulomb matrix
    long double sum = 0, sum2 = 0; // over every integral of every kept block
};

// J over the kept unique quartets. Unique-quartet degeneracy (how many of the 8 permutations
// are distinct) weights both scatters, G_ij += deg v D_kl and G_kl += deg v D_ij; the 4-fold
// overcount that leaves is divided out by J = (G + G^T) / 4. sums: per rank, so they do not
// depend on the thread schedule.
Digest coulomb(const Problem &p, double screen, bool sums)
{
    const int n = p.nbf;
    const int np = (int)p.pair.size();
    std::vector<double> G((size_t)n * n, 0.0);
    std::vector<long double> sP(sums ? np : 0), s2P(sums ? np : 0);
#pragma omp parallel
    {
        auto eng = make_engine(p, p.precision);
        const auto &buf = eng.results();
        std::vector<double> Gt((size_t)n * n, 0.0);
#pragma omp for schedule(dynamic)
        for (int r = 0; r < np; ++r) {
            double bs = 0, bs2 = 0;
            for_rank(p, r, screen, [&](int P, int Q) {
                const int s1 = p.pair[P].first, s2 = p.pair[P].second;
                const Shell &A = p.sh[s1], &B = p.sh[s2];
                const int n1 = (int)A.size(), n2 = (int)B.size(), f1 = p.bf0[s1], f2 = p.bf0[s2];
                const int s3 = p.pair[Q].first, s4 = p.pair[Q].second;
                const Shell &C = p.sh[s3], &Dd = p.sh[s4];
                const int n3 = (int)C.size(), n4 = (int)Dd.size(), f3 = p.bf0[s3], f4 = p.bf0[s4];
                eng.compute(A, B, C, Dd);
                const double *v = buf[0];
                if (!v) return;
                const double deg = (s1 == s2 ? 1.0 : 2.0) * (s3 == s4 ? 1.0 : 2.0) * (P == Q ? 1.0 : 2.0);
                for (int i = 0, x = 0; i < n1; ++i)
                    for (int j = 0; j < n2; ++j) {
                        const size_t ij = (size_t)(f1 + i) * n + (f2 + j);
                        double gij = 0;
                        const double dij = deg * p.D[ij];
                        for (int k = 0; k < n3; ++k)
                            for (int l = 0; l < n4; ++l, ++x) {
                                const size_t kl = (size_t)(f3 + k) * n + (f4 + l);
                                gij += v[x] * p.D[kl];
                                Gt[kl] += v[x] * dij;
                                if (sums) {
                                    bs += v[x];
                                    bs2 += v[x] * v[x];
                                }
                            }
                        Gt[ij] += deg * gij;
                    }
            });
            if (sums) {
                sP[r] = bs;
                s2P[r] = bs2;
            }
        }
#pragma omp critical
        for (size_t i = 0; i < Gt.size(); ++i) G[i] += Gt[i];
    }
    Digest d;
    d.J.resize((size_t)n * n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) d.J[(size_t)i * n + j] = 0.25 * (G[(size_t)i * n + j] + G[(size_t)j * n + i]);
    for (int r = 0; sums && r < np; ++r) {
        d.sum += sP[r];
        d.sum2 += s2P[r];
    }
    return d;
}

double ej_of(const Problem &p, const std::vector<double> &J)
{
    long double e = 0;
    for (size_t i = 0; i < J.size(); ++i) e += (long double)J[i] * p.D[i];
    return (double)e;
}

double norm_of(const std::vector<double> &J)
{
    long double e = 0;
    for (double x : J) e += (long double)x * x;
    return (double)std::sqrt(e);
}

std::string now_utc()
{
    char b[64];
    std::time_t t = std::time(nullptr);
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return b;
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int mode_info(const Opts &o, Problem &p)
{
    std::printf("molecule %s basis %s nbf %d nshell %zu npair %zu\n", o.molecule.c_str(),
                o.basis.c_str(), p.nbf, p.sh.size(), p.pair.size());
    for (size_t s = 0; s < p.sh.size(); ++s) {
        const auto &sh = p.sh[s];
        std::printf("shell %zu atom %d l %d pure %d nprim %zu bf0 %d nbf %zu\n", s, p.atom[s],
                    sh.contr[0].l, (int)sh.contr[0].pure, sh.nprim(), p.bf0[s], sh.size());
    }
    schwarz(p);
    Counts c = count(p, o.screen);
    std::printf("screen %g nquartets %.0f neris %.0f nprimq %.0f\n", o.screen, c.nq, c.neris, c.nprimq);
    for (int k = 0; k < ERI_NCLASS; ++k)
        if (c.per_class[k]) std::printf("class %d quartets %ld\n", k, c.per_class[k]);
    return 0;
}

// J straight from every ordered shell quartet, no symmetry, no screening: the check of the
// degeneracy weights in coulomb().
int mode_check(const Opts &o, Problem &p)
{
    const int n = p.nbf, ns = (int)p.sh.size();
    std::vector<double> J((size_t)n * n, 0.0);
    auto eng = make_engine(p);
    const auto &buf = eng.results();
    for (int a = 0; a < ns; ++a)
        for (int b = 0; b < ns; ++b)
            for (int c = 0; c < ns; ++c)
                for (int d = 0; d < ns; ++d) {
                    eng.compute(p.sh[a], p.sh[b], p.sh[c], p.sh[d]);
                    if (!buf[0]) continue;
                    size_t x = 0;
                    for (size_t i = 0; i < p.sh[a].size(); ++i)
                        for (size_t j = 0; j < p.sh[b].size(); ++j)
                            for (size_t k = 0; k < p.sh[c].size(); ++k)
                                for (size_t l = 0; l < p.sh[d].size(); ++l, ++x)
                                    J[(size_t)(p.bf0[a] + i) * n + p.bf0[b] + j] +=
                                        buf[0][x] * p.D[(size_t)(p.bf0[c] + k) * n + p.bf0[d] + l];
                }
    // normalisation as built: the self-overlap diagonal of the first shell of each (l, pure)
    libint2::Engine ov(libint2::Operator::overlap, (int)libint2::max_nprim(p.sh), libint2::max_l(p.sh), 0);
    std::map<std::pair<int, int>, int> seen;
    for (const auto &sh : p.sh) {
        auto key = std::make_pair(sh.contr[0].l, (int)sh.contr[0].pure);
        if (seen[key]++) continue;
        ov.compute(sh, sh);
        std::printf("overlap diag l=%d pure=%d:", key.first, key.second);
        for (size_t i = 0; i < sh.size(); ++i) std::printf(" %.15g", ov.results()[0][i * sh.size() + i]);
        std::printf("\n");
    }
    schwarz(p);
    Digest d = coulomb(p, 0.0, false);
    double md = 0, mj = 0;
    for (size_t i = 0; i < J.size(); ++i) {
        md = std::max(md, std::fabs(J[i] - d.J[i]));
        mj = std::max(mj, std::fabs(J[i]));
    }
    std::printf("check %s/%s%s nbf %d: brute-force J vs unique-quartet J: max|diff| %.3e (max|J| %.3e)"
                " ej %.17g vs %.17g\n",
                o.molecule.c_str(), o.basis.c_str(), o.cart ? " cart" : "", n, md, mj, ej_of(p, J),
                ej_of(p, d.J));
    return md <= 1e-12 * std::max(1.0, mj) ? 0 : 1;
}

int mode_ref(const Opts &o, Problem &p)
{
    auto t0 = std::chrono::steady_clock::now();
    schwarz(p);
    Counts c = count(p, o.screen);
    std::fprintf(stderr, "eri_libint2: %s/%s nbf %d nshell %zu: %.0f quartets, %.0f eris\n",
                 o.molecule.c_str(), o.basis.c_str(), p.nbf, p.sh.size(), c.nq, c.neris);
    Digest d = coulomb(p, o.screen, true);
    double tj = seconds_since(t0);

    // chosen quartets: every kept one, or K per class by rank within the class in the
    // enumeration order of count() (deterministic from the seed)
    std::vector<std::pair<int, int>> picks;
    {
        std::vector<std::vector<long>> want(ERI_NCLASS);
        if (!o.full)
            for (int k = 0; k < ERI_NCLASS; ++k)
                want[k] = choose(c.per_class[k], o.sample, o.seed * 1000003ull + (uint64_t)k);
        std::vector<long> seen(ERI_NCLASS, 0), next(ERI_NCLASS, 0);
        for (int r = 0; r < (int)p.pair.size(); ++r)
            for_rank(p, r, o.screen, [&](int P, int Q) {
                int k = quartet_cls(p, P, Q);
                long r = seen[k]++;
                if (o.full) picks.emplace_back(P, Q);
                else if (next[k] < (long)want[k].size() && want[k][next[k]] == r) {
                    picks.emplace_back(P, Q);
                    next[k]++;
                }
            });
        std::sort(picks.begin(), picks.end());
    }

    FILE *f = std::fopen(o.out.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "eri_libint2: cannot write %s\n", o.out.c_str());
        return 1;
    }
    std::fprintf(f, "# eri_libint2 ref, libint2 %s (Engine coulomb, set_precision(0): no primitive "
                    "screening; standard Cartesian normalisation)\n",
                 LIBINT_VERSION);
    std::fprintf(f, "# %s, %d threads, %.1f s\n", now_utc().c_str(), omp_get_max_threads(), tj);
    std::fprintf(f, "# %s\n", o.cmdline.c_str());
    std::fprintf(f, "# q lines: %s\n",
                 o.full ? "every kept unique quartet"
                        : ("up to " + std::to_string(o.sample) + " per quartet class").c_str());
    for (int k = 0; k < ERI_NCLASS; ++k)
        if (c.per_class[k]) std::fprintf(f, "# class %d: %ld quartets\n", k, c.per_class[k]);
    std::fprintf(f, "molecule %s\nbasis %s\npure %d\nscreen %.17g\nseed %" PRIu64 "\n",
                 o.molecule.c_str(), o.basis.c_str(), o.cart ? 0 : 1, o.screen, o.seed);
    std::fprintf(f, "nbf %d\nnshell %zu\nnquartets %.0f\nneris %.0f\n", p.nbf, p.sh.size(), c.nq, c.neris);
    std::fprintf(f, "sum %.17g\nsum2 %.17g\nej %.17g\njnorm %.17g\n", (double)d.sum, (double)d.sum2,
                 ej_of(p, d.J), norm_of(d.J));
    const long n = p.nbf, ntri = n * (n + 1) / 2;
    std::vector<long> jr = choose(ntri, n <= 60 ? ntri : 2000, o.seed * 7919ull + 12345u);
    for (long r : jr) {
        long i = (long)((std::sqrt(8.0 * (double)r + 1.0) - 1.0) / 2.0);
        while (i * (i + 1) / 2 > r) --i;
        while ((i + 1) * (i + 2) / 2 <= r) ++i;
        long j = r - i * (i + 1) / 2;
        std::fprintf(f, "j %ld %ld %.17g\n", i, j, d.J[(size_t)(i * n + j)]);
    }
    auto eng = make_engine(p);
    const auto &buf = eng.results();
    for (auto &pq : picks) {
        auto &x = p.pair[pq.first], &y = p.pair[pq.second];
        eng.compute(p.sh[x.first], p.sh[x.second], p.sh[y.first], p.sh[y.second]);
        size_t nb = block_size(p, pq.first, pq.second);
        std::fprintf(f, "q %d %d %d %d %zu", x.first, x.second, y.first, y.second, nb);
        for (size_t i = 0; i < nb; ++i) std::fprintf(f, " %.17g", buf[0] ? buf[0][i] : 0.0);
        std::fputc('\n', f);
    }
    if (std::fclose(f) != 0) {
        std::fprintf(stderr, "eri_libint2: write error on %s\n", o.out.c_str());
        return 1;
    }
    std::fprintf(stderr, "eri_libint2: wrote %s (%zu q lines, %zu j lines) in %.1f s\n", o.out.c_str(),
                 picks.size(), jr.size(), seconds_since(t0));
    return 0;
}

std::string cpu_model()
{
    std::ifstream is("/proc/cpuinfo");
    std::string line;
    while (std::getline(is, line))
        if (line.rfind("model name", 0) == 0) {
            auto c = line.find(':');
            auto s = line.substr(c + 1);
            s.erase(0, s.find_first_not_of(' '));
            return s;
        }
    return "unknown";
}

std::string json_str(const std::string &s)
{
    std::string r = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\') r += '\\';
        if ((unsigned char)ch >= 0x20) r += ch;
    }
    return r + "\"";
}

int mode_bench(const Opts &o, Problem &p)
{
    if (o.threads > 0) omp_set_num_threads(o.threads);
    const int threads = omp_get_max_threads();
    // libint2's default precision unless told: what a program using libint2 gets
    p.precision = o.precision >= 0 ? o.precision : std::numeric_limits<double>::epsilon();
    schwarz(p);
    Counts c = count(p, o.screen);
    for (int w = 0; w < o.warmup; ++w) coulomb(p, o.screen, false); // engines, pages, caches
    std::vector<double> t;
    double ej = 0;
    for (int r = 0; r < o.reps; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        Digest d = coulomb(p, o.screen, false);
        t.push_back(seconds_since(t0));
        ej = ej_of(p, d.J);
    }
    std::vector<double> s = t;
    std::sort(s.begin(), s.end());
    double med = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
    char b[4096];
    std::snprintf(b, sizeof b,
                  "{\"molecule\": %s, \"basis\": %s, \"pure\": %d, \"nbf\": %d, \"nshell\": %zu, "
                  "\"threads\": %d, \"reps\": %d, \"warmup\": %d, \"screen\": %.3g, \"precision\": %.3g, \"quartets\": %.0f, \"eris\": %.0f, "
                  "\"prim_quartets\": %.0f, \"seconds_median\": %.6g, \"seconds_min\": %.6g, "
                  "\"seconds_max\": %.6g, \"eris_per_s\": %.6g, \"quartets_per_s\": %.6g, "
                  "\"libint2_version\": %s, \"cpu\": %s, \"ej\": %.17g}\n",
                  json_str(o.molecule).c_str(), json_str(o.basis).c_str(), o.cart ? 0 : 1, p.nbf,
                  p.sh.size(), threads, o.reps, o.warmup, o.screen, p.precision, c.nq, c.neris, c.nprimq, med, s.front(),
                  s.back(), c.neris / med, c.nq / med, json_str(LIBINT_VERSION).c_str(),
                  json_str(cpu_model()).c_str(), ej);
    std::fputs(b, stdout);
    if (!o.json.empty()) {
        FILE *f = std::fopen(o.json.c_str(), "w");
        if (!f || std::fputs(b, f) < 0 || std::fclose(f) != 0) {
            std::fprintf(stderr, "eri_libint2: cannot write %s\n", o.json.c_str());
            return 1;
        }
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    Opts o = parse(argc, argv);
    libint2::initialize();
    int rc = 1;
    try {
        Problem p;
        load(o, p);
        if (o.mode == "ref") rc = mode_ref(o, p);
        else if (o.mode == "bench") rc = mode_bench(o, p);
        else if (o.mode == "check") rc = mode_check(o, p);
        else rc = mode_info(o, p);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "eri_libint2: %s\n", e.what());
        rc = 2;
    }
    libint2::finalize();
    return rc;
}
