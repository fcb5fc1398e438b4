#!/usr/bin/env bash
# The kernel one built: GNU Mach from ../shared/gnumach's source, built here
# with gcc -Os and no kernel debugger (scripts/kernel-src.sh, a configuration
# Debian does not use), is traced as the stock kernel is: fbt and mach_trap
# count what machload did, and the text is the image's again afterwards.
# The tree gets two <sys/sdt.h> probes first (kernel_src_sdt.patch:
# msg-send with the message id where a user message is copied in, in
# ipc_kmsg_get and on mach_msg_trap's fast path, and vm-fault with the
# address at vm_fault's entry): sdt:::msg-send and sdt:::vm-fault are
# listed and count what machload reports doing.  The build is done once;
# a later run with the same inputs reuses it.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live kernel-src

out=$BUILD/kernel-src-test
patch=tests/e2e/kernel_src_sdt.patch
scripts/kernel-src.sh --patch "$patch" --out "$out" >"$TMP/build.log" 2>&1
rc=$?
if [ $rc = 3 ]; then
	echo "SKIP kernel-src: $(tail -n 1 "$TMP/build.log" | sed "s/^kernel-src: //")"
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
scripts/kernel-src.sh --patch "$patch" --out "$out" >"$TMP/again.log" 2>&1
if grep -q "up to date" "$TMP/again.log" && [ "$(stat -c %Y "$out/gnumach")" = "$before" ]; then
	pass kernel-src-reused
else
	fail kernel-src-reused "$(tail -n 2 "$TMP/again.log")"
fi

# The static probes: listed with their functions, typed from the notes
"$MACHTRACE" --kernel "$KS" -l -P sdt >"$TMP/list.out" 2>&1
"$MACHTRACE" --kernel "$KS" -lv -n sdt:::vm-fault >"$TMP/listv.out" 2>&1
if grep -qE "sdt +gnumach +ipc_kmsg_get msg-send$" "$TMP/list.out" &&
   grep -qE "sdt +gnumach +mach_msg_trap msg-send$" "$TMP/list.out" &&
   grep -qE "sdt +gnumach +vm_fault vm-fault$" "$TMP/list.out" &&
   grep -q "args\[0\]: uint64_t" "$TMP/listv.out"; then
	pass kernel-src-sdt-listed
else
	fail kernel-src-sdt-listed "$(tr '\n' ' ' <"$TMP/list.out" | head -c 300) $(grep 'args' "$TMP/listv.out")"
fi

# Counted against machload's report: in its rt phase (between its own
# phase-start and phase-done probes) each round trip sends one message of
# id 4242 (its report to the console is another RPC); in its pages phase each page touched faults once.  vm-fault's
# address is vm_fault's own argument.
R=300 P=64
prog='machload*:::phase-start { self->ph = copyinstr(arg0); }
machload*:::phase-done { self->ph = 0; }
sdt:::msg-send /self->ph == "rt"/ { @s[args[0]] = count(); }
sdt:::vm-fault /self->ph == "pages"/ { @f = count(); }
fbt::vm_fault:entry /execname == "machload"/ { self->va = arg1; @fe = count(); }
sdt:::vm-fault /execname == "machload"/ { @fs = count(); @bad = sum(arg0 != self->va); }
END { printa("send %d %@d\n", @s); printa("pagefaults %@d\n", @f);
printa("fbt %@d\n", @fe); printa("sdt %@d\n", @fs); printa("bad %@d\n", @bad); }'
MACHTRACE_TEXTCHECK=1 live_run sdt "rt=$R pingpong=2 pages=$P threads=0 tasks=0" "$prog" \
	-q --kernel "$KS"
rc=$?
workload_ok kernel-src-sdt-workload-completes "$TMP/sdt.con"
rt_ok=$(sed -n 's/^machload: rt n=[0-9]* ok=\([0-9]*\) .*/\1/p' "$TMP/sdt.con")
pg_ok=$(sed -n 's/^machload: pages n=[0-9]* ok=\([0-9]*\) .*/\1/p' "$TMP/sdt.con")
sends=$(sed -n 's/^send 4242 \([0-9]*\)$/\1/p' "$TMP/sdt.out")
if [ $rc = 0 ] && [ "${rt_ok:-0}" = $R ] && [ "${sends:-x}" = "$rt_ok" ]; then
	pass kernel-src-sdt-msg-send
else
	fail kernel-src-sdt-msg-send "exit $rc, machload rt ok=${rt_ok:-none}, msg-send of 4242 in rt=${sends:-none}: $(head -c 300 "$TMP/sdt.err")"
fi
f=$(val pagefaults "$TMP/sdt.out")
if [ "${pg_ok:-0}" = $P ] && [ "${f:-x}" = "$pg_ok" ]; then
	pass kernel-src-sdt-vm-fault
else
	fail kernel-src-sdt-vm-fault "machload pages ok=${pg_ok:-none}, vm-fault in pages=${f:-none}"
fi
fe=$(val fbt "$TMP/sdt.out"); fs=$(val sdt "$TMP/sdt.out"); bad=$(val bad "$TMP/sdt.out")
if [ "${fe:-0}" -ge $P ] && [ "${fs:-x}" = "$fe" ] && [ "${bad:-x}" = 0 ]; then
	pass kernel-src-sdt-vm-fault-address
else
	fail kernel-src-sdt-vm-fault-address "fbt vm_fault=${fe:-none} sdt=${fs:-none}, addresses differing=${bad:-none}"
fi
if grep -q "kernel text identical to the image" "$TMP/sdt.err"; then
	pass kernel-src-sdt-text-restored
else
	fail kernel-src-sdt-text-restored "$(grep 'kernel text' "$TMP/sdt.err") $(head -c 200 "$TMP/sdt.err")"
fi
