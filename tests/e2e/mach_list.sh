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
