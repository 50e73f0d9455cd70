"""HGP class code for families of shell pairs that share their primitives.

A generally contracted basis (cc-pVXZ) gives an atom several shells of one l on the same
exponents (cc-pVDZ carbon: 1s and 2s on the same eight), so the pairs of two such shells,
and the quartets of two such pairs, differ only in their contraction coefficients. A family
pair lists its members' coefficients per primitive pair (K of member m, ERI_PFK), and
eri_hgpf_<la><lb><lc><ld><CB, CK> runs the primitive loop of eri_hgp_* once for CB bra
members times CK ket members: the prefactor without the coefficients, then the bra
coefficients in the inner loop (CB multiply-adds per target), the ket ones once per ket
primitive. The primitive work, Boys function included, is shared by CB x CK contracted
quartets; each then takes the class's HRR. ob, ok: the first bra and ket member.
out: CB x CK Cartesian blocks, [cb][ck][block]. Ket primitives outside (ERI_KET_OUTER 1).

famv(): the CPU's lane twin eri_hgpfv_* (ERI_W family quartets, one per lane, lanes.h), derived
from the CUDA text: CB and CK become arguments, the accumulators arrays of ERI_FAM_MAXMEM."""
import re

from eri_gen_common import PQ_COUNT, cart_list, ncart, tag
from eri_gen_hgp import ab_cd_defs, hgp_choice, hrr
from eri_gen_vec import twin

_PREF = "const double pref = ERI_PF(b, K) * ERI_PF(k, K) * spq;"


def targets_of(la, lb, lc, ld):
    """VRR targets of the class (contracted values per member combination)."""
    return len(hgp_choice(la, lb, lc, ld)[0][3])


def gen_hgp_fam(la, lb, lc, ld):
    L = la + lb + lc + ld
    (_, vbody, pre, targets), hchoice = hgp_choice(la, lb, lc, ld)
    names = {ef: "%s_%s" % (tag(ef[0]), tag(ef[1])) for ef in targets}
    hb, hused, outs = hrr(la, lb, lc, ld, hchoice, {ef: "s%s[fb][fk]" % n for ef, n in names.items()})
    nout = ncart(la) * ncart(lb) * ncart(lc) * ncart(ld)
    assert len(outs) == nout and len(cart_list(la)) == ncart(la)
    ptext = pre.text()
    assert ptext.count(_PREF) == 1, (la, lb, lc, ld)
    ptext = ptext.replace(_PREF, "const double pref = spq; /* coefficients: below */")

    o = ["template <int CB, int CK>\n__device__ static inline void eri_hgpf_%d%d%d%d(ERI_PRIMS bra, int nb, "
         "ERI_PRIMS ket, int nk, int ob, int ok,\n    const double *AB, const double *CD, const double *boys_table, "
         "double *ERI_RESTRICT out)\n{\n" % (la, lb, lc, ld)]
    o.append(ab_cd_defs(hused))
    for n in names.values():
        o.append("    double s%s[CB][CK];\n" % n)
    o.append("#pragma unroll\n    for (int fb = 0; fb < CB; fb++)\n#pragma unroll\n"
             "        for (int fk = 0; fk < CK; fk++) {\n")
    o += ["            s%s[fb][fk] = 0.0;\n" % n for n in names.values()]
    o.append("        }\n")
    o.append("    for (int ik = 0; ik < nk; ++ik) {\n        ERI_PRIMS k = ERI_PRIM_AT(ket, ik);\n"
             "        const double q = ERI_PF(k, p);\n")
    for n in names.values():
        o.append("        double t%s[CB];\n" % n)
    o.append("#pragma unroll\n        for (int fb = 0; fb < CB; fb++) {\n")
    o += ["            t%s[fb] = 0.0;\n" % n for n in names.values()]
    o.append("        }\n")
    o.append("        " + PQ_COUNT + "        for (int ib = 0; ib < nbk; ++ib) {\n"
             "            ERI_PRIMS b = ERI_PRIM_AT(bra, ib);\n            const double p = ERI_PF(b, p);\n")
    o.append(ptext)
    o.append("            double F[%d];\n            eri_boys(boys_table, %d, T, F);\n" % (L + 1, L))
    o.append(vbody.text())
    o.append("#pragma unroll\n            for (int fb = 0; fb < CB; fb++) {\n"
             "                const double kb = ERI_PFK(b, ob + fb);\n")
    for ef, val in targets.items():
        o.append("                t%s[fb] += kb * %s;\n" % (names[ef], val))
    o.append("            }\n        }\n")
    o.append("#pragma unroll\n        for (int fk = 0; fk < CK; fk++) {\n"
             "            const double kk = ERI_PFK(k, ok + fk);\n#pragma unroll\n"
             "            for (int fb = 0; fb < CB; fb++) {\n")
    for n in names.values():
        o.append("                s%s[fb][fk] += kk * t%s[fb];\n" % (n, n))
    o.append("            }\n        }\n    }\n")
    o.append("#pragma unroll\n    for (int fb = 0; fb < CB; fb++)\n#pragma unroll\n"
             "        for (int fk = 0; fk < CK; fk++) {\n"
             "            double *ERI_RESTRICT o = out + (fb * CK + fk) * %d;\n" % nout)
    o.append("".join("    " + line + "\n" for line in hb.text().splitlines()))
    for i, val in enumerate(outs):
        o.append("            o[%d] = %s;\n" % (i, val))
    o.append("        }\n}\n")
    return "".join(o)


_FAMV_SUBS = [
    (re.compile(r"ERI_PQ_COUNT\("), "eri_pq_countfv("),
    (re.compile(r"^ *#pragma unroll\n", re.M), ""),
    (re.compile(r"\bdouble (s\w+)\[CB\]\[CK\];"), r"eri_v \1[ERI_FAM_MAXMEM][ERI_FAM_MAXMEM];"),
    (re.compile(r"\bdouble (t\w+)\[CB\];"), r"eri_v \1[ERI_FAM_MAXMEM];"),
    (re.compile(r"(\w+\[f[bk]\](?:\[fk\])?) = 0\.0;"), r"\1 = ERI_V_ZERO;"),
    (re.compile(r"ERI_PRIMS (\w) = ERI_PRIM_AT\((\w+), (\w+)\);"), r"const eri_primfv *\1 = \2 + \3;"),
    (re.compile(r"ERI_PFK\((\w), (o[bk] \+ f[bk])\)"), r"\1->Kf[\2]"),
    (re.compile(r"\bdouble \*ERI_RESTRICT o = "), "eri_v *ERI_RESTRICT o = "),
]


def famv(la, lb, lc, ld, text):
    """The eri_hgpfv_ text from the eri_hgpf_ text of the same class."""
    sig = ("static inline void eri_hgpfv_%d%d%d%d(const eri_primfv *bra, int nb, const eri_primfv *ket, int nk,\n"
           "    const int CB, const int CK, int ob, int ok, const eri_v *AB, const eri_v *CD, const double *boys_table,\n"
           "    eri_v *ERI_RESTRICT out)\n" % (la, lb, lc, ld))
    return twin(text, "template <int CB, int CK>\n__device__ static inline void eri_hgpf_", sig, (la, lb, lc, ld),
                _FAMV_SUBS, "v.")
