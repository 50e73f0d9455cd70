"""Shared pieces of the eri_brush generator: Cartesian order, flop constants, and a
straight-line code buffer that folds zeros, ones and copies and counts flops."""
import re

FLOP_DIV = 4    # one double division
FLOP_SQRT = 4   # one double sqrt
BOYS_BASE, BOYS_PER_ORDER = 45, 3  # eri_boys(): see the comment in eri_gen_info.h

ONE = "1"  # the value 1.0, folded away wherever it is a factor


def boys_flops(L):
    if L is None:
        return (BOYS_BASE, BOYS_PER_ORDER)
    return BOYS_BASE + BOYS_PER_ORDER * L


def ncart(l):
    return (l + 1) * (l + 2) // 2


def nsph(l):
    return 2 * l + 1


def cart_list(l):
    """libint2 order: lx = l..0, then ly = l-lx..0."""
    return [(lx, ly, l - lx - ly) for lx in range(l, -1, -1) for ly in range(l - lx, -1, -1)]


def cart_upto(lo, hi):
    return [c for l in range(lo, hi + 1) for c in cart_list(l)]


def tag(c):
    return "".join("%d" % x for x in c)


def num(x):
    """A C double literal that round-trips."""
    s = repr(float(x))
    return s if ("." in s or "e" in s) else s + ".0"


def unit(i):
    return tuple(1 if k == i else 0 for k in range(3))


def add(a, b):
    return tuple(x + y for x, y in zip(a, b))


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


class Body:
    """Lines of `const double` definitions at one indentation, with a flop count."""

    def __init__(self, indent):
        self.ind = " " * indent
        self.lines = []
        self.flops = 0
        self._prod = {}

    def raw(self, text, flops=0):
        self.lines.append(self.ind + text)
        self.flops += flops

    def define(self, name, expr, flops):
        self.raw("const double %s = %s;" % (name, expr), flops)
        return name

    @staticmethod
    def expr(terms):
        """terms: (coef, [factor names]); a None factor zeroes the term, ONE is dropped.
        Returns (expression, flops, simplified terms)."""
        kept = []
        for coef, facs in terms:
            if coef == 0 or any(f is None for f in facs):
                continue
            kept.append((coef, [f for f in facs if f != ONE]))
        parts, flops = [], 0
        for k, (coef, facs) in enumerate(kept):
            mag = abs(coef)
            s = "*".join(facs) if facs else num(mag)
            if facs and mag != 1:
                s = num(mag) + "*" + s
                flops += 1
            flops += max(len(facs) - 1, 0)
            if k == 0:
                parts.append(("-" if coef < 0 else "") + s)
            else:
                parts.append((" - " if coef < 0 else " + ") + s)
                flops += 1
        return "".join(parts), flops, kept

    def lincomb(self, name, terms):
        """Defines name = sum of terms unless the sum is 0 (None), 1 (ONE) or a copy of one
        value (that value's name); returns what stands for the result."""
        e, flops, kept = self.expr(terms)
        if not kept:
            return None
        if len(kept) == 1 and kept[0][0] == 1:
            facs = kept[0][1]
            if not facs:
                return ONE
            if len(facs) == 1:
                return facs[0]
        return self.define(name, e, flops)

    def prod(self, facs):
        """Memoised product of named factors (ONE dropped, None gives None)."""
        if any(f is None for f in facs):
            return None
        facs = [f for f in facs if f != ONE]
        if not facs:
            return ONE
        if len(facs) == 1:
            return facs[0]
        key = tuple(facs)
        if key not in self._prod:
            head = self.prod(facs[:-1])
            name = "x%d" % len(self._prod)
            self._prod[key] = self.define(name, "%s*%s" % (head, facs[-1]), 1)
        return self._prod[key]

    def text(self):
        return "\n".join(self.lines) + ("\n" if self.lines else "")


class Emitted:
    """One generated function and its flop counts."""

    def __init__(self, text, flops_prim=0, flops_contr=0, flops=0):
        self.text = text
        self.flops_prim = flops_prim
        self.flops_contr = flops_contr
        self.flops = flops


def signature(kind, la, lb, lc, ld):
    return ("ERI_HD static inline void eri_%s_%d%d%d%d(ERI_PRIMS bra, int nb, "
            "ERI_PRIMS ket, int nk,\n    const double *AB, const double *CD, "
            "const double *boys_table, double *ERI_RESTRICT out)\n" % (kind, la, lb, lc, ld))


# The primitive-quartet screen (eri.h, ERI_PQ_COUNT): per primitive of the outer loop, the
# leading primitives of the inner one that it keeps, found once, so the inner loop carries no
# test.
PQ_COUNT = "const int nbk = ERI_PQ_COUNT(bra, nb, k);\n"
PQ_COUNT_KET = "const int nkb = ERI_PQ_COUNT(ket, nk, b);\n"


def prim_loop(pre, L, body):
    """The primitive double loop both paths share: per bra/ket primitive pair the common
    definitions (pre), the Boys values F[0..L], then the path's body; returns the text with
    both loops still open. ERI_KET_OUTER (eri.h) nests the ket loop outside: the GPU, where a
    warp shares one bra and each thread has its own ket, then loads each ket primitive once
    and re-reads only the bra's (one address for the warp, cached) in the inner loop."""
    bra = ("for (int ib = 0; ib < nb; ++ib) {\n", "ERI_PRIMS b = ERI_PRIM_AT(bra, ib);\n",
           "const double p = ERI_PF(b, p);\n")
    ket = ("for (int ik = 0; ik < nk; ++ik) {\n", "ERI_PRIMS k = ERI_PRIM_AT(ket, ik);\n",
           "const double q = ERI_PF(k, p);\n")

    def nest(outer, inner):
        depth = [1] + [2] * (len(outer) - 1) + [2] + [3] * (len(inner) - 1)
        return "".join(" " * (4 * d) + x for d, x in zip(depth, outer + inner))

    # ket outside (the GPU): the screen bounds the bra loop; bra outside (the CPU): the ket loop
    ket_outer = nest(ket + (PQ_COUNT,), (bra[0].replace("ib < nb", "ib < nbk"),) + bra[1:])
    bra_outer = nest(bra + (PQ_COUNT_KET,), (ket[0].replace("ik < nk", "ik < nkb"),) + ket[1:])
    return ("#if ERI_KET_OUTER\n" + ket_outer + "#else\n" + bra_outer + "#endif\n"
            + pre + "            double F[%d];\n            eri_boys(boys_table, %d, T, F);\n" % (L + 1, L) + body)


def prim_defs(used, L):
    """Definitions of the per-primitive-quartet scalars in `used` (and what they need),
    in dependency order, with their flops. Symbols:
      PQi = P - Q, T, pref = Kb Kk / sqrt(p+q), ipq = 1/(p+q), qpq = q/(p+q) = rho/p,
      ppq = p/(p+q) = rho/q, spq = 1/sqrt(p+q), rho, PAi, PBi (bra), QCi, QDi (ket PA, PB), WPi = W - P,
      WQi = W - Q, o2p<k> = k/(2p), o2q<k>, o2pq<k> = k/(2(p+q)), r2p<k> = k rho/(2p^2),
      r2q<k> = k rho/(2q^2), m2r = -2 rho, pw<n> = pref (-2 rho)^n."""
    deps = {"T": ["rho", "PQ0", "PQ1", "PQ2"], "pref": ["spq"], "ipq": ["spq"], "spq": ["pq"],
            "qpq": ["ipq"], "ppq": ["ipq"], "rho": ["qpq"], "m2r": ["rho"]}
    for i in range(3):
        deps["WP%d" % i] = ["qpq", "PQ%d" % i]
        deps["WQ%d" % i] = ["ppq", "PQ%d" % i]
    need = []

    def want(s):
        if s in need:
            return
        for d in deps.get(s, []):
            want(d)
        if s.startswith(("o2p", "o2q", "r2p", "r2q")) and not s.startswith("o2pq"):
            k = int(s[3:])
            if s.startswith("r2"):
                want(("o2" + s[2]) + "1")
                want("qpq" if s[2] == "p" else "ppq")
            if k > 1:
                want(s[:3] + "1")
        if s.startswith("o2pq"):
            want("ipq")
            if int(s[4:]) > 1:
                want("o2pq1")
        if s.startswith("pw"):
            n = int(s[2:])
            want("pref")
            if n > 0:
                want("m2r")
                want("pw%d" % (n - 1))
        need.append(s)

    for s in sorted(set(used) & _PRIM_SYMS | {"T", "pref"}, key=_sym_order):
        want(s)
    fixed = {
        "pq": ("p + q", 1),
        "spq": ("ERI_SPQ(pq)", FLOP_SQRT),
        "ipq": ("ERI_IPQ(pq, spq)", FLOP_DIV),
        "qpq": ("q * ipq", 1),
        "ppq": ("p * ipq", 1),
        "rho": ("p * qpq", 1),
        "T": ("rho * (PQ0 * PQ0 + PQ1 * PQ1 + PQ2 * PQ2)", 6),
        "pref": ("ERI_PF(b, K) * ERI_PF(k, K) * spq", 2),
        "m2r": ("-2.0 * rho", 1),
        "pw0": None,
    }
    body = Body(12)
    for s in need:
        if s == "pw0":
            continue  # pref itself
        if s in fixed:
            body.define(s, *fixed[s])
        elif s[:2] == "PQ":
            body.define(s, "ERI_PV(b, P, %s) - ERI_PV(k, P, %s)" % (s[2], s[2]), 1)
        elif s[:2] in ("PA", "PB"):
            body.define(s, "ERI_PV(b, %s, %s)" % (s[:2], s[2]), 0)
        elif s[:2] == "QC":
            body.define(s, "ERI_PV(k, PA, %s)" % s[2], 0)
        elif s[:2] == "QD":
            body.define(s, "ERI_PV(k, PB, %s)" % s[2], 0)
        elif s[:2] == "WP":
            body.define(s, "-(qpq * PQ%s)" % s[2], 1)
        elif s[:2] == "WQ":
            body.define(s, "ppq * PQ%s" % s[2], 1)
        elif s.startswith("o2pq"):
            k = int(s[4:])
            if k == 1:
                body.define(s, "0.5 * ipq", 1)
            else:
                body.define(s, "%s * o2pq1" % num(k), 1)
        elif s[:3] in ("o2p", "o2q"):
            k = int(s[3:])
            if k == 1:
                body.define(s, "ERI_PF(%s, h)" % ("b" if s[2] == "p" else "k"), 0)  # 1/(2p), stored per pair
            else:
                body.define(s, "%s * %s1" % (num(k), s[:3]), 1)
        elif s[:3] in ("r2p", "r2q"):
            k = int(s[3:])
            if k == 1:
                body.define(s, "o2%s1 * %s" % (s[2], "qpq" if s[2] == "p" else "ppq"), 1)
            else:
                body.define(s, "%s * %s1" % (num(k), s[:3]), 1)
        elif s.startswith("pw"):
            body.define(s, "pw%d * m2r" % (int(s[2:]) - 1) if s != "pw1" else "pref * m2r", 1)
        else:
            raise KeyError(s)
    return body


def used_syms(body):
    """Identifiers in a body's text that name per-primitive scalars."""
    return {t for t in re.findall(r"[A-Za-z_]\w*", body.text()) if t in _PRIM_SYMS}


_PRIM_SYMS = ({"pq", "spq", "ipq", "qpq", "ppq", "rho", "T", "pref", "m2r"}
              | {"%s%d" % (s, i) for s in ("PQ", "PA", "PB", "QC", "QD", "WP", "WQ") for i in range(3)}
              | {"%s%d" % (s, k) for s in ("o2p", "o2q", "o2pq", "r2p", "r2q", "pw")
                 for k in range(1, 16)})


def _sym_order(s):
    return (len(s), s)
