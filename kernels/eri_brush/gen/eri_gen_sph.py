"""Cartesian -> real solid harmonics (m = -l..l, unit-normalised) for shells with l >= 2,
applied to Cartesian functions that all carry the normalisation of x^l.

The harmonics are the regular solid harmonics in Racah's real form,
  C_lm = Pi_lm(z, r^2) A_m(x, y) (m >= 0),  S_lm = Pi_lm B_m (m < 0, |m| used),
  Pi_lm = sum_k (-1)^k 2^-l C(l,k) C(2l-2k,l) (l-2k)!/(l-2k-m)! r^2k z^(l-2k-m),
  A_m + i B_m = (x + i y)^m,
expanded exactly in rationals and normalised with the Gaussian overlap of x^l-normalised
Cartesians, <x^i y^j z^k | x^i' y^j' z^k'> = prod (i+i'-1)!! / (2l-1)!! (even sums). This is
Schlegel & Frisch, IJQC 54 (1995) 83 with libint2's m order and signs (no Condon-Shortley
phase): m=-2 ~ xy, m=-1 ~ yz, m=0 ~ 2zz-xx-yy, m=1 ~ xz, m=2 ~ xx-yy."""
from decimal import Decimal, getcontext
from fractions import Fraction
from math import comb, factorial

from eri_gen_common import Body, Emitted, cart_list, ncart, nsph


def _dfact(n):
    r = 1
    while n > 1:
        r *= n
        n -= 2
    return r


def _polymul(p, q):
    r = {}
    for a, x in p.items():
        for b, y in q.items():
            k = tuple(u + v for u, v in zip(a, b))
            r[k] = r.get(k, 0) + x * y
    return {k: v for k, v in r.items() if v != 0}


def _harmonic_poly(l, m):
    am = abs(m)
    pi = {}
    r2 = {(2, 0, 0): 1, (0, 2, 0): 1, (0, 0, 2): 1}
    for k in range((l - am) // 2 + 1):
        c = Fraction((-1) ** k * comb(l, k) * comb(2 * l - 2 * k, l) * factorial(l - 2 * k),
                     2 ** l * factorial(l - 2 * k - am))
        term = {(0, 0, l - 2 * k - am): c}
        for _ in range(k):
            term = _polymul(term, r2)
        for key, v in term.items():
            pi[key] = pi.get(key, 0) + v
    ab = {}
    for p in range(am + 1):
        # (x + i y)^m: the term x^p (i y)^(m-p); real part for m >= 0, imaginary for m < 0
        ipow = (am - p) % 4
        re_im = {0: (1, 0), 1: (0, 1), 2: (-1, 0), 3: (0, -1)}[ipow]
        c = comb(am, p) * (re_im[0] if m >= 0 else re_im[1])
        if c:
            ab[(p, am - p, 0)] = c
    return _polymul(pi, ab)


def coefficients(l):
    """[m + l][cart index] as Python floats (correctly rounded)."""
    getcontext().prec = 60
    carts = cart_list(l)
    rows = []
    for m in range(-l, l + 1):
        poly = _harmonic_poly(l, m)
        a = [Fraction(poly.get(c, 0)) for c in carts]
        norm2 = Fraction(0)
        for i, ci in enumerate(carts):
            for j, cj in enumerate(carts):
                s = [u + v for u, v in zip(ci, cj)]
                if any(x % 2 for x in s) or a[i] == 0 or a[j] == 0:
                    continue
                g = Fraction(_dfact(s[0] - 1) * _dfact(s[1] - 1) * _dfact(s[2] - 1), _dfact(2 * l - 1))
                norm2 += a[i] * a[j] * g
        root = (Decimal(norm2.numerator) / Decimal(norm2.denominator)).sqrt()
        rows.append([float(Decimal(x.numerator) / Decimal(x.denominator) / root) if x else 0.0 for x in a])
    return rows


def gen_sph(la, lb, lc, ld):
    ls = (la, lb, lc, ld)
    sig = ("ERI_HD static inline void eri_sph_%d%d%d%d(const double *ERI_RESTRICT cart, "
           "double *ERI_RESTRICT out)\n{\n" % ls)
    stages = [k for k in range(4) if ls[k] >= 2]
    dims = [ncart(l) for l in ls]
    if not stages:
        n = dims[0] * dims[1] * dims[2] * dims[3]
        return Emitted(sig + "    for (int i = 0; i < %d; ++i) out[i] = cart[i];\n}\n" % n)
    body = Body(4)
    cur = {}
    for idx in _indices(dims):
        cur[idx] = "cart[%d]" % _flat(idx, dims)
    for s, k in enumerate(stages):
        C = coefficients(ls[k])
        nd = list(dims)
        nd[k] = nsph(ls[k])
        last = s == len(stages) - 1
        nxt = {}
        for idx in _indices(nd):
            terms = []
            for c in range(dims[k]):
                if C[idx[k]][c] != 0.0:
                    src = list(idx)
                    src[k] = c
                    terms.append((C[idx[k]][c], [cur[tuple(src)]]))
            if last:
                e, fl, _ = body.expr(terms)
                body.raw("out[%d] = %s;" % (_flat(idx, nd), e), fl)
            else:
                nxt[idx] = body.define("t%d_%d" % (s, _flat(idx, nd)), body.expr(terms)[0],
                                       body.expr(terms)[1])
        cur, dims = nxt, nd
    return Emitted(sig + body.text() + "}\n", flops=body.flops)


def _indices(dims):
    return [(i, j, k, l) for i in range(dims[0]) for j in range(dims[1])
            for k in range(dims[2]) for l in range(dims[3])]


def _flat(idx, dims):
    return ((idx[0] * dims[1] + idx[1]) * dims[2] + idx[2]) * dims[3] + idx[3]
