#!/bin/sh
# The machine options (--kernel, --module, --workload, --timeout,
# --memory, --cpus: include/machtrace/machopt.h) are one parser's: every command
# that boots GNU Mach refuses the same bad value with the same message
# (after its own prefix) and a non-zero exit, before booting anything.
mods=""
i=0
while [ $i -lt 15 ]; do mods="$mods --module /m$i"; i=$((i + 1)); done
check() {	# message, option words...
	want=$1; shift
	for cmd in "" record top health "baseline save x" "vm start" boot; do
		# shellcheck disable=SC2086
		"$MT" $cmd -o "$T/o" -n BEGIN "$@" </dev/null >"$T/out" 2>"$T/err"
		rc=$?
		[ -n "$cmd" ] || cmd=session
		[ $rc -ne 0 ] || { echo "$cmd $*: exit 0"; exit 1; }
		grep -qF -- "$want" "$T/err" ||
			{ echo "$cmd $*: not '$want': $(head -n 2 "$T/err")"; exit 1; }
	done
}
mkdir -p "$T"
check "invalid --timeout value '0': expected a positive number of seconds" --timeout 0
check "invalid --timeout value 'x': expected a positive number of seconds" --timeout=x
check "invalid --kernel value '/nonexistent': No such file or directory" \
	--kernel /nonexistent
check "invalid --kernel value '$T': not a regular file" --kernel "$T"
check "invalid --memory value '64': expected MiB from 128 to 1536" --memory 64
check "--workload: unknown workload word 'bogus=1'" --workload bogus=1
# shellcheck disable=SC2086
check "too many --module (at most 14)" $mods
check "option --memory needs a value" --memory
check "invalid --cpus value '0': expected a number of CPUs from 1 to 64" --cpus 0
check "invalid --cpus value '1.5': expected a number of CPUs from 1 to 64" --cpus=1.5
# -h shows the one table, with each option, default and limit
for cmd in "" top health "baseline" boot; do
	# shellcheck disable=SC2086
	"$MT" $cmd -h >"$T/h" 2>&1
	for o in "--kernel FILE" "--module 'PATH args'" "--workload 'WORDS'" \
		 "--timeout SEC" "--memory MIB" "128 to 1536" "up to 14 times" \
		 "--cpus N"; do
		grep -qF -- "$o" "$T/h" || { echo "${cmd:-machtrace} -h lacks $o"; exit 1; }
	done
done
exit 0
