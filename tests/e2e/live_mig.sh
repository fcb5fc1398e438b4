#!/usr/bin/env bash
# machload speaks MIG (guest/machload.c, build/guest/mig/): its new words
# report their counts, and the kernel sees the genuine MIG request ids,
# named by the msgids library from the files the build generated
# (build/msgids/, MIG's -n -list).  Kernel-served RPCs are counted where
# the kernel runs them (ipc_kobject_server: they never enter
# ipc_mqueue_send), their replies where they are copied out
# (ipc_kmsg_put), machload_echo's requests where their header is copied
# in (ipc_kmsg_copyin_header; its replies take mach_msg_trap's fast path
# and none of these functions see them).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-mig
NAMES=$BUILD/bin/mt-msgids

P=5 I=6 V=7 R=8
prog='fbt::ipc_kobject_server:entry /execname == "machload"/ { @k[args[0]->ikm_header.msgh_id] = count(); }
fbt::ipc_kmsg_put:entry /execname == "machload"/ { @p[args[1]->ikm_header.msgh_id] = count(); }
fbt::ipc_kmsg_copyin_header:entry /execname == "machload"/ { @c[args[0]->msgh_id] = count(); }
END { printa("kobject %d %@d\n", @k); printa("put %d %@d\n", @p); printa("copyin %d %@d\n", @c); }'
live_run mig "rt=0 pingpong=0 pages=0 threads=1 tasks=1 ports=$P taskinfo=$I vmmaps=$V rpcs=$R" "$prog" -q
rc=$?
workload_ok live-mig-workload-completes "$TMP/mig.con"

check_line() {	# test name, phase, n
	if grep -qE "^machload: $2 n=$3 ok=$3 cycles=[0-9]+ per=[0-9]+ OK$" "$TMP/mig.con"; then
		pass "$1"
	else
		fail "$1" "no 'machload: $2 n=$3 ok=$3 ... OK' line: $(grep "machload: $2" "$TMP/mig.con")"
	fi
}
check_line live-mig-ports ports $P
check_line live-mig-taskinfo taskinfo $I
check_line live-mig-vmmaps vmmaps $V
check_line live-mig-rpcs rpcs $R
check_line live-mig-threads threads 1
check_line live-mig-tasks tasks 1

# "WHERE ROUTINE COUNT" lines: ids named on the host by the msgids library.
: >"$TMP/named"
while read -r where id count; do
	name=$("$NAMES" -d "$BUILD/msgids" "$id" | cut -d' ' -f3)
	echo "$where $name $count" >>"$TMP/named"
done < <(grep -E '^(kobject|put|copyin) [0-9]+ [0-9]+$' "$TMP/mig.out")

seen() {	# test name, where, routine, at least
	local n
	n=$(sed -n "s/^$2 $3 \([0-9][0-9]*\)$/\1/p" "$TMP/named" | head -n 1)
	if [ $rc = 0 ] && [ "${n:-0}" -ge "$4" ]; then
		pass "$1"
	else
		fail "$1" "exit $rc, $3 seen ${n:-0} times at $2 (want >= $4): $(tr '\n' ' ' <"$TMP/named" | head -c 400) $(head -c 200 "$TMP/mig.err")"
	fi
}
seen live-mig-mach_port_allocate kobject mach_port_allocate $P
seen live-mig-mach_port_insert_right kobject mach_port_insert_right $P
seen live-mig-mach_port_deallocate kobject mach_port_deallocate $P
seen live-mig-mach_port_destroy kobject mach_port_destroy $P
seen live-mig-task_info kobject task_info $I
seen live-mig-task_info-reply put task_info-reply $I
seen live-mig-vm_map kobject vm_map $V
seen live-mig-vm_deallocate kobject vm_deallocate $V
seen live-mig-thread_create kobject thread_create 1
seen live-mig-task_create kobject task_create 1
seen live-mig-machload_echo copyin machload_echo $R

# The word check on the host knows the new words.
if "$MACHTRACE" --workload "rpcs=x" -n 'BEGIN { exit(0); }' >/dev/null 2>"$TMP/bad.err"; then
	fail live-mig-bad-word "rpcs=x accepted"
elif grep -q "unknown workload word 'rpcs=x'.*rpcs=N" "$TMP/bad.err"; then
	pass live-mig-bad-word
else
	fail live-mig-bad-word "$(head -c 300 "$TMP/bad.err")"
fi
