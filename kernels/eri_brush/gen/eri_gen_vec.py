"""Lane-vector twin of an HGP class function, for the CPU's SIMD units.

eri_hgpv_<la><lb><lc><ld> computes ERI_W independent quartets of one class and one
contraction pattern at once, one per SIMD lane: every double of the scalar code becomes an
eri_v (a GCC vector of ERI_W doubles, lanes.h), the primitive lists are lane-interleaved
eri_primv arrays, and the Boys function is eri_boysv. The arithmetic is the scalar code's,
operation for operation (same order, no contraction), so each lane's block is bit for bit
what eri_hgp_* gives for that quartet. Derived from the scalar text so the two can never
drift apart."""
import re

_SUBS = [
    # the primitive-quartet screen over the lanes (lanes.h)
    (re.compile(r"ERI_PQ_COUNT\("), "eri_pq_countv("),
    (re.compile(r"ERI_PRIMS (\w) = ERI_PRIM_AT\((\w+), (\w+)\);"), r"const eri_primv *\1 = \2 + \3;"),
    (re.compile(r"ERI_PF\((\w), (\w+)\)"), r"\1->\2"),
    (re.compile(r"ERI_PV\((\w), (\w+), (\d)\)"), r"\1->\2[\3]"),
]
_SUBS_ARITH = [
    (re.compile(r"\bconst double (\w+) = "), r"const eri_v \1 = "),
    (re.compile(r"^(\s*)double (s\w+) = 0\.0;", re.M), r"\1eri_v \2 = ERI_V_ZERO;"),
    (re.compile(r"double F\[(\d+)\];"), r"eri_v F[\1];"),
    (re.compile(r"\beri_boys\("), "eri_boysv("),
    (re.compile(r"\bERI_SPQ\("), "ERI_VSPQ("),
    (re.compile(r"\bERI_IPQ\("), "ERI_VIPQ("),
]


def vectorise(la, lb, lc, ld, text):
    """The eri_hgpv_ text from the eri_hgp_ text of the same class."""
    sig = ("static inline void eri_hgpv_%d%d%d%d(const eri_primv *bra, int nb, "
           "const eri_primv *ket, int nk,\n    const eri_v *AB, const eri_v *CD, "
           "const double *boys_table, eri_v *ERI_RESTRICT out)\n" % (la, lb, lc, ld))
    return twin(text, "ERI_HD static inline void eri_hgp_", sig, (la, lb, lc, ld))


def twin(text, head_start, sig, what, pre=(), field=""):
    """A lane twin of generated scalar code: its head (which must start with head_start)
    replaced by sig, the (pattern, replacement) pairs pre applied, then lanes() and check()."""
    head, brace, body = text.partition("{\n")
    assert head.startswith(head_start), head
    for pat, rep in pre:
        body = pat.sub(rep, body)
    body = lanes(body, field)
    check(body, what)
    return sig + brace + body


def lanes(text, field=""):
    """Scalar class code as lane code; field: the path of the eri_primv inside the primitive
    struct the code is given ("v." for the families' eri_primfv)."""
    for pat, rep in _SUBS:
        text = pat.sub(rep.replace("->", "->" + field), text)
    for pat, rep in _SUBS_ARITH:
        text = pat.sub(rep, text)
    return text


def check(text, what):
    """Nothing of the scalar interface may survive."""
    left = re.findall(r"\bdouble\b|ERI_PRIMS|ERI_PQ_COUNT|ERI_P[FV]K?\(|\beri_boys\(", text)
    assert not left, (what, left[:3])
