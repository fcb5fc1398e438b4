#!/usr/bin/env bash
# args[] are typed from the kernel's DWARF: ipc_mqueue_send's first
# argument is an ipc_kmsg_t, and the message id in its header is the one
# machload sends (MSG_ID 4242) once per round trip.  A member of a struct
# the program never declared resolves on demand; a bad member is a D error.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-args

N=500
prog='fbt::ipc_mqueue_send:entry /execname == "machload"/ { @[args[0]->ikm_header.msgh_id] = count(); }
END { printa("id %d %@d\n", @); }'
live_run typed "rt=$N pingpong=0 pages=0 threads=0 tasks=0" "$prog" -q
rc=$?
workload_ok live-args-workload-completes "$TMP/typed.con"
n=$(sed -n 's/^id 4242 \([0-9][0-9]*\)$/\1/p' "$TMP/typed.out")
if [ $rc = 0 ] && [ "${n:-0}" -ge $N ]; then
	pass live-args-typed-msgh_id
else
	fail live-args-typed-msgh_id "exit $rc, msgh_id 4242 seen ${n:-0} times (want >= $N): $(head -c 300 "$TMP/typed.err")"
fi

"$MACHTRACE" -e -n 'fbt::ipc_mqueue_send:entry { trace(args[0]->no_such_member); }' \
	>"$TMP/bad.out" 2>"$TMP/bad.err"
rc=$?
if [ $rc = 1 ] && grep -q 'no_such_member is not a member of struct ipc_kmsg' "$TMP/bad.err"; then
	pass live-args-bad-member
else
	fail live-args-bad-member "exit $rc: $(head -c 300 "$TMP/bad.err")"
fi
