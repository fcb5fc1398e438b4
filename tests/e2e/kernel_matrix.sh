#!/usr/bin/env bash
# The kernel matrix (issue 23): the core provider set, on each of the five
# kernels machtrace supports (trixie's tested one, forky's and sid's newest
# amd64-up-dbg, sid's amd64-smp-dbg on one CPU, the one built from source by
# kernel_src.sh), in few boots,
# every count against machload's own report on the console:
#  - one -c session: fbt and mach_trap see the same mach_msg_trap entries,
#    at least 2 per rt round trip; ipc send and receive by msg_name
#    (rpcs=R: R machload_echo and R replies each way; pingpong's 4242
#    received as often as sent; tasks=K: K task_create-reply received);
#    proc:::create K times, proc:::exit K + 1 (machload exits too);
#    vm:::fault at least pages=P times; sched on-cpu in machload, off-cpu
#    at least 2 per pingpong exchange and 1 per RPC; usdt round-trip once
#    per rt round trip, pid$target's rt_once entry as often;
#  - record: babeltrace2 reads as many events as ipc:::send of machload_echo
#    recorded, R of them;
#  - rpcsnoop --kernel: R machload_echo and K task_create lines;
#  - vm start --kernel, one attached session counting one serve round's
#    machload_echo receives (R), vm stop leaving no QEMU.
# A kernel that is absent is a counted SKIP with the reason.  Checks are
# named kernel-matrix-SUITE-WHAT.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live kernel-matrix

# MACHTRACE_MATRIX="sid sid-smp" runs those rows only
SUITES=${MACHTRACE_MATRIX:-trixie forky sid sid-smp src}
VM=e2e-km-$$	# the VMs of vmattach, named VM-SUITE, stopped on any exit
trap 'for s in $SUITES; do "$MACHTRACE" vm stop "$VM-$s" >/dev/null 2>&1; done; rm -rf "$TMP"' EXIT

# the self-built kernel: kernel_src.sh's build (same inputs: reused)
src_kernel() {
	local out=$BUILD/kernel-src-test
	scripts/kernel-src.sh --patch tests/e2e/kernel_src_sdt.patch --out "$out" \
		>"$TMP/src-build.log" 2>&1 && [ -s "$out/gnumach" ] && echo "$out/gnumach"
}

R=5 P=16 K=2 N=40 S=20
prog='fbt::mach_msg_trap:entry /execname == "machload"/ { @f = count(); }
mach_trap::mach_msg_trap:entry /execname == "machload"/ { @m = count(); }
ipc:::send /execname == "machload"/ { @s[args[0]->msg_name] = count(); }
ipc:::receive /execname == "machload"/ { @r[args[0]->msg_name] = count(); }
proc:::create /execname == "machload"/ { @c = count(); }
proc:::exit /execname == "machload"/ { @e = count(); }
vm:::fault /execname == "machload"/ { @v = count(); }
sched:::on-cpu /execname == "machload"/ { @on = count(); }
sched:::off-cpu /execname == "machload"/ { @off = count(); }
machload$target:::round-trip { @u = count(); }
pid$target:machload:rt_once:entry { @p = count(); }
END { printa("send %s %@d\n", @s); printa("receive %s %@d\n", @r);
	printa("f %@d\n", @f); printa("m %@d\n", @m); printa("c %@d\n", @c);
	printa("e %@d\n", @e); printa("v %@d\n", @v); printa("on %@d\n", @on);
	printa("off %@d\n", @off); printa("u %@d\n", @u); printa("p %@d\n", @p); }'

ms() { echo $(( $(date +%s%N) / 1000000 )); }
exact() {	# test name, got, want, file with the counts
	if [ -n "$3" ] && [ "${2:-0}" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "${2:-0}, machload says ${3:-nothing}: $(tr '\n' ' ' <"$4" | head -c 300)"
	fi
}
atleast() {	# test name, got, least
	if [ -n "$3" ] && [ "$3" -gt 0 ] && [ "${2:-0}" -ge "$3" ]; then
		pass "$1"
	else
		fail "$1" "${2:-0}, want at least ${3:-?}"
	fi
}
named() {	# file, what, routine: the count
	sed -n "s/^$2 $3 \([0-9][0-9]*\)$/\1/p" "$1" | head -n 1
}
phase() {	# console, phase: machload's ok= count
	sed -n "s/^machload: $2 n=[0-9]* ok=\([0-9]*\) .*/\1/p" "$1" | head -n 1
}

core() {	# suite, kernel: the -c session
	local t=kernel-matrix-$1 o=$TMP/$1.out c=$TMP/$1.con
	MACHTRACE_CONSOLE_LOG=$c timeout 240 "$MACHTRACE" --timeout 200 --kernel "$2" -q \
		-c "machload rt=$N rpcs=$R pingpong=$S tasks=$K pages=$P threads=0 exit" \
		-n "$prog" >"$o" 2>"$TMP/$1.err"
	local rc=$?
	if [ $rc = 0 ] && grep -q '^dtrace: pid 1 has exited$' "$TMP/$1.err"; then
		pass "$t-session"
	else
		fail "$t-session" "exit $rc: $(head -c 300 "$TMP/$1.err")"
	fi
	local gr gp gk gn gt
	gr=$(phase "$c" rpcs) gp=$(phase "$c" pingpong) gk=$(phase "$c" tasks)
	gn=$(phase "$c" pages) gt=$(phase "$c" rt)
	exact "$t-fbt-mach_trap" "$(val f "$o")" "$(val m "$o")" "$o"
	atleast "$t-mach_trap-per-rt" "$(val m "$o")" "$((2 * ${gt:-0}))"
	exact "$t-ipc-echo-sent" "$(named "$o" send machload_echo)" "$gr" "$o"
	exact "$t-ipc-echo-received" "$(named "$o" receive machload_echo)" "$gr" "$o"
	exact "$t-ipc-echo-reply-sent" "$(named "$o" send machload_echo-reply)" "$gr" "$o"
	exact "$t-ipc-echo-reply-received" "$(named "$o" receive machload_echo-reply)" "$gr" "$o"
	local ps
	ps=$(named "$o" send 4242)
	atleast "$t-ipc-pingpong-sent" "$ps" "$gp"
	exact "$t-ipc-pingpong-received-as-sent" "$(named "$o" receive 4242)" "$ps" "$o"
	exact "$t-ipc-task_create-reply-received" "$(named "$o" receive task_create-reply)" "$gk" "$o"
	exact "$t-proc-create" "$(val c "$o")" "$gk" "$o"
	# and machload's own, its last word being exit
	exact "$t-proc-exit" "$(val e "$o")" "$(( ${gk:-0} + 1 ))" "$o"
	atleast "$t-vm-fault-covers-pages" "$(val v "$o")" "$gn"
	atleast "$t-sched-on-cpu" "$(val on "$o")" 1
	# each pingpong exchange blocks both threads, each RPC its client
	atleast "$t-sched-off-cpu" "$(val off "$o")" "$(( 2 * ${gp:-0} + ${gr:-0} ))"
	exact "$t-usdt-round-trip" "$(val u "$o")" "$gt" "$o"
	exact "$t-pid-rt_once" "$(val p "$o")" "$gt" "$o"
}

record() {	# suite, kernel
	local t=kernel-matrix-$1
	if ! command -v babeltrace2 >/dev/null; then
		echo "SKIP $t-record: babeltrace2 is not installed (make setup)"
		return
	fi
	rec_run "$1-rec" "rpcs=$R" 'ipc:::send /args[0]->msg_name == "machload_echo"/ { trace(1); }' \
		-q --kernel "$2" -o "$TMP/$1-trace"
	local rc=$? n bt
	babeltrace2 "$TMP/$1-trace" >"$TMP/$1-bt.out" 2>"$TMP/$1-bt.err"
	bt=$?
	n=$(grep -c . "$TMP/$1-bt.out")
	if [ $rc = 0 ] && [ $bt = 0 ]; then
		exact "$t-record-babeltrace2" "$n" "$(phase "$TMP/$1-rec.con" rpcs)" "$TMP/$1-rec.err"
	else
		fail "$t-record-babeltrace2" "record exit $rc, babeltrace2 exit $bt: $(head -c 300 "$TMP/$1-rec.err" "$TMP/$1-bt.err")"
	fi
}

rpcsnoop() {	# suite, kernel
	local t=kernel-matrix-$1 o=$TMP/$1-snoop.out
	MACHTRACE_CONSOLE_LOG=$TMP/$1-snoop.con PATH="$PWD/$BUILD/bin:$PATH" timeout 240 \
		toolkit/rpcsnoop --kernel "$2" --timeout 200 \
		--workload "rt=0 pingpong=0 pages=0 threads=0 tasks=$K rpcs=$R" >"$o" 2>"$TMP/$1-snoop.err"
	local rc=$?
	[ $rc = 0 ] || fail "$t-rpcsnoop" "exit $rc: $(head -c 300 "$TMP/$1-snoop.err")"
	[ $rc = 0 ] || return
	exact "$t-rpcsnoop-echo" "$(grep -cE '^ *[0-9]+ machload: machload->machload_echo ' "$o")" \
		"$(phase "$TMP/$1-snoop.con" rpcs)" "$TMP/$1-snoop.err"
	exact "$t-rpcsnoop-task_create" "$(grep -cE '^ *[0-9]+ machload: gnumach->task_create ' "$o")" \
		"$(phase "$TMP/$1-snoop.con" tasks)" "$TMP/$1-snoop.err"
}

vmattach() {	# suite, kernel
	local t=kernel-matrix-$1 vm=$VM-$1 pid
	if ! "$MACHTRACE" vm start --name "$vm" --kernel "$2" --memory 256 \
	     --workload "rpcs=$R serve=10" >"$TMP/$1-vm.out" 2>"$TMP/$1-vm.err"; then
		fail "$t-vm-start" "$(cat "$TMP/$1-vm.err")"
		return
	fi
	pass "$t-vm-start"
	pid=$(sed -n 's/.*(QEMU pid \([0-9]*\),.*/\1/p' "$TMP/$1-vm.out")
	# one whole serve round, from its phase-start to its phase-done
	timeout 60 "$MACHTRACE" --vm "$vm" -q -n 'machload1:::phase-start /copyinstr(arg0) == "serve"/ { on = 1; }
ipc:::receive /on && args[0]->msg_name == "machload_echo"/ { @r = count(); }
ipc:::receive /on && args[0]->msg_name == "machload_echo-reply"/ { @p = count(); }
machload1:::phase-done /on && copyinstr(arg0) == "serve"/ { exit(0); }
END { printa("r %@d\n", @r); printa("p %@d\n", @p); }' >"$TMP/$1-att.out" 2>"$TMP/$1-att.err"
	local rc=$?
	"$MACHTRACE" vm console --no-follow "$vm" >"$TMP/$1-vm.con" 2>&1
	"$MACHTRACE" vm stop "$vm" >/dev/null 2>&1
	local want
	want=$(phase "$TMP/$1-vm.con" rpcs)
	if [ $rc = 0 ]; then
		exact "$t-vm-attach-echo-received" "$(val r "$TMP/$1-att.out")" "$want" "$TMP/$1-att.out"
		exact "$t-vm-attach-echo-reply-received" "$(val p "$TMP/$1-att.out")" "$want" "$TMP/$1-att.out"
	else
		fail "$t-vm-attach" "exit $rc: $(head -c 300 "$TMP/$1-att.err")"
	fi
	if [ -z "$pid" ] || kill -0 "$pid" 2>/dev/null; then
		fail "$t-vm-stop" "QEMU pid ${pid:-unknown} after vm stop"
	elif ! no_ram "$vm"; then
		fail "$t-vm-stop" "a RAM file of $vm left in /dev/shm"
	else
		pass "$t-vm-stop"
	fi
}

for suite in $SUITES; do
	case $suite in
	trixie) k=$KERNEL why="missing $KERNEL (make kernel)" ;;
	src) k=$(src_kernel) why="no self-built kernel: $(tail -n 1 "$TMP/src-build.log")" ;;
	*) k=$BUILD/kernels/$suite/gnumach-dbg why="missing $BUILD/kernels/$suite/gnumach-dbg (scripts/setup.sh)" ;;
	esac
	if [ -z "$k" ] || [ ! -f "$k" ]; then
		echo "SKIP kernel-matrix-$suite: $why"
		continue
	fi
	t0=$(ms)
	core "$suite" "$k"
	record "$suite" "$k"
	rpcsnoop "$suite" "$k"
	vmattach "$suite" "$k"
	echo "# kernel-matrix-$suite: 4 boots in $(( $(ms) - t0 )) ms"
done
