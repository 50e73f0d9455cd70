#include "session.h"
#include "hwinfo.h"
#include "json_out.h"
#include "report.h"
#include "runloop.h"
#include "sb_mpi.h"

int sb_session_run(const sb_kernel *k, sb_backend b, sb_params *p, const sb_session_opts *o)
{
    sb_result r;
    sb_hwinfo hw;
    int root = sb_mpi_rank() == 0;
    int rc = sb_mpi_max_int(p->json_path && root ? sb_json_check_path(p->json_path) : SB_OK);
    if (rc) return rc;
    sb_set_quiet(p->quiet);
    rc = sb_run_case(k, b, p, !o->validate_only, &r);
    if (!rc && !root) rc = r.passed ? SB_OK : SB_EXIT_VALIDATION; /* rank 0 reports for all */
    else if (!rc) {
        sb_hwinfo_get(&hw);
        sb_report_print(o->out ? o->out : stdout, &r, &hw, o->validate_only);
        if (p->json_path) rc = sb_json_write(p->json_path, &r, &hw, o->exe);
        if (!rc && !r.passed) rc = SB_EXIT_VALIDATION;
    }
    sb_result_free(&r);
    return rc;
}
