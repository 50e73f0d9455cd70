/* Fuzz target: eri_brush's Gaussian-94 basis reader and shell builder (eri_basis_build).
 * Input byte 0 picks the molecule the basis is built for (water, benzene, one atom of every
 * element H..Kr, or the single element byte 1 names), bit 0 of byte 1 pure or Cartesian
 * d and f shells; the rest is the basis file. */
#include <math.h>
#include <string.h>

#include "eri_brush/eri.h"
#include "fuzz_util.h"

static int molecule(uint8_t pick, uint8_t arg, eri_atom *atom)
{
    static const int water[] = {8, 1, 1}, benzene[] = {6, 6, 6, 6, 6, 6, 1, 1, 1, 1, 1, 1};
    int n = 0;
    switch (pick % 4) {
    case 0: for (int i = 0; i < 3; i++) atom[n++].Z = water[i]; break;
    case 1: for (int i = 0; i < 12; i++) atom[n++].Z = benzene[i]; break;
    case 2: for (int z = 1; z <= 36; z++) atom[n++].Z = z; break;
    default: atom[n++].Z = 1 + arg % 36;
    }
    for (int i = 0; i < n; i++) atom[i].xyz[0] = 1.5 * i, atom[i].xyz[1] = 0.25 * (i % 3), atom[i].xyz[2] = 0;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    eri_atom atom[36];
    memset(atom, 0, sizeof atom);
    eri_molecule m = {.name = "fuzz", .atom = atom};
    m.natom = molecule(data[0], data[1], atom);
    eri_basis b;
    fuzz_errors_reset();
    int rc = eri_basis_build(fuzz_file(data + 2, size - 2), &m, data[1] & 1, &b);
    fuzz_expect_one_line(rc);
    if (rc) {
        FUZZ_ASSERT(!b.sh && b.nshell == 0);
        return 0;
    }
    int nbf = 0;
    for (int s = 0; s < b.nshell; s++) {
        const eri_shell *sh = &b.sh[s];
        FUZZ_ASSERT(sh->l >= 0 && sh->l <= ERI_LMAX && sh->l <= b.lmax);
        FUZZ_ASSERT(sh->nprim >= 1 && sh->nprim <= ERI_MAXPRIM && sh->nprim <= b.maxprim);
        FUZZ_ASSERT(sh->atom >= 0 && sh->atom < m.natom && sh->bf0 == nbf);
        for (int p = 0; p < sh->nprim; p++) FUZZ_ASSERT(sh->alpha[p] > 0 && isfinite(sh->alpha[p]) && isfinite(sh->coef[p]));
        nbf += sh->nbf;
    }
    FUZZ_ASSERT(nbf == b.nbf);
    eri_basis_free(&b);
    return 0;
}
