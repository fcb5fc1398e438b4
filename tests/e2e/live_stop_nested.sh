#!/usr/bin/env bash
# A session the workload's reboot ends while profile-997 owns the local
# APIC timer: the reboot hook stops tracing with interrupts off, so a
# timer interrupt is latched, and lk_apic_stop takes it with interrupts on
# for a moment, when the PIC's clock interrupt (which the raised task
# priority does not hold off) enters lk_tick inside stop_tracing.  Each of
# 4 such sessions must stop (exit 0: no "the kernel did not stop
# tracing"), fire END once and leave the text and IDT as they were.  A
# stop_tracing that made any second caller wait hung the fourth session.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-stop-nested
prog='profile-997 { @p = count(); } END { printf("end fired\n"); printa("p %@d\n", @p); }'
bad=""
for i in 1 2 3 4; do
	MACHTRACE_TEXTCHECK=1 live_run s$i "rt=3000" "$prog" -q
	rc=$?
	ends=$(grep -c "^end fired$" "$TMP/s$i.out")
	p=$(val p "$TMP/s$i.out")
	if [ $rc != 0 ] || [ "$ends" != 1 ] || [ "${p:-0}" -le 0 ] ||
	   ! grep -q "kernel text identical to the image" "$TMP/s$i.err" ||
	   ! grep -q "kernel IDT identical to before tracing" "$TMP/s$i.err"; then
		bad="session $i: exit $rc, END printed $ends times, p ${p:-none}: $(tail -n 3 "$TMP/s$i.err" | tr '\n' ' ')"
		break
	fi
done
if [ -z "$bad" ]; then
	pass live-stop-nested-reboot-ends
else
	fail live-stop-nested-reboot-ends "$bad"
fi
