#!/usr/bin/env bash
# mach_msgname()/mach_msgsubsystem() in the kernel: aggregations keyed by
# the names, computed in probe context from the enabling image's msgids
# table, count exactly the RPCs machload reports making; and the kernel's
# name of every id it saw is the host msgids library's name for it.
# Kernel-served RPCs are counted in ipc_kobject_server, their replies in
# ipc_kmsg_put (as live_mig.sh does).  Only the words given run: a
# pingpong or rpcs phase, even of 0, would create a thread of its own.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-msgname
NAMES=$BUILD/bin/mt-msgids

T=3 K=2 P=4 I=5
prog='fbt::ipc_kobject_server:entry /execname == "machload"/ {
	@k[mach_msgname(args[0]->ikm_header.msgh_id)] = count();
	@s[mach_msgsubsystem(args[0]->ikm_header.msgh_id)] = count();
	@pair[args[0]->ikm_header.msgh_id, mach_msgname(args[0]->ikm_header.msgh_id)] = count();
}
fbt::ipc_kmsg_put:entry /execname == "machload"/ {
	@p[mach_msgname(args[1]->ikm_header.msgh_id)] = count();
}
END { printa("kobject %s %@d\n", @k); printa("subsys %s %@d\n", @s);
	printa("pair %d %s %@d\n", @pair); printa("put %s %@d\n", @p); }'
live_run msgname "threads=$T tasks=$K ports=$P taskinfo=$I" "$prog" -q
rc=$?
workload_ok live-msgname-workload-completes "$TMP/msgname.con"

reported() {	# phase, n: machload's own line says all n succeeded
	grep -qE "^machload: $1 n=$2 ok=$2 " "$TMP/msgname.con"
}
exact() {	# test name, where, name, machload phase, its n[, count wanted]
	local n want=${6:-$5}
	n=$(sed -n "s/^$2 $3 \([0-9][0-9]*\)$/\1/p" "$TMP/msgname.out" | head -n 1)
	if [ $rc = 0 ] && reported "$4" "$5" && [ "${n:-0}" = "$want" ]; then
		pass "$1"
	else
		fail "$1" "exit $rc, $2 $3 counted ${n:-0} (machload: $(grep "machload: $4 " "$TMP/msgname.con"), want $want): $(grep -E "^$2 " "$TMP/msgname.out" | tr '\n' ' ' | head -c 400) $(head -c 200 "$TMP/msgname.err")"
	fi
}
exact live-msgname-thread_create kobject thread_create threads $T
exact live-msgname-thread_create-reply put thread_create-reply threads $T
exact live-msgname-thread_terminate kobject thread_terminate threads $T
exact live-msgname-task_create kobject task_create tasks $K
exact live-msgname-task_create-reply put task_create-reply tasks $K
exact live-msgname-mach_port_allocate kobject mach_port_allocate ports $P
exact live-msgname-mach_port_destroy kobject mach_port_destroy ports $P
exact live-msgname-task_info kobject task_info taskinfo $I
exact live-msgname-task_info-reply put task_info-reply taskinfo $I
# every mach_port RPC machload makes is one of the ports phase's four
exact live-msgname-subsystem subsys mach_port ports $P $((4 * P))

# The kernel's name of each id it saw is the host library's.
bad=0 npairs=0
while read -r _ id name _; do
	npairs=$((npairs + 1))
	host=$("$NAMES" -d "$BUILD/msgids" "$id" | cut -d' ' -f3)
	[ "$host" = "$name" ] || { bad=1; echo "id $id: kernel '$name', host '$host'"; }
done < <(grep -E '^pair -?[0-9]+ ' "$TMP/msgname.out") >"$TMP/mismatch"
if [ $rc = 0 ] && [ $npairs -ge 8 ] && [ $bad = 0 ]; then
	pass live-msgname-same-as-host
else
	fail live-msgname-same-as-host "exit $rc, $npairs ids: $(head -c 400 "$TMP/mismatch")"
fi
