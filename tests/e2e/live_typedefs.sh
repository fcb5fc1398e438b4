#!/usr/bin/env bash
# Kernel typedefs in casts and sizeof, as dtrace resolves them from the
# kernel's types: `(vm_map_t)arg0` reads the same map as
# `(struct vm_map *)arg0`, sizeof (mig_reply_header_t) is the DWARF size
# (48), and a name that is no type stays a syntax error.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-typedefs

prog='fbt::vm_fault:entry /execname == "machload"/
{
	@same = sum(((vm_map_t)arg0)->size == ((struct vm_map *)arg0)->size);
	@n = count();
}
END { printa("same %@d\n", @same); printa("n %@d\n", @n);
      printf("size %d\n", sizeof (mig_reply_header_t)); }'
live_run td "rt=1 pingpong=0 pages=16 threads=0 tasks=0" "$prog" -q
rc=$?
same=$(val same "$TMP/td.out"); n=$(val n "$TMP/td.out")
if [ $rc = 0 ] && [ "${n:-0}" -ge 16 ] && [ "$same" = "$n" ] && [ "$(val size "$TMP/td.out")" = 48 ]; then
	pass live-typedef-casts
else
	fail live-typedef-casts "exit $rc, same ${same:-none} of ${n:-none}, size $(val size "$TMP/td.out"): $(head -c 300 "$TMP/td.err")"
fi
"$MACHTRACE" -e -n 'fbt::vm_fault:entry { y = (no_such_type_t)3; }' >/dev/null 2>"$TMP/e.err"
if [ $? != 0 ] && grep -q "syntax error" "$TMP/e.err"; then
	pass live-typedef-unknown
else
	fail live-typedef-unknown "$(cat "$TMP/e.err")"
fi
