#!/usr/bin/env bash
# Where a kernel probe is, in time and in the stack (issue 7, items 6, 7,
# 8, 12): walltimestamp is the wall clock already in BEGIN; stack() of a
# profile probe starts at the interrupted pc and walks the interrupted
# code's frames; caller and stack() of a kinst probe in a function's body
# follow the instruction's frame (.eh_frame) and equal the fbt entry's;
# every instruction `-l` lists as a kinst probe can be enabled at once.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-frames

# 6: BEGIN in the kernel, and the first firing, read the wall clock
now=$(date +%s)
prog='BEGIN { printf("begin %d\n", walltimestamp / 1000000000); }
fbt::vm_fault:entry /!seen/ { seen = 1; printf("first %d\n", walltimestamp / 1000000000); }'
live_run wall "rt=10 pingpong=0 pages=4 threads=0 tasks=0" "$prog" -q --mach
b=$(val begin "$TMP/wall.out")
f=$(val first "$TMP/wall.out")
if [ "${b:-0}" -ge $((now - 60)) ] && [ "${b:-0}" -le $((now + 60)) ] &&
   [ "${f:-0}" -ge $((now - 60)) ] && [ "${f:-0}" -le $((now + 60)) ]; then
	pass live-walltimestamp-in-begin
else
	fail live-walltimestamp-in-begin "BEGIN ${b:-none}, first vm_fault ${f:-none}, now $now: $(head -c 300 "$TMP/wall.err")"
fi

# 7: profile-997 in the kernel: stack() = the interrupted pc (arg0) first,
# then the frames of the code it interrupted.  A sample in syscall64 or the
# idle loop is rightly one frame deep, so the run is long enough for the
# 100 Hz clock to take some twenty kernel samples, not two or three.
prog='profile-997 /arg0/ { @[stack(5)] = count(); @pc[arg0] = count(); }
END { printa("pc %x %@d\n", @pc); }'
live_run prof "rt=200000 pingpong=0 pages=16 threads=0 tasks=0" "$prog" -q --mach
stk=$(grep -cE "^ +gnumach\`[a-z_0-9]+(\+0x[0-9a-f]+)?$" "$TMP/prof.out")
deep=$(awk '/^ +gnumach`/ { n++; next } { if (n > d) d = n; n = 0 } END { print d + 0 }' "$TMP/prof.out")
if [ "$stk" -ge 3 ] && [ "$deep" -ge 2 ] && grep -q "^pc " "$TMP/prof.out"; then
	pass live-profile-stack
else
	fail live-profile-stack "$stk symbolised frames, deepest stack $deep: $(tr -s ' \n' ' ' < "$TMP/prof.out" | head -c 600) $(head -c 200 "$TMP/prof.err")"
fi

# 8: kinst in vm_fault's body (past the prologue, rbp set up) and in its
# prologue (after push %rbp): the callers and the frames below the probe
# are those of the entry probe
prog='fbt::vm_fault:entry { @e[caller] = count(); @es[stack(3)] = count(); }
kinst::vm_fault:1 { @p[caller] = count(); }
kinst::vm_fault:1096 { @b[caller] = count(); @bs[stack(3)] = count(); }
END {
	printa("entry %x %@d\n", @e); printa("prologue %x %@d\n", @p); printa("body %x %@d\n", @b);
	printf("==entry\n"); printa(@es); printf("==body\n"); printa(@bs);
}'
live_run kcaller "rt=10 pingpong=0 pages=32 threads=0 tasks=0" "$prog" -q
e=$(sed -n 's/^entry //p' "$TMP/kcaller.out" | sort)
p=$(sed -n 's/^prologue //p' "$TMP/kcaller.out" | sort)
b=$(sed -n 's/^body //p' "$TMP/kcaller.out" | sort)
if [ -n "$e" ] && [ "$e" = "$p" ] && [ "$e" = "$b" ] &&
   ! echo "$e" | grep -qv "^ffffffff8"; then
	pass live-kinst-caller
else
	fail live-kinst-caller "entry [$e] prologue [$p] body [$b]: $(head -c 300 "$TMP/kcaller.err")"
fi
# each stack as "frame2|frame3|count"; the body's first frame is the probe's pc
stacks() {	# section, first frame
	awk -v sec="$1" -v top="$2" '
		/^==/ { in_sec = ($0 == "==" sec); n = 0; s = ""; next }
		!in_sec || /^ *$/ { next }
		/^ +[0-9]+$/ { print s $1; n = 0; s = ""; next }
		{ n++; if (n == 1 && $1 != top) s = "BAD:" $1 "|"; else if (n > 1) s = s $1 "|" }
	' "$TMP/kcaller.out" | sort
}
exp=$(stacks entry 'gnumach`vm_fault')
got=$(stacks body 'gnumach`vm_fault+0x448')
if [ -n "$exp" ] && [ "$exp" = "$got" ]; then
	pass live-kinst-stack
else
	fail live-kinst-stack "entry [$exp] body [$got]"
fi

# 12: every instruction -l lists for a function enables at once
n=$("$MACHTRACE" -l -n 'kinst::vm_fault:' 2>/dev/null | grep -c " kinst ")
prog='kinst::vm_fault: { @ = count(); } END { printa("fired %@d\n", @); }'
live_run kall "rt=10 pingpong=0 pages=16 threads=0 tasks=0" "$prog" -q
rc=$?
f=$(val fired "$TMP/kall.out")
if [ $rc = 0 ] && [ "$n" -ge 500 ] && [ "${f:-0}" -ge "$n" ]; then
	pass live-kinst-listed-enables
else
	fail live-kinst-listed-enables "exit $rc, $n listed, ${f:-no} firings: $(head -c 300 "$TMP/kall.err")"
fi
