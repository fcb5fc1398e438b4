#!/usr/bin/env bash
# ipc: every message machload sends is seen once as ipc:::send and every
# message it dequeues once as ipc:::receive, on every path (targets/mach/
# live/prov_ipc.c), against machload's own counts:
#  - threads=T tasks=K: thread_create sent exactly T times, task_create K
#    times (requests the kernel serves on mach_msg_trap's kernel path, never
#    entering ipc_mqueue_send), their replies sent and received T and K
#    times (taken straight from ipc_kobject_server: the direct reply path);
#  - rpcs=R: machload_echo requests and replies each sent and received
#    exactly R times, most of them on mach_msg_trap's fast handoff (without
#    its sites the counts fall to the few that take the slow path);
#    taskinfo=I: task_info and its reply I times.
# Messages are named by args[0]->msg_name (msginfo_t, mach.d).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-ipc

# -l lists every probe, -lv their argument types (no kernel boot)
"$MACHTRACE" -l -P ipc >"$TMP/l.out" 2>&1
for p in "ipc_mqueue_send send" "mach_msg_trap send" "mach_msg_trap send-error" \
	 "mach_msg_send send-error" "ipc_mqueue_receive receive" "mach_msg_trap receive" \
	 "exception_raise send" "exception_raise receive"; do
	if grep -qE "ipc +gnumach +${p% *} ${p#* }\$" "$TMP/l.out"; then
		pass "live-ipc-list-${p// /-}"
	else
		fail "live-ipc-list-${p// /-}" "$(cat "$TMP/l.out")"
	fi
done
for n in send receive send-error; do
	"$MACHTRACE" -lv -n "ipc:::$n" >"$TMP/lv.out" 2>&1
	if grep -q 'args\[0\]: msginfo_t \*' "$TMP/lv.out" &&
	   grep -q 'args\[1\]: psinfo_t \*' "$TMP/lv.out" &&
	   grep -q 'args\[2\]: psinfo_t \*' "$TMP/lv.out"; then
		pass "live-ipc-lv-$n"
	else
		fail "live-ipc-lv-$n" "$(grep -A4 'Argument Types' "$TMP/lv.out" | head -n 5)"
	fi
done

# args[0] is a msginfo_t * (mach.d's translator from struct ipc_kmsg)
prog='ipc:::send /execname == "machload"/ { @s[args[0]->msg_name] = count(); }
ipc:::receive /execname == "machload"/ { @r[args[0]->msg_name] = count(); }
ipc:gnumach:mach_msg_trap:send /execname == "machload"/ { @f[args[0]->msg_name] = count(); }
ipc:::receive /args[0]->msg_name == "machload_echo" && args[0]->msg_subsystem == "machload"/
{ @w[args[2]->pr_fname] = count(); }
END { printa("send %s %@d\n", @s); printa("receive %s %@d\n", @r); printa("fast %s %@d\n", @f);
	printa("receiver %s %@d\n", @w); }'

named() {	# run: its "WHAT ROUTINE COUNT" lines
	grep -E '^(send|receive|fast|receiver) [^ ]+ [0-9]+$' "$TMP/$1.out" >"$TMP/$1.named"
}

count_of() {	# run, what, routine
	sed -n "s/^$2 $3 \([0-9][0-9]*\)$/\1/p" "$TMP/$1.named" | head -n 1
}

exact() {	# test name, run, what, routine, want
	local n
	n=$(count_of "$2" "$3" "$4")
	if [ "${n:-0}" = "$5" ]; then
		pass "$1"
	else
		fail "$1" "$3 $4: ${n:-0}, machload says $5: $(tr '\n' ' ' <"$TMP/$2.named" | head -c 400) $(head -c 200 "$TMP/$2.err")"
	fi
}

phase_ok() {	# test name, run, phase, n
	if grep -qE "^machload: $3 n=$4 ok=$4 .* OK$" "$TMP/$2.con"; then
		pass "$1"
	else
		fail "$1" "no 'machload: $3 n=$4 ok=$4 ... OK': $(grep "machload: $3" "$TMP/$2.con")"
	fi
}

T=3 K=2
live_run tt "threads=$T tasks=$K" "$prog" -q
workload_ok live-ipc-tt-workload "$TMP/tt.con"
phase_ok live-ipc-tt-threads tt threads $T
phase_ok live-ipc-tt-tasks tt tasks $K
named tt
exact live-ipc-thread_create tt send thread_create $T
exact live-ipc-task_create tt send task_create $K
exact live-ipc-thread_create-reply-sent tt send thread_create-reply $T
exact live-ipc-thread_create-reply-received tt receive thread_create-reply $T
exact live-ipc-task_create-reply-received tt receive task_create-reply $K

R=6 I=4
MACHTRACE_LIVE_STATS=1 live_run rpc "rpcs=$R taskinfo=$I" "$prog" -q
workload_ok live-ipc-rpc-workload "$TMP/rpc.con"
phase_ok live-ipc-rpc-rpcs rpc rpcs $R
phase_ok live-ipc-rpc-taskinfo rpc taskinfo $I
named rpc
exact live-ipc-echo-sent rpc send machload_echo $R
exact live-ipc-echo-received rpc receive machload_echo $R
exact live-ipc-echo-reply-sent rpc send machload_echo-reply $R
exact live-ipc-echo-reply-received rpc receive machload_echo-reply $R
exact live-ipc-task_info rpc send task_info $I
exact live-ipc-task_info-reply-received rpc receive task_info-reply $I
# args[2]: the receiving task, on the slow and the fast paths alike
exact live-ipc-echo-receiver rpc receiver machload $R
# the fast paths carried some of the RPCs (the exact counts above need them)
f1=$(count_of rpc fast machload_echo) f2=$(count_of rpc fast machload_echo-reply)
f=$(( ${f1:-0} + ${f2:-0} ))
if [ "$f" -gt 0 ]; then
	pass live-ipc-fast-path-used
else
	fail live-ipc-fast-path-used "no machload_echo message on mach_msg_trap's fast paths"
fi

# the sites inside functions (mach_msg_trap's fast paths, the dequeue in
# ipc_mqueue_receive) take a jmp, not an int3 (plan.c plan_sdt_insn: the
# blob's statistics count every int3 it fields), and count as the int3s do
hits() { sed -n 's/.* \([0-9][0-9]*\) int3 hits.*/\1/p' "$TMP/$1.err"; }
MACHTRACE_NOJMPINSN=1 MACHTRACE_LIVE_STATS=1 live_run rpc3 "rpcs=$R taskinfo=$I" "$prog" -q
named rpc3
h=$(hits rpc) h3=$(hits rpc3)
nofast() { grep -v '^fast ' "$TMP/$1.named"; }	# which path varies by run
if [ "$h" = 0 ] && [ "${h3:-0}" -gt 0 ] && [ "$(nofast rpc)" = "$(nofast rpc3)" ]; then
	pass live-ipc-jmp-sites
else
	fail live-ipc-jmp-sites "int3 hits ${h:-?} with jmp sites, ${h3:-?} with int3s: $(diff <(nofast rpc) <(nofast rpc3) | head -n 4)"
fi
# One member of a translated argument evaluates its own translator
# expression alone (dtrace's dt_cg_xlate_member): msg_id looks up no
# MIG name and copies no string; the whole struct still has them all.
"$MACHTRACE" -S -e -n 'ipc:::send { @[args[0]->msg_id] = count(); }' >"$TMP/xm.S" 2>&1
"$MACHTRACE" -S -e -n 'ipc:::send { print(*args[0]); }' >"$TMP/xw.S" 2>&1
if grep -q 'returns int' "$TMP/xm.S" && ! grep -qE 'mach_msg(name|subsystem)|copys|allocs' "$TMP/xm.S" &&
   grep -q mach_msgname "$TMP/xw.S" && grep -q mach_msgsubsystem "$TMP/xw.S"; then
	pass live-ipc-xlate-member-alone
else
	fail live-ipc-xlate-member-alone "$(grep -cE '^[0-9]+:' "$TMP/xm.S") instructions for msg_id: $(grep -E 'call|copys|rror' "$TMP/xm.S" | head -n 3 | tr '\n' ' ')"
fi
