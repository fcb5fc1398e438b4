#!/usr/bin/env bash
# The fbt probe listing of the stock kernel (dtrace -l format).
set -u
. "$(dirname "$0")/mach_lib.sh"
need_kernel mach-list

"$MACHTRACE" -l -n fbt:::entry >"$TMP/entry" 2>"$TMP/err"
n=$(grep -c ' entry$' "$TMP/entry")
if [ "$n" -ge 1500 ]; then
	pass mach-list-1500-entry-probes
else
	fail mach-list-1500-entry-probes "only $n entry probes: $(cat "$TMP/err")"
fi
missing=
for f in thread_invoke mach_msg_trap vm_fault ipc_mqueue_send ipc_kmsg_copyin; do
	grep -qE "^ *[0-9]+ +fbt +gnumach +$f entry$" "$TMP/entry" || missing="$missing $f"
done
[ -z "$missing" ] && pass mach-list-key-functions || fail mach-list-key-functions "missing:$missing"

"$MACHTRACE" -l -n 'fbt::vm_*:entry' >"$TMP/vm"
if [ "$(grep -v ' dtrace ' "$TMP/vm" | grep -vc ' vm_[^ ]* entry$')" = 1 ] && [ "$(wc -l <"$TMP/vm")" -gt 20 ]; then
	pass mach-list-glob
else
	fail mach-list-glob "unexpected rows: $(grep -v ' dtrace ' "$TMP/vm" | grep -v ' vm_[^ ]* entry$' | head -n 3)"
fi

"$MACHTRACE" -lv -n fbt::vm_fault:entry >"$TMP/v"
if grep -q "args\[0\]: vm_map_t" "$TMP/v" && grep -q "args\[5\]: vm_fault_continuation_t" "$TMP/v"; then
	pass mach-list-verbose-types
else
	fail mach-list-verbose-types "$(cat "$TMP/v")"
fi

# Descriptions filter as dtrace's: exact, a function in the name field
# matches nothing, an empty field is a wildcard.
rows() { "$MACHTRACE" -l -n "$1" 2>>"$TMP/err" | grep -c ' fbt '; }
one=$("$MACHTRACE" -l -n fbt::vm_fault:entry 2>>"$TMP/err" | grep ' fbt ')
if [ "$(rows fbt::vm_fault:entry)" = 1 ] &&
	[ "$(echo "$one" | sed 's/^ *[0-9]* //')" = "       fbt           gnumach                          vm_fault entry" ] &&
	[ "$(rows fbt:::vm_fault)" = 0 ] && [ "$(rows fbt::vm_fault:)" = 2 ]; then
	pass list_filters_like_dtrace
else
	fail list_filters_like_dtrace "rows: $one; $(tail -n 1 "$TMP/err")"
fi

# -lv of an entry and a return probe: two probes, each with its types.
"$MACHTRACE" -lv -n fbt::mach_msg_trap: >"$TMP/trap"
if [ "$(grep -c ' fbt ' "$TMP/trap")" = 2 ] &&
	grep -q "^		args\[0\]: mach_msg_user_header_t \*$" "$TMP/trap" &&
	grep -q "^		args\[1\]: mach_msg_return_t$" "$TMP/trap"; then
	pass list_counts_and_verbose
else
	fail list_counts_and_verbose "$(head -n 30 "$TMP/trap")"
fi

# mach_trap: each trap's arguments typed and named from its DWARF.
"$MACHTRACE" -lv -n mach_trap::mach_msg_trap:entry >"$TMP/mt"
if grep -q "^		args\[0\]: mach_msg_user_header_t \*	/\* msg \*/$" "$TMP/mt" &&
	grep -q "^		args\[1\]: mach_msg_option_t	/\* option \*/$" "$TMP/mt" &&
	! grep -q "args\[7\]" "$TMP/mt"; then
	pass mach-list-trap-args-named
else
	fail mach-list-trap-args-named "$(sed -n '/Argument Types/,$p' "$TMP/mt")"
fi

# sched: every DTrace scheduler probe name is listed, off-cpu typed as
# DTrace's (the next thread's lwpsinfo_t * and psinfo_t *), on-cpu none.
"$MACHTRACE" -l -P sched >"$TMP/sched"
missing=
for n in on-cpu off-cpu enqueue dequeue sleep wakeup preempt change-pri surrender tick handoff; do
	grep -q " $n\$" "$TMP/sched" || missing="$missing $n"
done
"$MACHTRACE" -lv -n sched:::off-cpu >"$TMP/schedv"
"$MACHTRACE" -lv -n sched::thread_continue:on-cpu >"$TMP/schedon"
if [ -z "$missing" ] && [ "$(grep -c '^		args\[0\]: lwpsinfo_t \*$' "$TMP/schedv")" = 2 ] &&
	[ "$(grep -c '^		args\[1\]: psinfo_t \*$' "$TMP/schedv")" = 2 ] &&
	grep -q "^		None$" "$TMP/schedon"; then
	pass mach-list-sched
else
	fail mach-list-sched "missing:$missing; $(sed -n '/Argument Types/,$p' "$TMP/schedv" | head -n 5)"
fi
