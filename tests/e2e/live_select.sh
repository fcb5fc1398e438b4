#!/usr/bin/env bash
# The target rule (issue 7 item 13): -f FUNC, -m MODULE and -i ID select
# kernel probes without --mach (they name no provider, and only the kernel
# has such probes), and the ids -i takes are the ones -l prints, with or
# without --mach.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-select

"$MACHTRACE" -l -f vm_fault >"$TMP/lf.out" 2>"$TMP/lf.err"
if grep -qE '^ *[0-9]+ +fbt +gnumach +vm_fault entry$' "$TMP/lf.out" &&
   grep -qE '^ *[0-9]+ +fbt +gnumach +vm_fault return$' "$TMP/lf.out"; then
	pass live-select-list-f
else
	fail live-select-list-f "$(head -c 300 "$TMP/lf.out" "$TMP/lf.err")"
fi
"$MACHTRACE" -l -m gnumach >"$TMP/lm.out" 2>"$TMP/lm.err"
if [ "$(grep -cE '^ *[0-9]+ +fbt +gnumach ' "$TMP/lm.out")" -ge 1000 ]; then
	pass live-select-list-m
else
	fail live-select-list-m "$(head -c 300 "$TMP/lm.out" "$TMP/lm.err")"
fi
id=$("$MACHTRACE" -l -n fbt::vm_fault:entry | awk 'NR == 2 { print $1 }')
ok=1
for mach in "" --mach; do
	# shellcheck disable=SC2086
	"$MACHTRACE" $mach -l -i "$id" >"$TMP/li.out" 2>"$TMP/li.err"
	grep -qE "^ *$id +fbt +gnumach +vm_fault entry$" "$TMP/li.out" || ok=0
done
if [ -n "$id" ] && [ $ok = 1 ]; then
	pass live-select-list-i
else
	fail live-select-list-i "id '$id': $(head -c 300 "$TMP/li.out" "$TMP/li.err")"
fi

# tracing: -f and -i without --mach run in the kernel; vm_fault's entry
# (selected by id) fires, and -f counts its entries and returns
MACHTRACE_CONSOLE_LOG=$TMP/run.con timeout 240 "$MACHTRACE" -q --timeout 200 \
	--workload "rt=10 pingpong=0 pages=64 threads=0 tasks=0" \
	-f 'vm_fault { @f = count(); }' -i "$id { @i = count(); }" \
	-n 'END { printa("f %@d\n", @f); printa("i %@d\n", @i); }' \
	>"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
workload_ok live-select-workload-completes "$TMP/run.con"
f=$(val f "$TMP/run.out")
i=$(val i "$TMP/run.out")
if [ $rc = 0 ] && [ "${i:-0}" -ge 64 ] && [ "${f:-0}" -ge "$i" ]; then
	pass live-select-trace-f-i
else
	fail live-select-trace-f-i "exit $rc, f=${f:-} i=${i:-}: $(head -c 300 "$TMP/run.err")"
fi

# --workload selects the kernel as --kernel does (issue 21 item 11): a
# profile program with a workload samples GNU Mach running it, not
# machtrace (which ran it locally, and never ended)
MACHTRACE_CONSOLE_LOG=$TMP/wl.con timeout 120 "$MACHTRACE" -q --timeout 60 \
	--workload "rt=10 pingpong=0 pages=0 threads=0 tasks=0" \
	-n 'profile-97 { @p = count(); } tick-1s { exit(0); } END { printa("p %@d\n", @p); }' \
	>"$TMP/wl.out" 2>"$TMP/wl.err"
rc=$?
p=$(val p "$TMP/wl.out")
if [ $rc = 0 ] && [ "${p:-0}" -ge 1 ] && grep -q "^machload" "$TMP/wl.con" 2>/dev/null &&
   ! grep -q "local target" "$TMP/wl.err"; then
	pass live-select-workload-kernel
else
	fail live-select-workload-kernel "exit $rc, p=${p:-}: $(head -c 300 "$TMP/wl.err")"
fi
