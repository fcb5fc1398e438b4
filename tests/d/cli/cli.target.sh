#!/bin/sh
# The target rule (issue 7 item 13): without a kernel description or
# --mach a program runs on the local target, and one that reads values only
# the kernel has (a profile probe's arg0, curthread, stack(), func()...)
# is told so on stderr; a program that does not is not.  machtrace -h
# states the rule.  (Kernel descriptions without a provider, -f/-m/-i:
# tests/e2e/live_select.sh.)
warn='^dtrace: warning: this program runs on the local target'
check_warns() {	# what program
	"$MT" -q -n "$2" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 0 ] || { echo "$2: exit $rc: $(cat "$T/err")"; exit 1; }
	grep -q -- "$warn.*$1" "$T/err" || { echo "$2: no warning: $(cat "$T/err")"; exit 1; }
}
check_warns "profile's arg0\|arg0/arg1" 'profile-97{@[arg0]=count();} tick-100ms{exit(0)}'
check_warns curthread 'BEGIN{trace(curthread);exit(0)}'
check_warns 'stack()' 'BEGIN{@[stack()]=count();exit(0)}'
check_warns 'func()' 'BEGIN{@[func(0)]=count();exit(0)}'
"$MT" -q -n 'profile-97{@=count();} tick-100ms{exit(0)}' >"$T/out" 2>"$T/err" &&
	[ ! -s "$T/err" ] || { echo "needless warning: $(cat "$T/err")"; exit 1; }
"$MT" -q -n 'BEGIN{trace(arg0);exit(0)}' >"$T/out" 2>"$T/err" &&
	[ ! -s "$T/err" ] || { echo "needless warning (BEGIN arg0): $(cat "$T/err")"; exit 1; }
"$MT" -h >"$T/out" 2>&1
grep -q 'Target: GNU Mach booted in QEMU when a probe description' "$T/out" &&
	grep -q 'local target: BEGIN, END, tick-N and profile-N fire in machtrace' "$T/out" ||
	{ echo "machtrace -h does not state the target rule"; exit 1; }
exit 0
