/*
 * The tools beside the machtrace command (tools/<name>/): clients of the
 * session library (include/machtrace/session.h) that run their own D
 * programs (top, health, baseline, and record's client, tools/record/),
 * or readers of the traces record writes (export, report).  Each entry
 * point takes its subcommand's argv (argv[0]: the subcommand) and returns
 * an exit status (MT_EXIT_*); intr: the program's SIGINT/SIGTERM count.
 */
#ifndef MT_TOOLS_H
#define MT_TOOLS_H

#include "machtrace/session.h"

/* top/: machtrace top, machtrace health (health non-zero) */
int tool_top_main(int argc, char **argv, int health, struct mt_session_intr intr);
/* baseline/: machtrace baseline save|compare|show */
int tool_baseline_main(int argc, char **argv, struct mt_session_intr intr);
/* export/: machtrace export DIR --format F [-o FILE] */
int tool_export_main(int argc, char **argv);
/* report/: machtrace report */
int tool_report_main(int argc, char **argv);

#endif
