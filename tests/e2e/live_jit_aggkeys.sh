#!/usr/bin/env bash
# engines: once (it runs each engine itself)
# Compiled code's calls of the runtime run on the blob's stack (entry.S
# lk_jit_thunks), not on the kernel's 4 KiB stack of the site:
# vm_page_grab is reached with little of it left (under the slab
# allocator), where a one-integer-key aggregation's helper (MT_JH_INTKEY,
# called at every firing) overflowed it and the guest stopped in its
# debugger.  On vm_page_grab and on every vm_* and ipc_* entry, compiled:
# no panic, the workload completes, the keyed counts add up to a keyless
# count of the same probes, which is the interpreter's (within 1%: the
# session may stop at another place in each run), and the kernel text is
# restored.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-jit-aggkeys

words="rt=200 pingpong=0 pages=4 threads=0 tasks=1"
end='END { printa("k %d %@d\n", @k); printa("c %@d\n", @c); }'

# run NAME PROBES KEY: compiled as NAME, interpreted as noNAME
run() {
	local prog="$2 { @k[$3] = count(); } $2 { @c = count(); } $end"
	MACHTRACE_TEXTCHECK=1 live_run "$1" "$words" "$prog" -q -S
	rc=$?
	MACHTRACE_NOJIT=1 live_run "no$1" "$words" "$prog" -q
	rc2=$?
}

# the keyed counts' sum and the keyless count of an output
keyed_sum() { awk '$1 == "k" { s += $3 } END { print s + 0 }' "$1"; }

check() {	# test name, run name
	local c k o
	workload_ok "$1-workload-completes" "$TMP/$2.con"
	c=$(val c "$TMP/$2.out"); k=$(keyed_sum "$TMP/$2.out"); o=$(val c "$TMP/no$2.out")
	echo "# $2: keyless ${c:-none}, keyed sum $k, interpreter's keyless ${o:-none}"
	if [ $rc = 0 ] && [ $rc2 = 0 ] && grep -q "^Probe .*: compiled" "$TMP/$2.err" &&
	   [ "${c:-0}" -gt 0 ] && [ "$k" = "$c" ] && [ "$(keyed_sum "$TMP/no$2.out")" = "${o:-x}" ] &&
	   [ $(( (c > o ? c - o : o - c) * 100 )) -le "$c" ]; then
		pass "$1-counts"
	else
		fail "$1-counts" "exit $rc/$rc2, keyless ${c:-none}, keyed $k, interpreter's ${o:-none} $(grep -E 'KDB|panic' "$TMP/$2.err" | head -n 1)"
	fi
	if grep -q "kernel text identical to the image" "$TMP/$2.err"; then
		pass "$1-text-restored"
	else
		fail "$1-text-restored" "$(grep 'kernel text' "$TMP/$2.err")"
	fi
}

run grab1 'fbt::vm_page_grab:entry' 1
check live-jit-aggkeys-grab-const grab1
run grabarg 'fbt::vm_page_grab:entry' arg0
check live-jit-aggkeys-grab-arg0 grabarg
run wide 'fbt::vm_*:entry, fbt::ipc_*:entry' 'arg0 & 7'
check live-jit-aggkeys-wide wide
