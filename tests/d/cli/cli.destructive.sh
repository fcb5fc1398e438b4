#!/bin/sh
# Destructive actions need -w (or -x destructive, #pragma D option
# destructive), as dtrace: without it the enabling is refused before
# anything runs.  With it, what has no meaning here says so.
check() {	# expected-rc stderr-pattern args...
	want=$1 pat=$2; shift 2
	"$MT" "$@" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq "$want" ] || { echo "$*: exit $rc: $(cat "$T/err")"; exit 1; }
	[ -z "$pat" ] || grep -q -- "$pat" "$T/err" || { echo "$*: $(cat "$T/err")"; exit 1; }
}
refused='^dtrace: could not enable tracing: Destructive actions not allowed$'
for act in 'system("echo ran")' 'freopen("/dev/null")' 'chill(1)' 'raise(9)' 'stop()' \
	   'panic()' 'breakpoint()' 'copyout(alloca(1), 0, 1)' 'copyoutstr("a", 0, 2)'; do
	check 1 "$refused" -q -n "BEGIN { $act; exit(0); }"
done
# system() did not run
check 1 "$refused" -q -n 'BEGIN { system("echo ran"); exit(0); }'
! grep -q ran "$T/out" || { echo "system() ran without -w"; exit 1; }
# allowed: -w, -x destructive, the pragma
check 0 '' -qw -n 'BEGIN { system("echo ran"); exit(0); }'
grep -q '^ran$' "$T/out" || { echo "system() with -w: $(cat "$T/out")"; exit 1; }
check 0 '' -q -x destructive -n 'BEGIN { chill(1); exit(0); }'
check 0 '' -q -n '#pragma D option destructive
BEGIN { freopen("/dev/null"); exit(0); }'
# nothing to act on: no signals or process stops for Mach tasks, no
# kernel on the local target
for act in raise stop copyout copyoutstr; do
	case $act in
	raise) call='raise(9)' ;; stop) call='stop()' ;;
	copyout) call='copyout(alloca(1), 0, 1)' ;; copyoutstr) call='copyoutstr("a", 0, 2)' ;;
	esac
	check 1 "^dtrace: could not enable tracing: $act( ) acts on the user process" \
		-qw -n "BEGIN { $call; exit(0); }"
done
check 1 '^dtrace: could not enable tracing: panic( ) acts on the kernel' -qw -n 'BEGIN { panic(); }'
check 1 '^dtrace: could not enable tracing: breakpoint( ) acts on the kernel' -qw -n 'BEGIN { breakpoint(); }'
exit 0
