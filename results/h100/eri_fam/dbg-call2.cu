/* debug: each family segment of water/cc-pVDZ (Cartesian) alone on the GPU against the reference */
#include "kernels/eri_brush/cuda.cu"
#include <vector>
int main()
{
    char path[512];
    eri_molecule mol; eri_basis bas; eri_pairs ps; eri_worklist w;
    eri_data_path("molecules/water.xyz", path, sizeof path); eri_read_xyz(path, &mol);
    eri_data_path("basis/cc-pvdz.g94", path, sizeof path); eri_basis_build(path, &mol, 0, &bas);
    eri_pairs_build(&bas, 1e-18, &ps); eri_worklist_build(&bas, &ps, 0.0, &w);
    const int nbf = bas.nbf;
    std::vector<double> D(nbf * nbf), M(nbf * nbf), E(nbf * nbf);
    for (int i = 0; i < nbf; i++) for (int j = 0; j < nbf; j++) D[i * nbf + j] = eri_density_elem(42, i, j);
    eri_batch b; memset(&b, 0, sizeof b);
    b.bas = &bas; b.ps = &ps; b.w = &w; b.boys = eri_boys_table(); b.mode = ERI_MODE_DIGEST; b.D = D.data(); b.M = M.data();
    setenv("SB_ERI_STREAMS", "1", 1);
    if (cu_prepare(&b)) { printf("prepare failed\n"); return 1; }
    cu_state *st = (cu_state *)b.dev;
    printf("fam %d maxmem %d fw.nq %ld nseg %d\n", st->fam, st->fams.maxmem, st->fw.nq, st->fw.nseg);
    const eri_pairs *fp = &st->fams.ps;
    std::vector<double> blk(1296);
    for (int k = 0; k < st->fw.nseg; k++) {
        eri_segment s = st->fw.seg[k];
        kargs a = {};
        a.pure = 0, a.mode = ERI_MODE_DIGEST, a.nbf = nbf, a.D = st->D, a.M = st->M;
        a.q = st->fq, a.prim = st->fprim, a.pair = st->fpair, a.AB = st->fAB, a.mem = st->fmem, a.screen = st->fw.screen;
        const class_entry e = class_table(s.cls);
        a.boys = st->boys + (size_t)(e.l[0] + e.l[1] + e.l[2] + e.l[3]) * ERI_BOYS_DSUB;
        const long n = s.q1 - s.q0;
        a.q0 = s.q0, a.n = n, a.nb = s.nb, a.nk = s.nk;
        a.mb = fp->pair[st->fw.q[s.q0].P].nmem, a.mk = fp->pair[st->fw.q[s.q0].Q].nmem;
        int cb = 0, ck = 0;
        class_kernel_t fn;
        if (a.mb * a.mk == 1) { s.path = ERI_PATH_HGP; fn = launch_shape(st, e, s).fn; }
        else fn = fam_pick(s.cls, a.mb, a.mk, &cb, &ck);
        if (!fn) { printf("seg %d cls %d no kernel\n", k, s.cls); continue; }
        cudaMemset(st->M, 0, sizeof(double) * nbf * nbf);
        fn<<<(unsigned)((n + e.block - 1) / e.block), e.block>>>(a);
        cudaError_t ce = cudaDeviceSynchronize();
        cudaMemcpy(M.data(), st->M, sizeof(double) * nbf * nbf, cudaMemcpyDeviceToHost);
        std::fill(E.begin(), E.end(), 0.0);
        for (long qi = s.q0; qi < s.q1; qi++) {
            eri_quartet qu = st->fw.q[qi];
            for (int i = 0; i < a.mb; i++) for (int j = 0; j < a.mk; j++) {
                if (qu.P == qu.Q && i < j) continue;
                const eri_pair *A = &ps.pair[st->fams.mem[4 * qu.P + i]], *B = &ps.pair[st->fams.mem[4 * qu.Q + j]];
                eri_ref_quartet(&bas, A->a, A->b, B->a, B->b, blk.data());
                int pa = bas.sh[A->a].bf0, pb = bas.sh[A->b].bf0, qa = bas.sh[B->a].bf0, qb = bas.sh[B->b].bf0;
                int NA = bas.sh[A->a].nbf, NB = bas.sh[A->b].nbf, NC = bas.sh[B->a].nbf, ND = bas.sh[B->b].nbf;
                double fcd = B->a == B->b ? 1 : 2, fab = A->a == A->b ? 1 : 2;
                bool other = !(qu.P == qu.Q && i == j);
                for (int x = 0; x < NA; x++) for (int y = 0; y < NB; y++) for (int c = 0; c < NC; c++) for (int d = 0; d < ND; d++) {
                    double v = blk[((x * NB + y) * NC + c) * ND + d];
                    E[(pa + x) * nbf + pb + y] += fcd * v * D[(qa + c) * nbf + qb + d];
                    if (other) E[(qa + c) * nbf + qb + d] += fab * v * D[(pa + x) * nbf + pb + y];
                }
            }
        }
        double dm = 0, sc = 0;
        for (int i = 0; i < nbf * nbf; i++) dm = fmax(dm, fabs(M[i] - E[i])), sc = fmax(sc, fabs(E[i]));
        printf("seg %3d cls %2d nb %2d nk %2d mb %d mk %d cb %d ck %d n %5ld err %s max|dM| %.3e of %.3e%s\n", k, s.cls, s.nb, s.nk,
               a.mb, a.mk, cb, ck, n, cudaGetErrorString(ce), dm, sc, dm > 1e-12 * (sc > 1 ? sc : 1) ? "  <<<" : "");
    }
    return 0;
}
