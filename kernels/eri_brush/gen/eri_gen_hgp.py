"""Head-Gordon-Pople path: Obara-Saika vertical recurrence per primitive quartet for
[e0|f0]^(0), e = la..la+lb, f = lc..lc+ld, contraction, then the horizontal recurrence
(ab| = (a+1_i, b-1_i| + AB_i (a, b-1_i| on the bra and likewise with CD on the ket."""
from eri_gen_common import (prim_loop, Body, Emitted, boys_flops, cart_list, cart_upto, prim_defs,
                            signature, used_syms, sub, tag, unit)


def _pick(cands, cost, rule):
    """Direction with the lowest cost; ties go to the first (rule 0) or last (rule 1)."""
    best = min(cost(i) for i in cands)
    tied = [i for i in cands if cost(i) == best]
    return tied[0] if rule == 0 else tied[-1]


def _vrr(la, lb, lc, ld, bra_outer, rule):
    """Primitive-loop body. bra_outer: build [e0|00] first and the ket on top (the walk
    reduces the ket first); else the other way round. Returns (body, used symbols,
    {(e, f): value name})."""
    L = la + lb + lc + ld
    body = Body(12)
    used = set()
    memo = {}

    def sym(s):
        used.add(s)
        return s

    def v(a, c, m):
        if min(a) < 0 or min(c) < 0:
            return None
        key = (a, c, m)
        if key in memo:
            return memo[key]
        name = "v%s_%s_%d" % (tag(a), tag(c), m)
        if sum(a) == 0 and sum(c) == 0:
            res = body.define(name, "%s * F[%d]" % (sym("pref"), m), 1)
            memo[key] = res
            return res
        # reduce the ket first when the bra is built first (the ket sits on top)
        red_ket = sum(c) > 0 and (bra_outer or sum(a) == 0)
        if red_ket:
            x, y, P, W, o, r, oth = c, a, "QC", "WQ", "o2q", "r2q", a
        else:
            x, y, P, W, o, r, oth = a, c, "PA", "WP", "o2p", "r2p", c
        cands = [i for i in range(3) if x[i] > 0]

        def cost(i):
            return 2 * (x[i] >= 2) + (oth[i] >= 1)
        i = _pick(cands, cost, rule)
        x1 = sub(x, unit(i))
        x2 = sub(x1, unit(i))
        y1 = sub(y, unit(i))

        def val(xx, yy, mm):
            return v(xx, yy, mm) if not red_ket else v(yy, xx, mm)
        terms = [(1, [sym("%s%d" % (P, i)), val(x1, y, m)]),
                 (1, [sym("%s%d" % (W, i)), val(x1, y, m + 1)])]
        if x1[i] > 0:
            terms += [(1, [sym("%s%d" % (o, x1[i])), val(x2, y, m)]),
                      (-1, [sym("%s%d" % (r, x1[i])), val(x2, y, m + 1)])]
        if y[i] > 0:
            terms.append((1, [sym("o2pq%d" % y[i]), val(x1, y1, m + 1)]))
        res = body.lincomb(name, terms)
        memo[key] = res
        return res

    targets = {}
    for e in cart_upto(la, la + lb):
        for f in cart_upto(lc, lc + ld):
            targets[(e, f)] = v(e, f, 0)
    assert L >= 0
    return body, used, targets


def _hrr(la, lb, lc, ld, ket_first, rule, src):
    """Contracted-quartet part: (ab|cd) from (e0|f0) = src[(e, f)]."""
    body = Body(4)
    used = set()
    memo = {}

    def h(a, b, c, d):
        if min(a) < 0 or min(b) < 0 or min(c) < 0 or min(d) < 0:
            return None
        key = (a, b, c, d)
        if key in memo:
            return memo[key]
        if sum(b) == 0 and sum(d) == 0:
            memo[key] = src[(a, c)]
            return memo[key]
        # ket_first: the ket transfer is applied first, so the walk peels the bra first
        bra_step = sum(b) > 0 and (ket_first or sum(d) == 0)
        x = b if bra_step else d
        cands = [i for i in range(3) if x[i] > 0]
        i = cands[0] if rule == 0 else cands[-1]
        u = unit(i)
        if bra_step:
            t = [(1, [h(tuple(a[k] + u[k] for k in range(3)), sub(b, u), c, d)]),
                 (1, ["AB%d" % i, h(a, sub(b, u), c, d)])]
            used.add("AB%d" % i)
        else:
            t = [(1, [h(a, b, tuple(c[k] + u[k] for k in range(3)), sub(d, u))]),
                 (1, ["CD%d" % i, h(a, b, c, sub(d, u))])]
            used.add("CD%d" % i)
        res = body.lincomb("h%s_%s_%s_%s" % (tag(a), tag(b), tag(c), tag(d)), t)
        memo[key] = res
        return res

    outs = []
    for a in cart_list(la):
        for b in cart_list(lb):
            for c in cart_list(lc):
                for d in cart_list(ld):
                    outs.append(h(a, b, c, d))
    return body, used, outs


def hgp_choice(la, lb, lc, ld):
    """The cheapest VRR variant (flops per primitive quartet, body, definitions, targets)
    and HRR variant (ket_first, rule) of a class, as gen_hgp emits them."""
    L = la + lb + lc + ld
    best = None
    for bra_outer in (True, False):
        for rule in (0, 1):
            body, used, targets = _vrr(la, lb, lc, ld, bra_outer, rule)
            pre = prim_defs(used_syms(body), L)
            fl = pre.flops + body.flops + boys_flops(L) + len(targets)
            if best is None or fl < best[0]:
                best = (fl, body, pre, targets)
    acc = {ef: "s%s_%s" % (tag(ef[0]), tag(ef[1])) for ef in best[3]}
    hbest = None
    for ket_first in (True, False):
        for rule in (0, 1):
            hb = _hrr(la, lb, lc, ld, ket_first, rule, acc)[0]
            if hbest is None or hb.flops < hbest[0]:
                hbest = (hb.flops, ket_first, rule)
    return best, hbest[1:]


def hrr(la, lb, lc, ld, choice, src):
    """The chosen HRR variant on the contracted values src[(e, f)]: (body, used, outputs)."""
    return _hrr(la, lb, lc, ld, choice[0], choice[1], src)


def gen_hgp(la, lb, lc, ld):
    L = la + lb + lc + ld
    (flops_prim, vbody, pre, targets), hchoice = hgp_choice(la, lb, lc, ld)
    acc = {ef: "s%s_%s" % (tag(ef[0]), tag(ef[1])) for ef in targets}
    hb, hused, outs = hrr(la, lb, lc, ld, hchoice, acc)
    flops_contr = hb.flops

    o = [signature("hgp", la, lb, lc, ld), "{\n"]
    o.append(ab_cd_defs(hused))
    for ef in targets:
        o.append("    double %s = 0.0;\n" % acc[ef])
    o.append(prim_loop(pre.text(), L, vbody.text()))
    for ef, val in targets.items():
        o.append("            %s += %s;\n" % (acc[ef], val))
    o.append("        }\n    }\n")
    o.append(hb.text())
    for n, val in enumerate(outs):
        o.append("    out[%d] = %s;\n" % (n, val))
    o.append("}\n")
    return Emitted("".join(o), flops_prim=flops_prim, flops_contr=flops_contr)


def ab_cd_defs(hused):
    """The AB and CD components the HRR uses, as locals (or a void cast of the unused)."""
    o = []
    for name in ("AB", "CD"):
        comps = sorted(s for s in hused if s.startswith(name))
        if comps:
            o.append("    " + "".join("const double %s = %s[%s];" % (s, name, s[2]) + ("" if k == len(comps) - 1 else " ")
                                      for k, s in enumerate(comps)) + "\n")
        else:
            o.append("    (void)%s;\n" % name)
    return "".join(o)
