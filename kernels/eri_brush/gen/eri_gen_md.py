"""McMurchie-Davidson path: per primitive quartet, Hermite expansion coefficients E_t of
both pairs (per direction), Hermite integrals R_tuv by the recurrence
  R^n_{t+1,u,v} = t R^{n+1}_{t-1,u,v} + PQ_x R^{n+1}_{t,u,v},  R^n_000 = pref (-2 rho)^n F_n,
and (ab|cd) = sum_tuv E^ab_tuv sum_tnp (-1)^(t+n+p) E^cd_tnp R_{t+t',u+n,v+p}, accumulated
straight into the Cartesian block. One side is contracted with R first (whichever needs
fewer flops); only Hermite indices inside a function pair's support are visited."""
import itertools

from eri_gen_common import (prim_loop, Body, Emitted, ONE, boys_flops, cart_list, prim_defs, signature, used_syms)


def _support(a, b):
    return list(itertools.product(range(a[0] + b[0] + 1), range(a[1] + b[1] + 1),
                                  range(a[2] + b[2] + 1)))


def _variant(la, lb, lc, ld, bra_first, rule):
    L = la + lb + lc + ld
    body = Body(12)
    used = set()
    Emem, Rmem = {}, {}

    def sym(s):
        used.add(s)
        return s

    def E(side, d, i, j, t):
        if t < 0 or t > i + j:
            return None
        if i == 0 and j == 0:
            return ONE
        key = (side, d, i, j, t)
        if key in Emem:
            return Emem[key]
        if side == "b":
            o2, A, B = "o2p1", "PA%d" % d, "PB%d" % d
        else:
            o2, A, B = "o2q1", "QC%d" % d, "QD%d" % d
        if j > 0:
            i0, j0, X = i, j - 1, B
        else:
            i0, j0, X = i - 1, 0, A
        terms = [(1, [sym(o2), E(side, d, i0, j0, t - 1)]),
                 (1, [sym(X), E(side, d, i0, j0, t)]),
                 (t + 1, [E(side, d, i0, j0, t + 1)])]
        res = body.lincomb("E%s%d_%d%d_%d" % (side, d, i, j, t), terms)
        Emem[key] = res
        return res

    def R(t, u, v, n):
        key = (t, u, v, n)
        if key in Rmem:
            return Rmem[key]
        name = "R%d_%d_%d_%d" % key
        idx = (t, u, v)
        if idx == (0, 0, 0):
            res = body.define(name, "%s * F[%d]" % (sym("pref" if n == 0 else "pw%d" % n), n), 1)
        else:
            cands = [i for i in range(3) if idx[i] > 0]
            best = min(idx[i] >= 2 for i in cands)
            tied = [i for i in cands if (idx[i] >= 2) == best]
            i = tied[0] if rule == 0 else tied[-1]
            lo1 = tuple(x - (k == i) for k, x in enumerate(idx))
            lo2 = tuple(x - 2 * (k == i) for k, x in enumerate(idx))
            terms = [(1, [sym("PQ%d" % i), R(*lo1, n + 1)])]
            if idx[i] >= 2:
                terms.append((idx[i] - 1, [R(*lo2, n + 1)]))
            res = body.lincomb(name, terms)
        Rmem[key] = res
        return res

    def herm(side, a, b, tuv):
        return body.prod([E(side, d, a[d], b[d], tuv[d]) for d in range(3)])

    bras = [(a, b) for a in cart_list(la) for b in cart_list(lb)]
    kets = [(c, d) for c in cart_list(lc) for d in cart_list(ld)]
    acc = []  # (accumulator index, expression terms)
    if not bra_first:
        hb = sorted({x for a, b in bras for x in _support(a, b)})
        G = {}
        for kc, (c, d) in enumerate(kets):
            for tuv in hb:
                terms = [(-1 if sum(tnp) % 2 else 1,
                          [herm("k", c, d, tnp), R(tuv[0] + tnp[0], tuv[1] + tnp[1], tuv[2] + tnp[2], 0)])
                         for tnp in _support(c, d)]
                G[(kc, tuv)] = body.lincomb("G%d_%d%d%d" % ((kc,) + tuv), terms)
        for kb, (a, b) in enumerate(bras):
            for kc in range(len(kets)):
                acc.append([(1, [herm("b", a, b, tuv), G[(kc, tuv)]]) for tuv in _support(a, b)])
    else:
        hk = sorted({x for c, d in kets for x in _support(c, d)})
        H = {}
        for kb, (a, b) in enumerate(bras):
            for tnp in hk:
                terms = [(1, [herm("b", a, b, tuv), R(tuv[0] + tnp[0], tuv[1] + tnp[1], tuv[2] + tnp[2], 0)])
                         for tuv in _support(a, b)]
                H[(kb, tnp)] = body.lincomb("H%d_%d%d%d" % ((kb,) + tnp), terms)
        for kb in range(len(bras)):
            for kc, (c, d) in enumerate(kets):
                acc.append([(-1 if sum(tnp) % 2 else 1, [herm("k", c, d, tnp), H[(kb, tnp)]])
                            for tnp in _support(c, d)])
    for n, terms in enumerate(acc):
        e, fl, kept = body.expr(terms)
        if len(kept) == 1 and kept[0][0] == -1 and len(kept[0][1]) == 1:
            body.raw("o%d -= %s;" % (n, kept[0][1][0]), 1)
        else:
            body.raw("o%d += %s;" % (n, e), fl + 1)
    pre = prim_defs(used_syms(body), L)
    return pre.flops + body.flops + boys_flops(L), pre, body, len(acc)


def gen_md(la, lb, lc, ld):
    L = la + lb + lc + ld
    best = None
    for bra_first in (False, True):
        for rule in (0, 1):
            v = _variant(la, lb, lc, ld, bra_first, rule)
            if best is None or v[0] < best[0]:
                best = v
    flops, pre, body, nout = best
    o = [signature("md", la, lb, lc, ld), "{\n    (void)AB;\n    (void)CD;\n"]
    for n in range(nout):
        o.append("    double o%d = 0.0;\n" % n)
    o.append(prim_loop(pre.text(), L, body.text()))
    o.append("        }\n    }\n")
    for n in range(nout):
        o.append("    out[%d] = o%d;\n" % (n, n))
    o.append("}\n")
    return Emitted("".join(o), flops_prim=flops, flops_contr=0)
