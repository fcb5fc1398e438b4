#!/usr/bin/env bash
# D's if/else in kernel probes: every vm_fault entry takes exactly one
# branch (machload's + the others' = an unconditional count), machload's
# branch sees at least its pages=P faults, an else-if chain and a printf in
# a branch work; curthread is the kernel's struct thread *, so
# stringof(curthread->task->name) is execname.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-ifelse

P=128
prog='int shown;
fbt::vm_fault:entry
{
	if (execname == "machload") {
		@m = count();
		if (stringof(curthread->task->name) == execname)
			@same = count();
		else
			@differ = count();
	} else if (execname == "gnumach")
		@k = count();
	else
		@o = count();
	@all = count();
	if (!shown && execname == "machload") {
		shown = 1;
		printf("task name %s\n", stringof(curthread->task->name));
	}
}
END { printa("m %@d\n", @m); printa("k %@d\n", @k); printa("o %@d\n", @o);
      printa("all %@d\n", @all); printa("same %@d\n", @same);
      printa("differ %@d\n", @differ); }'
live_run ifelse "rt=10 pingpong=0 pages=$P threads=0 tasks=0" "$prog" -q
rc=$?
out=$TMP/ifelse.out
m=$(val m "$out"); k=$(val k "$out"); o=$(val o "$out"); all=$(val all "$out")
same=$(val same "$out"); differ=$(val differ "$out")
if [ $rc = 0 ] && [ "${all:-0}" -gt 0 ] &&
   [ $(( ${m:-0} + ${k:-0} + ${o:-0} )) = "${all:-0}" ]; then
	pass live-ifelse-branches-sum
else
	fail live-ifelse-branches-sum "exit $rc, m=${m:-0} k=${k:-0} o=${o:-0} all=${all:-none}: $(head -c 300 "$TMP/ifelse.err")"
fi
if [ "${m:-0}" -ge $P ]; then
	pass live-ifelse-machload-faults
else
	fail live-ifelse-machload-faults "machload branch ${m:-none} (want >= $P)"
fi
if [ "${same:-0}" = "${m:-x}" ] && [ -z "$differ" ] &&
   grep -q "^task name machload$" "$out"; then
	pass live-curthread-task-name
else
	fail live-curthread-task-name "same=${same:-none} differ=${differ:-none} of m=${m:-none}; $(grep 'task name' "$out")"
fi
