#!/usr/bin/env bash
# The kernel matrix's core (matrix_lib.sh) on sid's SMP GNU Mach with two
# CPUs, under the developers' (issue 28):
# every count exact against machload's report as on one CPU, machload's
# cpus= workers giving both CPUs work, on-cpu and off-cpu balanced, and
# each CPU's printed records plus its reported drops equal to its
# firings.  A missing image is a SKIP.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live kernel-matrix-sid-smp-2cpu
. "$(dirname "$0")/matrix_lib.sh"

need_sid_smp kernel-matrix-sid-smp-2cpu
t0=$(ms)
core sid-smp-2cpu "$SID" 2
no_panic kernel-matrix-sid-smp-2cpu-no-panic "$TMP/sid-smp-2cpu.con"
echo "# kernel-matrix-sid-smp-2cpu: 1 boot in $(( $(ms) - t0 )) ms"
