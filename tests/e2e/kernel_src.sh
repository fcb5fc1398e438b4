#!/usr/bin/env bash
# The kernel one built: GNU Mach from ../shared/gnumach's source, built here
# with gcc -Os and no kernel debugger (scripts/kernel-src.sh, a configuration
# Debian does not use), is traced as the stock kernel is: fbt and mach_trap
# count what machload did, and the text is the image's again afterwards.
# The build is done once; a later run with the same inputs reuses it.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live kernel-src

out=$BUILD/kernel-src-test
scripts/kernel-src.sh --out "$out" >"$TMP/build.log" 2>&1
rc=$?
if [ $rc = 3 ]; then
	echo "SKIP kernel-src: $(tail -n 1 "$TMP/build.log")"
	exit 0
elif [ $rc != 0 ] || [ ! -s "$out/gnumach" ]; then
	fail kernel-src-build "exit $rc: $(tail -n 5 "$TMP/build.log" | tr '\n' ' ')"
	exit 1
fi
pass kernel-src-build
KS=$out/gnumach

N=500 P=64 B=20
prog='mach_trap:::entry /execname == "machload"/ { @t[probefunc] = count(); }
fbt::mach_msg_trap:entry /execname == "machload"/ { @m = count(); }
fbt::vm_fault:entry /execname == "machload"/ { @v = count(); }
fbt::thread_invoke:entry { @s = count(); }
END { printa("trap %s %@d\n", @t); printa("m %@d\n", @m); printa("v %@d\n", @v);
printa("s %@d\n", @s); }'
MACHTRACE_TEXTCHECK=1 live_run core "rt=$N pingpong=$B pages=$P threads=1 tasks=1" "$prog" \
	-q --kernel "$KS"
rc=$?
workload_ok kernel-src-workload-completes "$TMP/core.con"
m=$(val m "$TMP/core.out"); v=$(val v "$TMP/core.out"); s=$(val s "$TMP/core.out")
t=$(sed -n 's/^trap mach_msg_trap \([0-9]*\)$/\1/p' "$TMP/core.out")
if [ $rc = 0 ] && [ "${m:-0}" -ge $((2 * N)) ] && [ "${t:-x}" = "$m" ]; then
	pass kernel-src-fbt-mach_trap
else
	fail kernel-src-fbt-mach_trap "exit $rc, fbt=${m:-none} mach_trap=${t:-none} (want equal, >= $((2 * N))): $(head -c 300 "$TMP/core.err")"
fi
if [ "${v:-0}" -ge $P ] && [ "${s:-0}" -ge $((2 * B)) ]; then
	pass kernel-src-fbt-vm_fault-thread_invoke
else
	fail kernel-src-fbt-vm_fault-thread_invoke "vm_fault=${v:-none} (want >= $P), thread_invoke=${s:-none} (want >= $((2 * B)))"
fi
if grep -q "kernel text identical to the image" "$TMP/core.err"; then
	pass kernel-src-text-restored
else
	fail kernel-src-text-restored "$(grep 'kernel text' "$TMP/core.err") $(head -c 200 "$TMP/core.err")"
fi

# the build's inputs did not change: nothing is rebuilt
before=$(stat -c %Y "$out/gnumach")
scripts/kernel-src.sh --out "$out" >"$TMP/again.log" 2>&1
if grep -q "up to date" "$TMP/again.log" && [ "$(stat -c %Y "$out/gnumach")" = "$before" ]; then
	pass kernel-src-reused
else
	fail kernel-src-reused "$(tail -n 2 "$TMP/again.log")"
fi
