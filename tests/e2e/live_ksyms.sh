#!/usr/bin/env bash
# Kernel globals by name, typed from DWARF: `hz is GNU Mach's HZ (100),
# &`hz is the symbol table's address, gnumach`kernel_map is a non-NULL
# struct vm_map * whose members read through ->: it is the map of the
# kernel task (curthread->task->map of a kernel thread) and carries that
# task's name; a wired-page count is sane; a store into a kernel global and
# an unknown symbol and an untyped one are refused.  Data addresses print
# by their symbol as dtrace's (its symbol table's objects, by their size):
# %a of an address inside kernel_map_store (the kernel map, whose lock
# lockstat shows) is gnumach`kernel_map_store+0xOFF, sym() and func() its
# name, mod() gnumach; the address just past it is not kernel_map_store.
# &`vm_page_queue_lock, on a UP kernel an empty struct (a simple lock
# compiled to nothing, which D cannot declare), is its address and name.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-ksyms

prog='int done, k;
fbt::thread_invoke:entry
/curthread->task->map == `kernel_map && !k/
{
	k = 1;
	printf("ktask %s\n", stringof(curthread->task->name));
}

fbt::vm_fault:entry
/execname == "machload" && !done/
{
	done = 1;
	printf("hz %d\n", `hz);
	printf("addr %x\n", (uintptr_t)&`hz);
	printf("map %d\n", gnumach`kernel_map != NULL);
	printf("name %s\n", stringof(`kernel_map->name));
	printf("entries %d\n", `kernel_map->hdr.nentries);
	printf("wired %d\n", `vm_page_wire_count);
	printf("in %x %a\n", (uintptr_t)&`kernel_map_store.hdr.nentries,
	    (uintptr_t)&`kernel_map_store.hdr.nentries);
	printf("past %a\n", (uintptr_t)(&`kernel_map_store + 1));
	printf("qlock %x %a\n", (uintptr_t)&`vm_page_queue_lock, (uintptr_t)&`vm_page_queue_lock);
	printf("sym ");
	sym((uintptr_t)&`kernel_map_store.hdr.nentries);
	printf("\nfunc ");
	func((uintptr_t)&`kernel_map_store.lock);
	printf("\nmod ");
	mod((uintptr_t)&`kernel_map_store.hdr.nentries);
	printf("\n");
}'
live_run ksyms "rt=10 pingpong=0 pages=16 threads=0 tasks=0" "$prog" -q
rc=$?
out=$TMP/ksyms.out
want=$(nm "$KERNEL" | sed -n 's/^\([0-9a-f]*\) [Dd] hz$/\1/p' | sed 's/^0*//')
if [ $rc = 0 ] && [ "$(val hz "$out")" = 100 ] &&
   [ "$(sed -n 's/^addr //p' "$out")" = "$want" ]; then
	pass live-ksyms-scalar
else
	fail live-ksyms-scalar "exit $rc, want hz 100 at $want: $(head -c 300 "$out" "$TMP/ksyms.err")"
fi
e=$(val entries "$out"); w=$(val wired "$out")
kt=$(sed -n 's/^ktask //p' "$out")
if [ "$(val map "$out")" = 1 ] && [ -n "$kt" ] && grep -q "^name $kt$" "$out" &&
   [ "${e:-0}" -gt 0 ] && [ "${w:-0}" -gt 0 ] && [ "${w:-0}" -lt $((1 << 20)) ]; then
	pass live-ksyms-struct
else
	fail live-ksyms-struct "$(tr '\n' ' ' < "$out")"
fi
base=$(nm "$KERNEL" | sed -n 's/^\([0-9a-f]*\) [BbDd] kernel_map_store$/\1/p')
read -r inaddr inname <<<"$(sed -n 's/^in //p' "$out")"
off=$(printf '%x' $((0x${inaddr:-0} - 0x${base:-0})))
if [ -n "$base" ] && [ "$off" != 0 ] && [ "${inname:-}" = "gnumach\`kernel_map_store+0x$off" ] &&
   grep -q '^sym  *gnumach`kernel_map_store *$' "$out" &&
   grep -q '^func  *gnumach`kernel_map_store *$' "$out" && grep -q '^mod  *gnumach *$' "$out" &&
   grep -q '^past ' "$out" && ! grep -q '^past .*kernel_map_store' "$out"; then
	pass live-ksyms-data-symbols
else
	fail live-ksyms-data-symbols "kernel_map_store at ${base:-none}: $(grep -E '^(in|past|sym|func|mod) ' "$out" | tr '\n' ' ')"
fi
qlock=$(nm "$KERNEL" | sed -n 's/^0*\([0-9a-f]*\) [BbDd] vm_page_queue_lock$/\1/p')
if [ -n "$qlock" ] && grep -q "^qlock $qlock gnumach\`vm_page_queue_lock$" "$out"; then
	pass live-ksyms-empty-struct
else
	fail live-ksyms-empty-struct "vm_page_queue_lock at ${qlock:-none}: $(grep '^qlock' "$out"; head -c 300 "$TMP/ksyms.err")"
fi
"$MACHTRACE" -xerrtags -e -n 'fbt::vm_fault:entry { `hz = 1; }' >/dev/null 2>"$TMP/w.err"
rc1=$?
"$MACHTRACE" -xerrtags -e -n 'fbt::vm_fault:entry { trace(`no_such_symbol); }' >/dev/null 2>"$TMP/u.err"
rc2=$?
# a symbol the kernel has but DWARF does not type (a function here):
# dtrace's D_SYM_NOTYPES, not "Unknown symbol name"
"$MACHTRACE" -xerrtags -e -n 'fbt::vm_fault:entry { trace(`vm_fault); }' >/dev/null 2>"$TMP/t.err"
rc3=$?
if [ $rc1 = 1 ] && grep -q "D_OP_WRITE" "$TMP/w.err" && [ $rc2 = 1 ] &&
   grep -q "\[D_IDENT_UNDEF\] line 1: failed to resolve \`no_such_symbol: Unknown symbol name" "$TMP/u.err" &&
   [ $rc3 = 1 ] && grep -q "\[D_SYM_NOTYPES\] line 1: no symbolic type information is available for gnumach\`vm_fault" "$TMP/t.err"; then
	pass live-ksyms-errors
else
	fail live-ksyms-errors "$(cat "$TMP/w.err" "$TMP/u.err" "$TMP/t.err")"
fi
