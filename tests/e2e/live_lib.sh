# Helpers of the live-kernel end-to-end tests (sourced).  Each test boots
# the stock GNU Mach under QEMU (TCG) with machload and traces it live.
. "$(dirname "$0")/mach_lib.sh"
LIVE=${LIVE:-$BUILD/bin/mt-live}

need_live() {
	need_kernel "$1"
	if [ ! -f "$BUILD/live/blob.bin" ] || [ ! -x "$LIVE" ]; then
		echo "SKIP $1: missing $BUILD/live/blob.bin or $LIVE (run make)"
		exit 0
	fi
}

# Sid's SMP image in $SID, or a SKIP line for test NAME and exit.
need_sid_smp() {
	SID=$BUILD/kernels/sid-smp/gnumach-dbg
	if [ ! -f "$SID" ]; then
		echo "SKIP $1: missing $SID (scripts/setup.sh)"
		exit 0
	fi
}

# live_run NAME WORDS PROGRAM [machtrace options...]: stdout -> $TMP/NAME.out,
# stderr -> $TMP/NAME.err, console -> $TMP/NAME.con; returns machtrace's status.
live_run() {
	local name=$1 words=$2 prog=$3
	shift 3
	MACHTRACE_CONSOLE_LOG=$TMP/$name.con timeout 240 "$MACHTRACE" --timeout 200 \
		--workload "$words" "$@" -n "$prog" >"$TMP/$name.out" 2>"$TMP/$name.err"
}

# rec_run NAME WORDS PROGRAM [record options...], as live_run with
# machtrace record
rec_run() {
	local name=$1 words=$2 prog=$3
	shift 3
	MACHTRACE_CONSOLE_LOG=$TMP/$name.con timeout 240 "$MACHTRACE" record "$@" \
		--timeout 200 --workload "$words" -n "$prog" >"$TMP/$name.out" 2>"$TMP/$name.err"
}

# The workload ran to its end with every phase OK, and the kernel never
# stopped in its debugger.
workload_ok() {	# test name, console log
	if grep -q "^machload: done" "$2" && grep -q "^machload: .* OK$" "$2" &&
	   ! grep -qE "FAIL|db>|panic" "$2"; then
		pass "$1"
	else
		fail "$1" "workload did not complete: $(grep -E 'machload|panic|db>' "$2" | tail -n 3 | tr '\n' ' ')"
	fi
}

# The kernel never stopped in its debugger or panicked, and said something.
no_panic() {	# test name, console log
	if [ -s "$2" ] && ! grep -qE "db(\{[0-9]*\})?>|panic|Assert|Kernel Breakpoint" "$2"; then
		pass "$1"
	else
		fail "$1" "$(grep -E 'db|panic|Assert|Breakpoint' "$2" | head -n 3 | tr '\n' ' ')"
	fi
}

# After MACHTRACE_TEXTCHECK=1: the kernel text and every CPU's IDT came
# back as they were.
restored() {	# test name, stderr of the session
	if grep -q "kernel text identical to the image" "$2" &&
	   grep -q "kernel IDT identical to before tracing" "$2"; then
		pass "$1"
	else
		fail "$1" "$(grep -E 'kernel (text|IDT)' "$2" | tr '\n' ' ') $(head -c 200 "$2")"
	fi
}

# After MACHTRACE_TEXTCHECK=1 on several CPUs: no CPU began a text poke
# while another's was under way (two CPUs arming one site, or one arming
# while CPU 0's tick disarmed it, mixed their jmp's bytes: issue 28).
pokes_serial() {	# test name, stderr of the session
	local n
	n=$(sed -n "s/^machtrace: kernel text pokes begun during another's: \([0-9]*\)\$/\1/p" "$2")
	if [ "$n" = 0 ]; then
		pass "$1"
	else
		fail "$1" "${n:-no report of} pokes begun during another CPU's"
	fi
}

# Every firing of a printf clause on CPU C is accounted for: the lines it
# printed ("x C ...") plus the drops the consumer reported on C equal its
# firings (a count() in the same clause, printed "nC N").
accounted() {	# test name, stdout, stderr, CPU, session's exit status
	local x d n
	x=$(grep -cE "^x $4( |\$)" "$2")
	d=$(sed -n "s/^dtrace: \([0-9][0-9]*\) drops\{0,1\} on CPU $4\$/\1/p" "$3" |
	    awk '{ s += $1 } END { print s + 0 }')
	n=$(val "n$4" "$2")
	echo "# $1: printed $x, drops $d, firings ${n:-none}"
	if [ "$5" = 0 ] && [ "${n:-0}" -gt 0 ] && [ $((x + d)) = "$n" ]; then
		pass "$1"
	else
		fail "$1" "exit $5, printed $x, drops $d, firings ${n:-none}"
	fi
}

# value of "KEY N" in a file
val() {
	sed -n "s/^$1 \([0-9][0-9]*\)$/\1/p" "$2" | head -n 1
}

# No RAM file of VM $1 in /dev/shm (0: none).
no_ram() {
	! ls /dev/shm/machtrace-vm-"$(id -u)-$1".* >/dev/null 2>&1
}
