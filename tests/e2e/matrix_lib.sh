# The kernel matrix's core session and its checks (sourced by
# kernel_matrix.sh, one CPU per kernel, and smp_matrix.sh, sid's SMP
# kernel on two): one -c session of machload, every count against
# machload's own report on the console:
#  - fbt and mach_trap see the same mach_msg_trap entries, at least 2 per
#    rt round trip; ipc send and receive by msg_name (rpcs=R: R
#    machload_echo and R replies each way; pingpong's 4242 received as
#    often as sent; tasks=K: K task_create-reply received);
#    proc:::create K times, proc:::exit K + 1 (machload exits too);
#    vm:::fault at least pages=P times; sched on-cpu in machload, off-cpu
#    at least 2 per pingpong exchange and 1 per RPC; usdt round-trip once
#    per rt round trip, pid$target's rt_once entry as often;
#  - on C > 1 CPUs, with machload's cpus=W (a worker of W round trips on
#    each CPU): on-cpu and off-cpu balance within one switch in progress
#    per CPU; every CPU takes at least 2 W of machload's mach_msg_trap
#    (each worker's send and receive); each firing of a printf clause on
#    mach_msg_trap is a printed record or a drop reported on its CPU,
#    with a buffer small enough to drop (-x bufsize=4k).
# Checks are named kernel-matrix-SUITE-WHAT.
R=5 P=16 K=2 N=40 S=20 W=200
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
# the per-CPU clauses of a session on several CPUs
prog_cpus='fbt::mach_msg_trap:entry /execname == "machload"/ {
	printf("x %d\n", cpu); @n[cpu] = count(); }
END { printa("n%d %@d\n", @n); }'

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

core() {	# suite, kernel[, CPUs]: the -c session
	local t=kernel-matrix-$1 o=$TMP/$1.out c=$TMP/$1.con cpus=${3:-1}
	local words="rt=$N rpcs=$R pingpong=$S tasks=$K pages=$P threads=0" p=$prog
	local opts=()
	if [ "$cpus" -gt 1 ]; then
		words="$words cpus=$W" p="$prog
$prog_cpus" opts=(--cpus "$cpus" -x bufsize=4k)
	fi
	MACHTRACE_CONSOLE_LOG="$c" timeout 240 "$MACHTRACE" --timeout 200 --kernel "$2" "${opts[@]}" -q \
		-c "machload $words exit" -n "$p" >"$o" 2>"$TMP/$1.err"
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
	if [ "$cpus" -gt 1 ]; then
		core_cpus "$t" "$o" "$c" "$cpus" "$TMP/$1.err" "$rc"
	fi
}

# the per-CPU checks of a session on several CPUs
core_cpus() {	# test prefix, output, console, CPUs, stderr, exit status
	local t=$1 o=$2 on off gw i d n
	on=$(val on "$o") off=$(val off "$o")
	gw=$(phase "$3" cpus)
	d=$(( ${on:-0} - ${off:-0} ))
	if [ "${off:-0}" -gt 0 ] && [ ${d#-} -le "$4" ]; then
		pass "$t-sched-balance"
	else
		fail "$t-sched-balance" "on-cpu ${on:-none}, off-cpu ${off:-none} (want within $4)"
	fi
	for ((i = 0; i < $4; i++)); do
		n=$(val "n$i" "$o")
		echo "# $t CPU $i: machload mach_msg_trap ${n:-none}"
		atleast "$t-cpu$i-has-work" "${n:-0}" "$(( 2 * ${gw:-0} / $4 ))"
		accounted "$t-cpu$i-records-plus-drops" "$o" "$5" $i "$6"
	done
}
