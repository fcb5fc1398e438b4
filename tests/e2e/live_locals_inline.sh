#!/usr/bin/env bash
# locals-> inside an inlined copy: at the entry of each copy of
# ipc_entry_lookup inlined into ipc_mqueue_copyin (machload's receives
# reach it; its sites as -d writes them), locals->space and locals->name
# are the copy's own parameters and locals->mqueuep its caller's; ground
# truth: ipc_mqueue_copyin's args[0], args[1] and args[2] saved at its
# entry (it passes its space and name on).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-locals-inline

F=ipc_mqueue_copyin
offs=$("$MACHTRACE" -d -e -n 'kinst::ipc_entry_lookup:entry { }' 2>/dev/null |
	sed -n "s/^kinst::$F:\([0-9]*\)[, ].*/\1/p")
sites=""
for o in $offs; do
	"$MACHTRACE" -e -n "kinst::$F:$o { trace(locals->space); trace(locals->name); trace(locals->mqueuep); }" \
		2>/dev/null && sites="$sites $o"
done
if [ -z "$sites" ]; then
	fail live-locals-inline-sites "no copy of ipc_entry_lookup in $F with space, name and mqueuep (copies at: ${offs:-none})"
	exit 0
fi
prog="fbt::$F:entry { self->sp = args[0]; self->nm = args[1]; self->mq = args[2]; }
fbt::$F:return { self->sp = 0; }"
for o in $sites; do
	prog="$prog
kinst::$F:$o /self->sp/ {
	@[probename, locals->space == self->sp && locals->name == self->nm,
	  locals->mqueuep == self->mq] = count(); }"
done
live_run inl "rt=50 pingpong=20 threads=1 tasks=1" "$prog" -q
rc=$?
workload_ok live-locals-inline-workload-completes "$TMP/inl.con"
good=$(awk '$2 == 1 && $3 == 1 { n += $4 } END { print n + 0 }' "$TMP/inl.out")
wrong=$(awk '$2 != 1 || $3 != 1' "$TMP/inl.out")
if [ $rc = 0 ] && [ "$good" -gt 0 ] && [ -z "$wrong" ]; then
	pass "live-locals-inline-copy-and-caller ($good firings at$sites)"
else
	fail live-locals-inline-copy-and-caller "exit $rc, sites$sites: $good agree, disagreeing: $wrong $(head -c 300 "$TMP/inl.err")"
fi
