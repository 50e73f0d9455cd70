/* The human-readable result on stdout: every number with its unit. */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include <stdio.h>

#include "hwinfo.h"
#include "runloop.h"

/* validate_only: case, time, counters and validation, no roofline. */
void sb_report_print(FILE *out, const sb_result *r, const sb_hwinfo *hw, int validate_only);
/* The VALIDATION table and its closing PASSED/FAILED line. */
void sb_report_validation(FILE *out, const sb_validation *v);

#endif
