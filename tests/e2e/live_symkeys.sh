#!/usr/bin/env bash
# mod(), func() and sym() aggregation keys merge as dtrace merges them: by
# the symbol they print, so each module or function is one row holding all
# of its samples, rows sorted by the merged value; usym() and ufunc() keys
# of a user task's pcs too (uaddr() keeps each pc).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-symkeys

live_run symkeys "rt=300000 pingpong=0 pages=0 threads=0 tasks=0" \
'profile-997 /arg0/ { @m[mod(arg0)] = count(); @f[func(arg0)] = count();
  @s[sym(arg0)] = count(); @t = count(); }
END { printa("t %@d\n", @t); printf("[m]\n"); printa(@m);
  printf("[f]\n"); printa(@f); printf("[s]\n"); printa(@s); }' -q --mach
out=$TMP/symkeys.out
t=$(val t "$out")
# the rows "  KEY   N" of section NAME of the output
rows() {
	awk -v s="[$1]" '/^\[/ { in_s = ($0 == s); next } in_s && NF == 2 { print $1, $2 }' "$out"
}
# every kernel sample is gnumach's or tracer time: a tick taken in
# machtrace's own code is reported at the kernel instruction it runs for
# (a trampoline's displaced instructions, an entry vector), or, when it
# waited for a probe to end, as machtrace`tracer (runtime/x86_64/
# sample.c); never as machtrace's machinery (runtime, trampoline)
mods=$(rows m | grep -c .)
m=$(rows m | awk '$1 == "gnumach" { print $2 }')
tr=$(rows m | awk '$1 == "machtrace" { print $2 }')
trf=$(rows f | awk '$1 == "machtrace`tracer" { print $2 }')
if [ "${t:-0}" -gt 0 ] && [ "$((${m:-0} + ${tr:-0}))" = "$t" ] && [ "${tr:-0}" = "${trf:-0}" ] &&
   [ "$mods" -le 2 ]; then
	pass live-symkeys-mod
else
	fail live-symkeys-mod "$mods mod rows ($(rows m | tr '\n' ' ')), gnumach ${m:-none} + tracer ${trf:-none} of ${t:-none} samples: $(head -c 300 "$TMP/symkeys.err")"
fi
for k in f s; do
	rows=$(rows $k)
	n=$(echo "$rows" | grep -c .)
	uniq=$(echo "$rows" | awk '{ print $1 }' | sort -u | grep -c .)
	sum=$(echo "$rows" | awk '{ s += $2 } END { print s + 0 }')
	sorted=$(echo "$rows" | awk 'NR > 1 && $2 < last { bad = 1 } { last = $2 } END { print bad ? "no" : "yes" }')
	if [ "$n" -gt 1 ] && [ "$n" = "$uniq" ] && [ "$sum" = "${t:-}" ] && [ "$sorted" = yes ]; then
		pass live-symkeys-$k
	else
		fail live-symkeys-$k "$n rows, $uniq distinct, sum $sum of ${t:-none}, sorted $sorted"
	fi
done

# a user function's entry and return: two pcs of machload`do_pages, one
# usym() row and one ufunc() row holding both firings
out=$TMP/usymkeys.out
live_run usymkeys "rt=10 pingpong=0 pages=16 threads=0 tasks=0" \
'pid1:machload:do_pages:entry, pid1:machload:do_pages:return {
  @s[usym(uregs[R_PC])] = count(); @f[ufunc(uregs[R_PC])] = count();
  @a[uaddr(uregs[R_PC])] = count(); }
END { printf("[s]\n"); printa(@s); printf("[f]\n"); printa(@f); printf("[a]\n"); printa(@a); }' -q
pcs=$(rows a | grep -c '^machload`do_pages')
fired=$(rows a | awk '$1 ~ /^machload`do_pages/ { s += $2 } END { print s + 0 }')
for k in s f; do
	got=$(rows $k | awk '$1 == "machload`do_pages"')
	if [ "$pcs" -gt 1 ] && [ "$(echo "$got" | grep -c .)" = 1 ] &&
	   [ "$(echo "$got" | awk '{ print $2 }')" = "$fired" ]; then
		pass live-symkeys-user-$k
	else
		fail live-symkeys-user-$k "$pcs pcs firing $fired times, rows: $(echo $got) $(head -c 300 "$TMP/usymkeys.err")"
	fi
done
