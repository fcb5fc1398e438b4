#!/usr/bin/env bash
# The toolkit (toolkit/), run as installed scripts with machtrace on PATH,
# against machload's ground truth: offcputime sees every blocking receive
# of pingpong=P and rpcs=R for machload (2 per round trip, 1 per RPC at
# least) and charges each thread its own blocking stack across stack
# handoffs (a stack entered by a system call is machload's, the only user
# task; one in the idle thread's loop is an idle thread's); schedlat sees machload's
# threads wait in the run queue (at least once per round trip); hotkernel's
# shares are of kernel functions (or machtrace's trampolines, where a
# kernel function's displaced instructions run) and add up to 100%; rpcsnoop prints each
# of machload's RPCs by name, with its server and return code (rpcs=R
# machload_echo answered by machload itself, tasks=K task_create and
# taskinfo=I task_info answered by the kernel), each with the arguments and
# out-arguments machload printed, and rpctop counts them;
# faulttop sees at least pages=P faults and zero-fills for machload, none
# failed; tasksnoop shows machload's threads=T threads and tasks=K tasks
# being created and dying.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-toolkit

P=30
W="rt=0 pingpong=$P pages=64 threads=0 tasks=0"
export PATH="$PWD/$BUILD/bin:$PATH"

run() {	# name script
	MACHTRACE_CONSOLE_LOG=$TMP/$1.con timeout 240 "toolkit/$2" --timeout 200 \
		--workload "$W" >"$TMP/$1.out" 2>"$TMP/$1.err"
}

R=5
W="rt=0 pingpong=$P pages=0 threads=2 tasks=0 rpcs=$R"
run off offcputime; rc=$?
n=$(awk '$1 == "machload" && NF == 3 { print $3 }' "$TMP/off.out")
want=$(awk '$1 == "machload:" && ($2 == "pingpong" || $2 == "rpcs") {
	sub("ok=", "", $4); w += ($2 == "pingpong" ? 2 : 1) * $4 } END { print w + 0 }' "$TMP/off.con")
wrong=$(awk '/^TASK/ { exit } /^[^ ]/ { task = $1 }
	/syscall64/ && task != "machload" || /idle_thread/ && task !~ /^idle\// { print task ":" $1 }' "$TMP/off.out" | sort -u | tr '\n' ' ')
if [ $rc = 0 ] && [ "$want" -ge $((2 * P + R)) ] && [ "${n:-0}" -ge "$want" ] && [ -z "$wrong" ] &&
   grep -q 'gnumach`thread_invoke' "$TMP/off.out"; then
	pass live-toolkit-offcputime
else
	fail live-toolkit-offcputime "exit $rc, machload count ${n:-none} (want >= $want), stacks of another thread: ${wrong:-none}: $(head -c 300 "$TMP/off.err")"
fi
W="rt=0 pingpong=$P pages=64 threads=0 tasks=0"

run lat schedlat; rc=$?
n=$(sed -n 's/^latencies machload \([0-9]*\)$/\1/p' "$TMP/lat.out")
if [ $rc = 0 ] && [ "${n:-0}" -ge $P ] && grep -q "^machload$" "$TMP/lat.out"; then
	pass live-toolkit-schedlat
else
	fail live-toolkit-schedlat "exit $rc, machload latencies ${n:-none} (want >= $P): $(head -c 300 "$TMP/lat.err")"
fi

W="rt=100000 pingpong=0 pages=64 threads=0 tasks=0"	# ~20 ticks of samples
run hot hotkernel; rc=$?
rows=$(grep -c -e '^gnumach`' -e '^machtrace`' "$TMP/hot.out")
other=$(grep -vc -e '^gnumach`' -e '^machtrace`' -e '^FUNCTION' "$TMP/hot.out")
sum=$(awk '/^(gnumach|machtrace)`/ { sub("%", "", $3); s += $3 } END { printf("%d", s + 0.5) }' "$TMP/hot.out")
if [ $rc = 0 ] && [ "$rows" -gt 0 ] && [ "$other" = 0 ] && [ "$sum" -ge 99 ] && [ "$sum" -le 101 ]; then
	pass live-toolkit-hotkernel
else
	fail live-toolkit-hotkernel "exit $rc, $rows rows, $other others, shares add to $sum%: $(head -c 300 "$TMP/hot.err")"
fi

R=5 K=2 I=3
W="rt=0 pingpong=0 pages=0 threads=1 tasks=$K rpcs=$R taskinfo=$I vmmaps=1 ports=1"
run snoop rpcsnoop; rc=$?
o=$TMP/snoop.out
echo_n=$(grep -cE '^ *[0-9]+ machload: machload->machload_echo \([0-9]+ "echo [a-z]"\) = 0 [0-9]+ \([0-9]+ us\)$' "$o")
tc=$(grep -cE '^ *[0-9]+ machload: gnumach->task_create \(0\) = 0 send:0x[0-9a-f]+ \([0-9]+ us\)$' "$o")
ti=$(grep -cE '^ *[0-9]+ machload: gnumach->task_info \(1 [0-9]+\) = 0 \[[-0-9 .]+\] \([0-9]+ us\)$' "$o")
if [ $rc = 0 ] && [ "$echo_n" = $R ] && [ "$tc" = $K ] && [ "$ti" = $I ]; then
	pass live-toolkit-rpcsnoop
else
	fail live-toolkit-rpcsnoop "exit $rc: machload_echo $echo_n (want $R), task_create $tc ($K), task_info $ti ($I): $(head -c 300 "$TMP/snoop.err")"
fi
# the decoded arguments and out-arguments are the values machload printed
# for its first calls ("machload: rpc ROUTINE (ARGS) = RETURN OUTS"), a
# send right's name there being the kernel's port here; every routine
# it prints is one of the nine it makes
sed -E 's/^ *[0-9]+ machload: [a-z]+->//; s/ \([0-9]+ us\)$//; s/send:0x[0-9a-f]+/send:P/g' "$o" >"$TMP/snoop.args"
sed -n 's/^.*machload: rpc //p' "$TMP/snoop.con" | tr -d '\r' | sed -E 's/send:[0-9]+/send:P/g' >"$TMP/snoop.want"
missing=$(awk 'NR == FNR { n[$0]++; next } !(n[$0]-- > 0) { print }' "$TMP/snoop.args" "$TMP/snoop.want" | head -n 3 | tr '\n' ';')
routines=$(awk '{ print $1 }' "$TMP/snoop.want" | LC_ALL=C sort -u | tr '\n' ' ')
if [ $rc = 0 ] && [ -z "$missing" ] && [ "$routines" = "mach_port_allocate mach_port_deallocate mach_port_destroy mach_port_insert_right machload_echo task_create task_info thread_create vm_map " ]; then
	pass live-toolkit-rpcsnoop-args
else
	fail live-toolkit-rpcsnoop-args "exit $rc: routines machload printed: $routines; not decoded as machload printed: ${missing:-none}"
fi
run top rpctop; rc=$?
cnt() { awk -v r="$1" '$1 == r { print $2 }' "$TMP/top.out"; }
if [ $rc = 0 ] && [ "$(cnt machload_echo)" = $R ] && [ "$(cnt task_create)" = $K ] &&
   [ "$(cnt task_info)" = $I ] && grep -q "^over [0-9]* ms of tracing$" "$TMP/top.out"; then
	pass live-toolkit-rpctop
else
	fail live-toolkit-rpctop "exit $rc: $(grep -E 'machload_echo|task_create|task_info' "$TMP/top.out" | tr '\n' ' ') $(head -c 200 "$TMP/top.err")"
fi

P=48 T=3 K=2
W="threads=$T tasks=$K pages=$P"
run ft faulttop; rc=$?
read -r f z c x <<<"$(awk '$1 == "machload" { print $2, $3, $4, $5 }' "$TMP/ft.out")"
if [ $rc = 0 ] && [ "${f:-0}" -ge $P ] && [ "${z:-0}" -ge $P ] && [ "${x:-1}" = 0 ]; then
	pass live-toolkit-faulttop
else
	fail live-toolkit-faulttop "exit $rc: machload faults ${f:-none} zfod ${z:-none} failed ${x:-none} (want >= $P, >= $P, 0): $(head -c 300 "$TMP/ft.err")"
fi
run ts tasksnoop; rc=$?
ev() { awk -v e="$1" '$2 == e && $NF == "machload"' "$TMP/ts.out" | wc -l; }
if [ $rc = 0 ] && [ "$(ev create)" = $K ] && [ "$(ev exit)" = $K ] &&
   [ "$(ev lwp-create)" = $T ] && [ "$(ev lwp-exit)" = $T ]; then
	pass live-toolkit-tasksnoop
else
	fail live-toolkit-tasksnoop "exit $rc: by machload create $(ev create) exit $(ev exit) (want $K), lwp-create $(ev lwp-create) lwp-exit $(ev lwp-exit) (want $T): $(head -c 300 "$TMP/ts.err")"
fi
# machload's task is created before GNU Mach names it (issue 21 item 14):
# its create line carries the name, not the task's address
if awk '$2 == "create" && $3 == 1 && $5 == "machload" { ok = 1 } END { exit !ok }' "$TMP/ts.out" &&
   ! grep -qE '^ *[0-9]+ [a-z-]+ +[0-9]+ +[-0-9]+ [0-9a-f]{16} ' "$TMP/ts.out"; then
	pass live-toolkit-tasksnoop-names
else
	fail live-toolkit-tasksnoop-names "$(grep ' create ' "$TMP/ts.out" | head -n 2 | tr '\n' ' ')"
fi
workload_ok live-toolkit-workload "$TMP/off.con"
