/* Fuzz target: eri_brush's XYZ molecule reader (eri_read_xyz). */
#include <math.h>
#include <string.h>

#include "eri_brush/eri.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    eri_molecule m;
    fuzz_errors_reset();
    int rc = eri_read_xyz(fuzz_file(data, size), &m);
    fuzz_expect_one_line(rc);
    if (rc) {
        FUZZ_ASSERT(!m.atom && m.natom == 0);
        return 0;
    }
    FUZZ_ASSERT(m.natom >= 1 && m.atom);
    for (int i = 0; i < m.natom; i++) {
        FUZZ_ASSERT(m.atom[i].Z >= 1 && strcmp(eri_element_symbol(m.atom[i].Z), "?"));
        for (int c = 0; c < 3; c++) FUZZ_ASSERT(isfinite(m.atom[i].xyz[c]));
    }
    eri_molecule_free(&m);
    return 0;
}
