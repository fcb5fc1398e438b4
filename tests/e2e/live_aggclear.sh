#!/usr/bin/env bash
# clear() and trunc() between intervals lose and invent nothing: the values
# printed at every interval plus the final printa add up exactly to the
# kernel's total (a second aggregation the program never clears, or for the
# keyless count() fast path a run without clear()), and none is negative.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-aggclear

W='rt=200000 pingpong=0 pages=0 threads=0 tasks=0'
P='fbt::mach_msg_trap:entry'

# check NAME: every "c N" line of $TMP/NAME.out sums to "t N" (or $2)
check() {
	local name=$1 want=${2:-} sum neg n
	[ -n "$want" ] || want=$(val t "$TMP/$name.out")
	sum=$(awk '$1 == "c" { s += $2 } END { print s + 0 }' "$TMP/$name.out")
	neg=$(awk '$1 == "c" && $2 < 0' "$TMP/$name.out" | wc -l)
	n=$(grep -c '^c ' "$TMP/$name.out")
	if [ "${want:-0}" -gt 0 ] && [ "$sum" = "$want" ] && [ "$neg" = 0 ] &&
	   [ "$n" -ge 3 ]; then
		pass "live-aggclear-$name"
	else
		fail "live-aggclear-$name" "intervals sum to $sum over $n lines ($neg negative), kernel total ${want:-none}: $(head -c 300 "$TMP/$name.err")"
	fi
}

live_run count-clear "$W" "$P { @c[\"m\"] = count(); @t = count(); }
tick-50ms { printa(\"c %@d\n\", @c); clear(@c); }
END { printa(\"c %@d\n\", @c); printa(\"t %@d\n\", @t); }" -q
check count-clear
total=$(val t "$TMP/count-clear.out")

live_run count-trunc "$W" "$P { @c[\"m\"] = count(); @t = count(); }
tick-50ms { printa(\"c %@d\n\", @c); trunc(@c); }
END { printa(\"c %@d\n\", @c); printa(\"t %@d\n\", @t); }" -q
check count-trunc

live_run sum-trunc "$W" "$P { @c[\"m\"] = sum(3); @t = sum(3); }
tick-50ms { printa(\"c %@d\n\", @c); trunc(@c); }
END { printa(\"c %@d\n\", @c); printa(\"t %@d\n\", @t); }" -q
check sum-trunc

# the keyless count() alone is one increment in the trampoline
live_run fast-total "$W" "$P { @ = count(); } END { printa(\"t %@d\n\", @); }" -q
fast=$(val t "$TMP/fast-total.out")
if [ -n "$fast" ] && [ "$fast" = "${total:-}" ]; then
	pass live-aggclear-fast-total
else
	fail live-aggclear-fast-total "keyless count() ${fast:-none}, keyed ${total:-none}"
fi
live_run fast-clear "$W" "$P { @ = count(); }
tick-50ms { printa(\"c %@d\n\", @); clear(@); }
END { printa(\"c %@d\n\", @); }" -q
check fast-clear "$fast"
