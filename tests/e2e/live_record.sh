#!/usr/bin/env bash
# record: a CTF trace of the live kernel that Debian's babeltrace2 reads.
# With --events sched,ipc,proc,trap and a small machload workload: the
# trace reads without error, babeltrace2 prints as many events as
# machtrace says it recorded, sched_switch equals sched:::off-cpu counted
# by an aggregation in the same session, ipc_send of machload_echo equals
# machload's own RPC count.  A D program's trace()/printf() records read
# back with their values (machload's round-trip indexes).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-record
if ! command -v babeltrace2 >/dev/null; then
	echo "SKIP live-record: babeltrace2 is not installed (make setup)"
	exit 0
fi


R=5
prog='sched:::off-cpu { @sw = count(); } END { printa("sw %@d\n", @sw); }
sched:::off-cpu { @c[cpu] = count(); } END { printa("cpu %d %@d\n", @c); }'
rec_run rec "rpcs=$R threads=2 tasks=1" "$prog" -q --mach -o "$TMP/trace" \
	--events sched,ipc,proc,trap
rc=$?
workload_ok live-record-workload-completes "$TMP/rec.con"
n=$(sed -n 's/^machtrace: recorded \([0-9]*\) events, \([0-9]*\) dropped.*/\1/p' "$TMP/rec.err")
d=$(sed -n 's/^machtrace: recorded \([0-9]*\) events, \([0-9]*\) dropped.*/\2/p' "$TMP/rec.err")
sw=$(val sw "$TMP/rec.out")
babeltrace2 "$TMP/trace" >"$TMP/bt.out" 2>"$TMP/bt.err"
bt=$?
lines=$(wc -l <"$TMP/bt.out")
if [ $rc = 0 ] && [ $bt = 0 ] && [ ! -s "$TMP/bt.err" ] && [ -n "$n" ] && [ "$n" -gt 0 ] &&
   [ "$lines" = "$n" ]; then
	pass live-record-babeltrace2-reads-all
else
	fail live-record-babeltrace2-reads-all "machtrace exit $rc, recorded ${n:-?}; babeltrace2 exit $bt, $lines events: $(head -c 300 "$TMP/bt.err") $(head -c 300 "$TMP/rec.err")"
fi
nsw=$(grep -c '\] (+[?0-9.]*) [^ ]* sched_switch: ' "$TMP/bt.out")
if [ "${d:-x}" = 0 ] && [ -n "$sw" ] && [ "$nsw" = "$sw" ] && [ "$sw" -gt 0 ]; then
	pass live-record-sched-switch-equals-provider
else
	fail live-record-sched-switch-equals-provider "sched_switch $nsw, sched:::off-cpu aggregation ${sw:-none}, dropped ${d:-?}"
fi
# the CPU: off-cpu's cpu built-in and the recorded sched_switch's packet
# cpu_id (its stream's) agree, CPU by CPU
percpu=$(awk '$1 == "cpu" { print $2, $3 }' "$TMP/rec.out")
cpuok=1
while read -r c k; do
	[ "$(grep -c "\] (+[?0-9.]*) [^ ]* sched_switch: { cpu_id = $c }" "$TMP/bt.out")" = "$k" ] || cpuok=0
done <<<"$percpu"
if [ "${d:-x}" = 0 ] && [ -n "$percpu" ] && [ $cpuok = 1 ] &&
   [ "$(grep -c ' sched_switch: { cpu_id = ' "$TMP/bt.out")" = "$nsw" ]; then
	pass live-record-sched-switch-cpu
else
	fail live-record-sched-switch-cpu "off-cpu by cpu: $(echo $percpu); $(grep -m1 ' sched_switch: ' "$TMP/bt.out" | head -c 200)"
fi
echo_s=$(grep -c ' ipc_send: .*msg_name = "machload_echo",' "$TMP/bt.out")
if [ "$echo_s" = $R ] && grep -q ' sched_process_fork: .*child_comm = "machload"' "$TMP/bt.out" &&
   grep -q ' syscall_entry_mach_msg_trap: ' "$TMP/bt.out" &&
   grep -q ' sched_switch: .*prev_comm = "machload", prev_tid = [0-9]*, prev_prio = [0-9]*, prev_state = 1, next_comm = ' "$TMP/bt.out"; then
	pass live-record-lttng-events
else
	fail live-record-lttng-events "ipc_send machload_echo $echo_s (machload sent $R); $(grep -m3 -E 'sched_switch|fork' "$TMP/bt.out" | tr '\n' ' ')"
fi
# what was traced is in the env: the program, --events, the workload
if grep -q 'domain = "kernel";' "$TMP/trace/kernel/metadata" && head -n 1 "$TMP/trace/kernel/metadata" | grep -q '^/\* CTF 1.8' &&
   grep -qF 'machtrace_program = "sched:::off-cpu { @sw = count(); } END { printa(' "$TMP/trace/kernel/metadata" &&
   grep -qF 'machtrace_events = "sched,ipc,proc,trap";' "$TMP/trace/kernel/metadata" &&
   grep -qF "machtrace_workload = \"rpcs=$R threads=2 tasks=1\";" "$TMP/trace/kernel/metadata" &&
   [ -f "$TMP/trace/kernel/channel0_0" ] && [ ! -e "$TMP/trace/metadata" ]; then
	pass live-record-metadata
else
	fail live-record-metadata "$(head -n 3 "$TMP/trace/kernel/metadata" | tr '\n' ' ')"
fi

# A D program's records: trace() and printf() values.
rec_run recd "rt=4" 'machload*:::round-trip { trace(arg0); printf("rt %d\n", (int)arg0); }' \
	--mach -o "$TMP/dtrace"
rc=$?
babeltrace2 "$TMP/dtrace" >"$TMP/btd.out" 2>"$TMP/btd.err"
bt=$?
got=$(sed -n 's/.*round-trip: { cpu_id = 0 }, { trace0 = \([0-9]*\), printf1 = "rt \1\\n", printf1_0 = \1 }$/\1/p' "$TMP/btd.out" | tr '\n' ' ')
if [ $rc = 0 ] && [ $bt = 0 ] && [ "$got" = "0 1 2 3 " ]; then
	pass live-record-d-program-values
else
	fail live-record-d-program-values "exit $rc, babeltrace2 $bt, values '$got': $(head -n 2 "$TMP/btd.out") $(head -c 300 "$TMP/recd.err")"
fi

# Bad uses: no -o, an unknown group, a directory that holds files.
"$MACHTRACE" record --events sched >/dev/null 2>"$TMP/e1"; r1=$?
"$MACHTRACE" record -o "$TMP/x" --events sched,bogus >/dev/null 2>"$TMP/e2"; r2=$?
"$MACHTRACE" record -o "$TMP" --events sched >/dev/null 2>"$TMP/e3"; r3=$?
if [ $r1 != 0 ] && grep -q -- '-o DIR is required' "$TMP/e1" && [ $r2 != 0 ] &&
   grep -q "unknown event group 'bogus'" "$TMP/e2" && [ $r3 != 0 ] && grep -q 'not empty' "$TMP/e3"; then
	pass live-record-bad-uses
else
	fail live-record-bad-uses "exits $r1 $r2 $r3: $(cat "$TMP/e1" "$TMP/e2" "$TMP/e3" | tr '\n' ' ')"
fi

# --events' clauses are named as the option, not as a script (issue 21
# item 14: "script '--events' matched 60 probes")
rec_run evn "rt=5 pingpong=0 pages=4 threads=0 tasks=0" 'END { }' -o "$TMP/evn" --events trap,vm
rc=$?
if [ $rc = 0 ] && grep -q "^dtrace: --events trap,vm matched [1-9][0-9]* probes$" "$TMP/evn.err" &&
   ! grep -q "script '--events" "$TMP/evn.err"; then
	pass live-record-events-named
else
	fail live-record-events-named "exit $rc: $(head -c 300 "$TMP/evn.err")"
fi

# export of the live trace: Chrome JSON that parses, with a flow per
# machload_echo request at least; an unknown format is an error.
"$MACHTRACE" export "$TMP/trace" --format chrome -o "$TMP/trace.json" 2>"$TMP/ex.err"; r1=$?
flows=$(grep -c '"ph":"f"' "$TMP/trace.json")
"$MACHTRACE" export "$TMP/trace" --format pdf >/dev/null 2>"$TMP/ex2.err"; r2=$?
if [ $r1 = 0 ] && python3 -m json.tool "$TMP/trace.json" >/dev/null && [ "$flows" -ge $R ] &&
   grep -q '"name":"running"' "$TMP/trace.json" && [ $r2 != 0 ] &&
   grep -q "unknown format 'pdf'" "$TMP/ex2.err"; then
	pass live-record-export-chrome
else
	fail live-record-export-chrome "exit $r1 ($(head -c 200 "$TMP/ex.err")), $flows flows; bad format exit $r2"
fi

# Progress: on stderr when it is a terminal (script(1) gives one), never
# otherwise (the runs above wrote stderr to files).
script -qec "$MACHTRACE record -o $TMP/tty --events sched --timeout 200 --workload rpcs=2" \
	/dev/null >"$TMP/tty.out" 2>&1
script -qec "$MACHTRACE export $TMP/tty --format folded -o $TMP/tty.folded" /dev/null >"$TMP/tty2.out" 2>&1
if grep -q 'machtrace: recording: [0-9.]* s, [0-9]* events, 0 dropped' "$TMP/tty.out" &&
   grep -q 'machtrace: export: 100%' "$TMP/tty2.out" && ! grep -q 'recording:' "$TMP/rec.err" &&
   [ ! -s "$TMP/ex.err" ]; then
	pass live-record-progress-on-terminal-only
else
	fail live-record-progress-on-terminal-only "$(tr '\r' '\n' <"$TMP/tty.out" | head -n 4 | tr '\n' ' ') / $(head -c 200 "$TMP/rec.err")"
fi

# Drops are never silent: with a principal buffer far too small, the
# events in the trace plus the drops machtrace reports equal the firings
# (a count() in the same clause), the drops are the streams'
# events_discarded and babeltrace2 says events were discarded.
rec_run drop "rt=1000" 'fbt::mach_msg_trap:entry { trace(arg1); @n = count(); }
END { printa("n %@d\n", @n); }' -q --mach -x bufsize=1k -o "$TMP/drop"
rc=$?
d=$(sed -n 's/^machtrace: recorded \([0-9]*\) events, \([0-9]*\) dropped.*/\2/p' "$TMP/drop.err")
n=$(val n "$TMP/drop.out")
babeltrace2 "$TMP/drop" >"$TMP/btdrop.out" 2>"$TMP/btdrop.err"
bt=$?
x=$(grep -c 'mach_msg_trap:entry: ' "$TMP/btdrop.out")
if [ $rc = 0 ] && [ $bt = 0 ] && [ "${d:-0}" -gt 0 ] && [ $((x + d)) = "${n:-x}" ] &&
   grep -qi 'discarded' "$TMP/btdrop.err"; then
	pass live-record-drops-counted
else
	fail live-record-drops-counted "exit $rc, $x events + ${d:-?} dropped vs ${n:-?} firings; babeltrace2 $bt: $(head -c 200 "$TMP/btdrop.err")"
fi

# ipc events store the message id in probe context and name its routine
# on the host: record's program calls no mach_msgname() (-S), and every
# ipc_send's msg_name is what mach_msgname() gave the same firing in a
# clause of the user's.
"$MACHTRACE" record -o "$TMP/S" --events sched,ipc,proc,trap,vm -S \
	>"$TMP/S.out" 2>&1
rec_run nm "rpcs=$R" 'ipc:::send { trace(args[0]->msg_name); }' -q --mach \
	-o "$TMP/nm" --events ipc
babeltrace2 "$TMP/nm" >"$TMP/nm.bt" 2>/dev/null
sed -n 's/.* ipc_send: .*msg_name = \("[^"]*"\).*/\1/p' "$TMP/nm.bt" >"$TMP/nm.host"
sed -n 's/.*:send: .*trace0 = \("[^"]*"\).*/\1/p' "$TMP/nm.bt" >"$TMP/nm.probe"
if grep -q 'Clause 0: ipc:::send\|Clause [0-9]*: ipc:::send' "$TMP/S.out" &&
   ! grep -q 'mach_msgname\|mach_msgsubsystem' "$TMP/S.out" &&
   [ -s "$TMP/nm.host" ] && grep -q machload_echo "$TMP/nm.host" &&
   cmp -s "$TMP/nm.host" "$TMP/nm.probe"; then
	pass live-record-ipc-names-on-host
else
	fail live-record-ipc-names-on-host "$(grep -c mach_msgname "$TMP/S.out") mach_msgname calls; $(wc -l <"$TMP/nm.host") names vs $(wc -l <"$TMP/nm.probe"): $(diff "$TMP/nm.host" "$TMP/nm.probe" | head -n 4 | tr '\n' ' ')"
fi
