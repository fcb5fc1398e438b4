#!/usr/bin/env bash
# mod(), func() and sym() aggregation keys merge as dtrace merges them: by
# the symbol they print, so each module or function is one row holding all
# of its samples, rows sorted by the merged value.
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
# every kernel sample is gnumach's: a tick taken in machtrace's own code
# (a trampoline, a probe's return through lk_fbt_entry, the boot hook) is
# reported at the kernel instruction it runs for, as dtrace never shows
# itself in a profile
mods=$(rows m | grep -c .)
m=$(rows m | awk '$1 == "gnumach" { print $2 }')
if [ "${t:-0}" -gt 0 ] && [ "$mods" = 1 ] && [ "${m:-0}" = "$t" ]; then
	pass live-symkeys-mod
else
	fail live-symkeys-mod "$mods mod rows ($(rows m | tr '\n' ' ')), gnumach ${m:-none} of ${t:-none} samples: $(head -c 300 "$TMP/symkeys.err")"
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
