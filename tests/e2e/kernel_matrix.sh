#!/usr/bin/env bash
# The kernel matrix (issue 23): the core provider set, on each of the five
# kernels machtrace supports (trixie's tested one, forky's and sid's newest
# amd64-up-dbg, sid's amd64-smp-dbg on one CPU, the one built from source by
# kernel_src.sh), in few boots,
# every count against machload's own report on the console:
#  - one -c session, its checks in matrix_lib.sh (shared with
#    smp_matrix.sh, the same on two CPUs);
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
. "$(dirname "$0")/matrix_lib.sh"

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
