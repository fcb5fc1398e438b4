#!/usr/bin/env bash
# `machtrace -l` lists the catalog tracing uses: the id it prints for a
# kernel probe is the id the trace output carries, and every provider the
# live target offers (mach_trap too) is listed, each probe name once.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-list

lid=$("$MACHTRACE" -l -n 'fbt::vm_fault:entry' | awk '$4 == "vm_fault" && $5 == "entry" { print $1 }')
"$MACHTRACE" -n 'fbt::vm_fault:entry { exit(0); }' >"$TMP/trace.out" 2>"$TMP/trace.err"
tid=$(awk '$3 == "vm_fault:entry" { print $2; exit }' "$TMP/trace.out")
if [ -n "$lid" ] && [ "$lid" = "$tid" ]; then
	pass live-list-ids-match-tracing
else
	fail live-list-ids-match-tracing "-l says ${lid:-nothing}, tracing printed ${tid:-nothing}: $(head -c 200 "$TMP/trace.err")"
fi

"$MACHTRACE" -l -n 'mach_trap:::entry' >"$TMP/traps"
n=$(grep -c ' mach_trap  *gnumach  *mach_msg_trap entry$' "$TMP/traps")
dups=$(awk 'NR > 1 { print $4 }' "$TMP/traps" | sort | uniq -d | head -n 3 | tr '\n' ' ')
if [ "$n" = 1 ] && [ -z "$dups" ]; then
	pass live-list-mach_trap
else
	fail live-list-mach_trap "mach_msg_trap listed $n times; repeated names: ${dups:-none}"
fi

"$MACHTRACE" -lv -n 'fbt::ipc_mqueue_send:entry' >"$TMP/v"
if grep -q 'args\[0\]: ipc_kmsg_t' "$TMP/v"; then
	pass live-list-verbose-args
else
	fail live-list-verbose-args "$(tail -n 5 "$TMP/v" | tr '\n' ' ')"
fi

# docs/recording.md's event table names probes a user types: each (but
# the TRAP placeholder) matches one (issue 21 item 14: vm:user_trap:fault
# matched nothing)
bad=
for d in $(awk -F ' [|] ' '/^[|] (sched|proc|trap|ipc|vm) [|]/ { print $2 }' docs/recording.md |
	   grep -o '`[^`]*`' | tr -d '`' | grep -v TRAP); do
	[ "$("$MACHTRACE" -l -n "$d" 2>/dev/null | wc -l)" -ge 2 ] || bad="$bad $d"
done
if [ -z "$bad" ] && grep -q '`vm::user_trap:fault`' docs/recording.md; then
	pass live-list-recording-doc-probes
else
	fail live-list-recording-doc-probes "match nothing:${bad:- (table not found)}"
fi
