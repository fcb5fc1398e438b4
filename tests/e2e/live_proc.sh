#!/usr/bin/env bash
# proc: with threads=T tasks=K machload creates and terminates T threads
# and K tasks (it says so on the console); proc:::lwp-create and lwp-exit
# fire exactly T times for it, proc:::create and exit exactly K times, the
# translated args[] say the new (dying) thread's task is machload and the
# new (dying) task is named after it ("(machload)", GNU Mach's name for a
# child), pr_addr is the native argument; -lv gives DTrace's types.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-proc

"$MACHTRACE" -lv -n 'proc:::lwp-create' >"$TMP/lv"
"$MACHTRACE" -lv -n 'proc:::exit' >>"$TMP/lv"
if grep -q 'args\[0\]: lwpsinfo_t \*' "$TMP/lv" && grep -q 'args\[1\]: psinfo_t \*' "$TMP/lv" &&
   grep -q 'args\[0\]: psinfo_t \*' "$TMP/lv"; then
	pass live-proc-list-types
else
	fail live-proc-list-types "$(grep 'args\[' "$TMP/lv" | tr '\n' ' ')"
fi
"$MACHTRACE" -l -n 'proc:::' >"$TMP/l"
for n in create exit lwp-create lwp-exit; do
	if ! grep -q " proc  *gnumach  *[a-z_]* $n\$" "$TMP/l"; then
		fail live-proc-list "proc:::$n not listed"
		break
	fi
	[ $n = lwp-exit ] && pass live-proc-list
done

T=3 K=2
prog='proc:::lwp-create /execname == "machload"/ { @lc = count(); }
proc:::lwp-create /execname == "machload" && args[1]->pr_fname == "machload" &&
    args[0]->pr_addr == arg0 && stringof(((struct thread *)arg0)->task->name) == "machload"/ { @lt = count(); }
proc:::lwp-exit /execname == "machload"/ { @le = count(); }
proc:::lwp-exit /execname == "machload" && args[1]->pr_fname == "machload"/ { @ln = count(); }
proc:::create /execname == "machload"/ { @c = count(); }
proc:::create /execname == "machload" && args[0]->pr_fname == "(machload)" &&
    args[0]->pr_addr == arg0/ { @cn = count(); }
proc:::exit /execname == "machload"/ { @e = count(); }
proc:::exit /execname == "machload" && args[0]->pr_fname == "(machload)"/ { @en = count(); }
END { printa("lc %@d\n", @lc); printa("lt %@d\n", @lt); printa("le %@d\n", @le);
      printa("ln %@d\n", @ln); printa("c %@d\n", @c); printa("cn %@d\n", @cn);
      printa("e %@d\n", @e); printa("en %@d\n", @en); }'
live_run proc "threads=$T tasks=$K" "$prog" -q --mach
rc=$?
workload_ok live-proc-workload-completes "$TMP/proc.con"
# ground truth: machload's own counts
gt=$(sed -n 's/^machload: threads n=[0-9]* ok=\([0-9]*\) .*/\1/p' "$TMP/proc.con")
gk=$(sed -n 's/^machload: tasks n=[0-9]* ok=\([0-9]*\) .*/\1/p' "$TMP/proc.con")
lc=$(val lc "$TMP/proc.out"); lt=$(val lt "$TMP/proc.out"); le=$(val le "$TMP/proc.out")
ln=$(val ln "$TMP/proc.out"); c=$(val c "$TMP/proc.out"); cn=$(val cn "$TMP/proc.out")
e=$(val e "$TMP/proc.out"); en=$(val en "$TMP/proc.out")
if [ $rc = 0 ] && [ "${gt:-x}" = $T ] && [ "${lc:-0}" = $T ] && [ "${lt:-0}" = $T ]; then
	pass live-proc-lwp-create-exact
else
	fail live-proc-lwp-create-exact "exit $rc, machload made ${gt:-?} threads, lwp-create ${lc:-none} (its task machload: ${lt:-none}): $(head -c 300 "$TMP/proc.err")"
fi
if [ "${le:-0}" = "${gt:-x}" ] && [ "${ln:-0}" = "$le" ]; then
	pass live-proc-lwp-exit-exact
else
	fail live-proc-lwp-exit-exact "machload ended ${gt:-?} threads, lwp-exit ${le:-none} (its task machload: ${ln:-none})"
fi
if [ "${gk:-x}" = $K ] && [ "${c:-0}" = $K ] && [ "${cn:-0}" = $K ]; then
	pass live-proc-create-exact
else
	fail live-proc-create-exact "machload made ${gk:-?} tasks, create ${c:-none} (named (machload): ${cn:-none})"
fi
if [ "${e:-0}" = "${gk:-x}" ] && [ "${en:-0}" = "$e" ]; then
	pass live-proc-exit-exact
else
	fail live-proc-exit-exact "machload terminated ${gk:-?} tasks, exit ${e:-none} (named (machload): ${en:-none})"
fi
