#!/usr/bin/env python3
"""Dirac-Hartree-Fock reference energies for dfratom_scf from PySCF (an independent code).

dfratom_scf solves the radial Dirac-Fock-Roothaan equations with closed-form radial integrals.
PySCF solves the same Dirac-Coulomb problem as a molecule: 3D spinor integrals from libcint,
restricted kinetic balance, (LL|LL), (LL|SS) and (SS|SS), a general (not radial) SCF. Given the
same Gaussian exponents, the same Visscher-Dyall Gaussian nucleus and the same c, both must
reach the same variational energy; nothing is shared between the two but the input.

The exponents follow kernels/dfratom_scf/README.md (well-tempered, zeta_k = alpha beta^(k-1)
[1 + gamma (k/K)^delta], K s functions, p/d/f the first np/nd/nf of them, beta=auto as setup.c).
Output: one tab-separated line per case, the format of kernels/dfratom_scf/data/pyscf_dhf.tsv.

Usage: python3 tools/dfr_pyscf.py ATOM K [ATOM K ...]     (pip install pyscf; about 2 CPU-min
for Ne K=30, an hour for Xe K=30)
       python3 tools/dfr_pyscf.py --basis FILE.json [FILE.json ...]
The second form reads bases as job=bsize writes them (bsize_out=: K, alpha, beta, gamma, delta,
the range first..last of the sequence per l) and prints rows of data/pyscf_dhf_ranges.tsv.
"""
import json
import math
import sys
import time

import pyscf
import pyscf.scf.hf
from pyscf import gto, lib, scf

C_LIGHT = 137.03599976  # the kernel's default c
ALPHA = 0.05
# Closed-shell atoms: Z, the Visscher-Dyall mass number (atoms.c), highest occupied l
ATOMS = {"He": (2, 4, 0), "Be": (4, 9, 0), "Ne": (10, 20, 1), "Mg": (12, 24, 1), "Ar": (18, 40, 1),
         "Ca": (20, 40, 1), "Zn": (30, 64, 2), "Kr": (36, 84, 2), "Sr": (38, 88, 2), "Cd": (48, 114, 2),
         "Xe": (54, 132, 2), "Ba": (56, 138, 2), "Yb": (70, 174, 3), "Hg": (80, 202, 3), "Rn": (86, 222, 3)}


def auto_beta(Z, K):
    b = (4000.0 * Z * Z / 0.05) ** (1.0 / (K - 1))
    return min(max(b, 1.2), 4.0)


def c_lround(x):  # C's lround: halves away from zero (Python's round() goes to even)
    return int(math.floor(x + 0.5))


def dhf_energy(sym, K):
    Z, A, lmax = ATOMS[sym]
    beta = auto_beta(Z, K)
    nl = [K, c_lround(0.8 * K), c_lround(0.6 * K), c_lround(0.5 * K)][: lmax + 1]
    zeta = [ALPHA * beta ** (k - 1) for k in range(1, K + 1)]
    basis = [[l, [zeta[i], 1.0]] for l in range(lmax + 1) for i in range(nl[l])]
    e, sec = dhf_run(sym, basis)
    return Z, A, beta, nl, e, sec


def wtbs_zeta(b, k):
    """zeta_k as basis.c computes it: alpha beta^(k-1) [1 + gamma (k/K)^delta]"""
    return b["alpha"] * b["beta"] ** (k - 1) * (1.0 + b["gamma"] * (k / b["K"]) ** b["delta"])


def dhf_file(path):
    """A row of pyscf_dhf_ranges.tsv for the basis file at path (job=bsize's bsize_out)"""
    with open(path) as f:
        b = json.load(f)
    sym = b["atom"]
    if sym not in ATOMS or b.get("charge", 0) != 0:
        raise SystemExit(f"dfr_pyscf: {path}: {sym}: not a neutral closed-shell atom here ({', '.join(ATOMS)})")
    Z, A, lmax = ATOMS[sym]
    if b.get("hamiltonian") != "dirac" or b.get("nucleus") != "gauss" or b.get("c") != C_LIGHT:
        raise SystemExit(f"dfr_pyscf: {path}: PySCF's rows are Dirac-Coulomb with the Gaussian nucleus and c = {C_LIGHT}")
    rng = [b["ranges"].get(l, [0, 0]) for l in "spdf"]
    basis = [[l, [wtbs_zeta(b, k), 1.0]] for l in range(lmax + 1) for k in range(rng[l][0], rng[l][1] + 1)]
    e, sec = dhf_run(sym, basis)
    cols = [sym, Z, A, b["K"], repr(b["alpha"]), repr(b["beta"]), repr(b["gamma"]), repr(b["delta"])]
    cols += [x for r in rng for x in r] + [f"{e:.12f}", f"{sec:.0f}"]
    return "\t".join(str(c) for c in cols)


def dhf_run(sym, basis):
    """PySCF's DHF energy of the neutral atom sym in basis (one uncontracted shell per exponent)"""
    A = ATOMS[sym][1]
    lib.param.LIGHT_SPEED = C_LIGHT
    # Keep every basis function, as the kernel's dsygvd does: PySCF's default canonical
    # orthogonalisation drops small-component directions of a well-tempered basis (whose
    # metric ~ T/(4c^2) has tiny eigenvalues) and then converges to a wrong state.
    pyscf.scf.hf.remove_overlap_zero_eigenvalue = False
    mol = gto.Mole(atom=f"{sym} 0 0 0", basis={sym: basis}, spin=0, cart=False, verbose=0)
    mol.nucmod = {sym: "G"}  # Visscher-Dyall Gaussian nucleus (gto.mole.dyall_nuc_mod)
    mol.nucprop = {sym: {"mass": A}}
    mol.build()
    mf = scf.DHF(mol)
    mf.conv_tol = 1e-12
    mf.max_cycle = 200
    mf.init_guess = "atom"
    t = time.time()
    e = mf.kernel()
    if not mf.converged:
        raise SystemExit(f"dfr_pyscf: {sym} ({len(basis)} shells) did not converge")
    return e, time.time() - t


def main(argv):
    if argv[:1] == ["--basis"] and len(argv) > 1:
        print(f"# pyscf {pyscf.__version__}, DHF (Dirac-Coulomb, with SSSS), c = {C_LIGHT}, Gaussian nucleus")
        for path in argv[1:]:
            print(dhf_file(path), flush=True)
        return
    if len(argv) < 2 or len(argv) % 2:
        raise SystemExit(__doc__)
    print(f"# pyscf {pyscf.__version__}, DHF (Dirac-Coulomb, with SSSS), c = {C_LIGHT}, Gaussian nucleus")
    print("# atom\tZ\tA\tK\talpha\tbeta\tnp\tnd\tnf\tenergy_Eh\tseconds")
    for sym, K in zip(argv[0::2], argv[1::2]):
        if sym not in ATOMS:
            raise SystemExit(f"dfr_pyscf: {sym}: not a closed-shell atom here ({', '.join(ATOMS)})")
        Z, A, beta, nl, e, sec = dhf_energy(sym, int(K))
        n = nl + [0] * (4 - len(nl))
        print(f"{sym}\t{Z}\t{A}\t{K}\t{ALPHA}\t{beta:.17g}\t{n[1]}\t{n[2]}\t{n[3]}\t{e:.12f}\t{sec:.0f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
