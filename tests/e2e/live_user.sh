#!/usr/bin/env bash
# User tasks from the kernel: copyin() of machload's message headers,
# uregs[] at its traps, ustack() of its page faults symbolised from
# build/guest/machload, each compared with what machload reports itself
# (rt n=N ok=N, pages n=N ok=N); and a bad user pointer is dtrace's ERROR
# while the kernel, the task and the session go on, the text stock after.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-user

RT=40
PAGES=24
ML=$BUILD/guest/machload
# machload's executable segment [lo, hi) and its trap stub, from its ELF
read -r lo msz <<EOF
$(readelf -lW "$ML" | awk '$1 == "LOAD" && $8 == "E" { print $3, $6; exit }')
EOF
lo=$((lo)) hi=$((lo + msz))

prog='fbt::vm_fault:entry /execname == "machload"/ { @st[ustack()] = count(); }
fbt::mach_msg_trap:entry /execname == "machload"/
{
	this->h = (mach_msg_user_header_t *)copyin(arg0, sizeof (mach_msg_user_header_t));
	@ids[this->h->msgh_id] = count();
	@pc[uaddr(uregs[R_PC])] = count();
	@pcin[uregs[R_PC] >= '"$lo"' && uregs[R_PC] < '"$hi"'] = count();
	/* the message is a local of the stub'"'"'s caller: just above its sp */
	@spin[arg0 > uregs[R_SP] && arg0 - uregs[R_SP] < 65536] = count();
}
END
{
	printa("id %d %@d\n", @ids);
	printa("pc %A %@d\n", @pc);
	printa("pcin %d %@d\n", @pcin);
	printa("spin %d %@d\n", @spin);
	printa(@st);
}'
live_run user "rt=$RT pingpong=0 pages=$PAGES threads=0 tasks=0" "$prog" -q
rc=$?
out=$TMP/user.out
rtok=$(sed -n 's/^machload: rt n=\([0-9]*\) ok=\([0-9]*\) .*/\2/p' "$TMP/user.con")
pgok=$(sed -n 's/^machload: pages n=\([0-9]*\) ok=\([0-9]*\) .*/\2/p' "$TMP/user.con")
workload_ok live-user-workload "$TMP/user.con"

ids=$(sed -n 's/^id 4242 \([0-9]*\)$/\1/p' "$out")
if [ "$rc" = 0 ] && [ "$rtok" = "$RT" ] && [ -n "$ids" ] && [ "$ids" -ge "$RT" ]; then
	pass live-user-copyin-msgid
else
	fail live-user-copyin-msgid "exit $rc, machload rt ok=$rtok, id 4242 counted ${ids:-0} times (want >= $RT): $(head -c 300 "$TMP/user.err")"
fi

if grep -q '^pc machload`mach_msg_trap+0xa [0-9]*$' "$out" && grep -q '^pcin 1 ' "$out" &&
   ! grep -q '^pcin 0 ' "$out"; then
	pass live-user-uregs-pc
else
	fail live-user-uregs-pc "uregs[R_PC] not in machload's text [$lo, $hi) at its trap stub: $(grep -E '^(pc|pcin) ' "$out" | tr '\n' ' ')"
fi
if grep -q '^spin 1 ' "$out" && ! grep -q '^spin 0 ' "$out"; then
	pass live-user-uregs-sp
else
	fail live-user-uregs-sp "uregs[R_SP] not just below the message on machload's stack: $(grep '^spin ' "$out" | tr '\n' ' ')"
fi

# the stack of the pages phase's faults: do_pages, called by task_main
# from _start, counted once per page machload touched
pages=$(awk '/machload`do_pages\+/ { inpages = 1 } /^ *[0-9]+$/ { if (inpages) n += $1; inpages = 0 } END { print n + 0 }' "$out")
if [ "$pgok" = "$PAGES" ] && [ "$pages" = "$PAGES" ] &&
   grep -q '^ *machload`task_main+0x[0-9a-f]*$' "$out" && grep -q '^ *machload`_start+0x[0-9a-f]*$' "$out"; then
	pass live-user-ustack-pages
else
	fail live-user-ustack-pages "machload pages ok=$pgok, faults under do_pages: $pages (want $PAGES): $(grep -m 5 'machload`' "$out" | tr '\n' ' ')"
fi
frames=$(grep -cE '^ +(machload`|0x)' "$out")
named=$(grep -cE '^ +machload`' "$out")
echo "# ustack frames: $named of $frames symbolised; msgh_id 4242 counted ${ids:-0} times (machload rt ok=$rtok); $pages faults under do_pages (machload pages ok=$pgok)"

# bad user pointers: an unmapped page, a page never mapped, a plain load
# of a user address (dtrace requires copyin); the session goes on
prog='fbt::mach_msg_trap:entry /execname == "machload" && n++ < 3/ { trace(*(int *)copyin(0x10, 8)); }
fbt::mach_msg_trap:entry /execname == "machload" && m++ < 1/ { trace(copyinstr(0x7fff00000000)); }
fbt::mach_msg_trap:entry /execname == "machload" && k++ < 1/ { trace(*(int *)arg0); }
fbt::mach_msg_trap:entry /execname == "machload"/ { @n = count(); }
END { printa("traps %@d\n", @n); }'
MACHTRACE_TEXTCHECK=1 live_run bad "rt=$RT pingpong=0 pages=0 threads=0 tasks=0" "$prog" -q
rc=$?
pre='^dtrace: error on enabled probe ID [0-9]* (ID [0-9]*: fbt:gnumach:mach_msg_trap:entry): invalid address'
e1=$(grep -c "$pre (0x10) at DIF offset [0-9]*$" "$TMP/bad.err")
e2=$(grep -c "$pre (0x7fff00000000) at DIF offset [0-9]*$" "$TMP/bad.err")
e3=$(grep -c "$pre (0x7ff[0-9a-f]*) at DIF offset [0-9]*$" "$TMP/bad.err")
traps=$(sed -n 's/^traps \([0-9]*\)$/\1/p' "$TMP/bad.out")
if [ "$rc" = 0 ] && [ "$e1" = 3 ] && [ "$e2" = 1 ] && [ "$e3" -ge 2 ] &&
   [ -n "$traps" ] && [ "$traps" -ge $((2 * RT)) ]; then
	pass live-user-bad-pointer-error
else
	fail live-user-bad-pointer-error "exit $rc, errors 0x10: $e1 (want 3), unmapped: $e2 (want 1), plain load: $e3, traps ${traps:-none}: $(head -c 400 "$TMP/bad.err")"
fi
workload_ok live-user-bad-pointer-task-goes-on "$TMP/bad.con"
if grep -q "kernel text identical to the image" "$TMP/bad.err"; then
	pass live-user-text-stock
else
	fail live-user-text-stock "$(grep 'kernel text' "$TMP/bad.err")"
fi
