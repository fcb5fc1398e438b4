#!/usr/bin/env bash
# engines: once (it checks what the compiled engine covers, so an interpreter pass has nothing to check)
# The programs of `record --events sched,ipc,proc,trap,vm` and of `top`
# run compiled (issue 26): MACHTRACE_JIT_STATS lists every probe they
# enable, and each one is compiled but where its site cannot take
# compiled code at all (an int3 site; a site another probe or a hook
# shares).  A probe the compiler leaves to the interpreter fails, with
# the compiler's reason.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-tools-jit

words="rt=50 pingpong=0 pages=8 threads=1 tasks=1"
placement='^interpreted [^ ]*: (an int3 site|another probe or a hook fires at its site)$'

check() {	# name, stats file, status
	local n c left
	n=$(wc -l <"$2" 2>/dev/null || echo 0)
	c=$(grep -c '^compiled ' "$2" 2>/dev/null)
	left=$(grep -v '^compiled ' "$2" 2>/dev/null | grep -Ev "$placement")
	if [ "$3" = 0 ] && [ "${c:-0}" -gt 0 ] && [ -z "$left" ]; then
		pass "$1"
	else
		fail "$1" "exit $3, $c of $n probes compiled; left to the interpreter: $(echo "$left" | sed 's/^interpreted //' | sort | uniq -c | head -n 4 | tr '\n' ';')"
	fi
}

rm -f "$TMP/record.stats"
MACHTRACE_JIT_STATS=$TMP/record.stats MACHTRACE_CONSOLE_LOG=$TMP/record.con timeout 240 \
	"$MACHTRACE" record -o "$TMP/rec" --events sched,ipc,proc,trap,vm --timeout 200 \
	--workload "$words" >"$TMP/record.out" 2>"$TMP/record.err"
check live-tools-jit-record "$TMP/record.stats" $?

"$MACHTRACE" top --program >"$TMP/top.d"
rm -f "$TMP/top.stats"
MACHTRACE_JIT_STATS=$TMP/top.stats MACHTRACE_CONSOLE_LOG=$TMP/top.con timeout 240 \
	"$MACHTRACE" -q --timeout 200 --workload "$words" -s "$TMP/top.d" \
	>"$TMP/top.out" 2>"$TMP/top.err"
check live-tools-jit-top "$TMP/top.stats" $?
workload_ok live-tools-jit-workload "$TMP/top.con"

# pid and tid as compiled code reads them from the platform's thread memo
# agree with mach_pid()/mach_tid() of the same thread, over the threads
# of several tasks
prog='fbt::mach_msg_trap:entry, sched:::on-cpu, ipc:::send { @ok[probename,
	pid == mach_pid(curthread->task) && tid == mach_tid(curthread)] = count(); }
	END { printa("ok %s %d %@d\n", @ok); }'
rm -f "$TMP/memo.stats"
MACHTRACE_JIT_STATS=$TMP/memo.stats live_run memo "rt=20 pingpong=0 pages=4 threads=2 tasks=2" "$prog" -q
rc=$?
if [ $rc = 0 ] && grep -q '^ok send 1 [1-9]' "$TMP/memo.out" && grep -q '^ok on-cpu 1 [1-9]' "$TMP/memo.out" &&
   ! grep -q '^ok [a-z-]* 0 ' "$TMP/memo.out" && ! grep -v '^compiled ' "$TMP/memo.stats"; then
	pass live-tools-jit-memo
else
	fail live-tools-jit-memo "exit $rc: $(grep '^ok' "$TMP/memo.out" | tr '\n' ';') $(grep -v '^compiled ' "$TMP/memo.stats" | head -n 2)"
fi
