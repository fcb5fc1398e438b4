#!/usr/bin/env bash
# args[] of kinst::FUNC:entry of an inlined FUNC: each copy's parameters
# where DWARF puts them at its entry pc.  Ground truth by other routes,
# with ports=N (machload allocates, deallocates and destroys N ports):
# ipc_entry_dealloc's space (args[0]) is the current task's
# curthread->task->itk_space, and in the copies inside ipc_right_dealloc,
# _destroy and _delta, space and name equal those functions' own args[0]
# and args[1] saved at their fbt entry.  A parameter some copy has no
# location for is a compile-time error naming that copy.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-kinline-args
F=ipc_entry_dealloc

"$MACHTRACE" -lv -n "kinst::$F:entry" >"$TMP/k.lv" 2>&1
"$MACHTRACE" -lv -n "fbt::$F:entry" >"$TMP/f.lv" 2>&1
types() { sed -n '/Argument Types/,/^$/p' "$1" | grep 'args\['; }
nk=$(types "$TMP/k.lv" | wc -l)
nf=$(types "$TMP/f.lv" | wc -l)
if [ "$nk" -ge 2 ] && [ "$(types "$TMP/k.lv")" = "$(types "$TMP/f.lv" | head -n "$nk")" ]; then
	pass "live-kinline-args-types ($nk of $nf)"
else
	fail live-kinline-args-types "kinst: $nk, fbt: $nf: $(types "$TMP/k.lv" | tr '\n' ' ')"
fi

N=20
live_run run "ports=$N rt=10" "
fbt::ipc_right_dealloc:entry, fbt::ipc_right_destroy:entry, fbt::ipc_right_delta:entry {
	self->s = args[0]; self->n = args[1]; }
fbt::ipc_right_dealloc:return, fbt::ipc_right_destroy:return, fbt::ipc_right_delta:return {
	self->s = 0; self->n = 0; }
kinst::$F:entry /execname == \"machload\"/ {
	@all = count(); @cur[args[0] == curthread->task->itk_space] = count(); }
kinst::$F:entry /self->s/ { @in[args[0] == self->s && args[1] == self->n] = count(); }
END { printa(\"all %@d\\n\", @all); printa(\"cur %d %@d\\n\", @cur);
	printa(\"in %d %@d\\n\", @in); }" -q
rc=$?
workload_ok live-kinline-args-workload-completes "$TMP/run.con"
all=$(val all "$TMP/run.out")
cur=$(awk '$1 == "cur" && $2 == 1 { print $3 }' "$TMP/run.out")
in=$(awk '$1 == "in" && $2 == 1 { print $3 }' "$TMP/run.out")
bad=$(awk '($1 == "cur" || $1 == "in") && $2 == 0' "$TMP/run.out")
if [ $rc = 0 ] && [ "${all:-0}" -ge $N ] && [ "${cur:-0}" = "$all" ] && [ "${in:-0}" -ge $N ] &&
   [ -z "$bad" ]; then
	pass "live-kinline-args-values ($all copies' entries, $in inside ipc_right_*)"
else
	fail live-kinline-args-values "exit $rc, all ${all:-0}, space ok ${cur:-0}, space+name ok ${in:-0}, wrong: $bad $(head -c 300 "$TMP/run.err")"
fi

if [ "$nf" -gt "$nk" ]; then
	"$MACHTRACE" -e -n "kinst::$F:entry { trace(args[$nk]); }" >/dev/null 2>"$TMP/miss.err"
	rc=$?
	if [ $rc = 1 ] && grep -q "args\[$nk\] ([a-z_]*) of kinst::$F:entry is optimized out at [a-z_]*+0x[0-9a-f]* ([0-9]* of its [0-9]* inlined copies)" "$TMP/miss.err"; then
		pass live-kinline-args-missing
	else
		fail live-kinline-args-missing "exit $rc: $(head -c 300 "$TMP/miss.err")"
	fi
fi
