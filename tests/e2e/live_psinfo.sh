#!/usr/bin/env bash
# pid, tid, execname and the kernel D library (mach.d) on GNU Mach: pid and
# tid are small per-boot numbers, the same in every probe and equal to
# curpsinfo->pr_pid / curlwpsinfo->pr_lwpid; machload with threads=T has
# T + 2 distinct tids (its main thread, pingpong's worker and the T
# threads; machload reaps each thread before the next, which
# GNU Mach may create at the same address within the same clock tick: the
# blob's destruction hook forgets the dead thread's number); curpsinfo->pr_fname is "machload" in its probes;
# kernel threads (pid 0) are named, never "gnumach"; ppid reads -1 and
# uid (uid_t) (uid_t)-1.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-psinfo

T=3
prog='
fbt::vm_fault:entry /execname == "machload"/
{
	@vf[pid, curpsinfo->pr_pid, curpsinfo->pr_fname] = count();
	@same[tid == curlwpsinfo->pr_lwpid && pid == curpsinfo->pr_pid ?
	    "agree" : "differ"] = count();
}
fbt::thread_invoke:entry /execname == "machload"/
{
	@ti[pid] = count();
	@tids[tid] = count();
	@same[tid == curlwpsinfo->pr_lwpid && pid == curpsinfo->pr_pid &&
	    curlwpsinfo->pr_sname == 0x4f ? "agree" : "differ"] = count();
	@ids[ppid, uid, curpsinfo->pr_ppid, curpsinfo->pr_uid] = count();
}
mach_trap:::entry /execname == "machload"/
{
	@tids[tid] = count();
}
fbt::thread_invoke:entry
/xlate<psinfo_t *>(args[2])->pr_fname == "machload"/
{
	@tids[xlate<lwpsinfo_t *>(args[2])->pr_lwpid] = count();
}
fbt::thread_invoke:entry /pid == 0/
{
	@k[execname] = count();
}
END
{
	printa("vf %d %d %s %@d\n", @vf);
	printa("ti %d %@d\n", @ti);
	printa("tid %d %@d\n", @tids);
	printa("same %s %@d\n", @same);
	printa("ids %d %d %d %d %@d\n", @ids);
	printa("kthread %s %@d\n", @k);
}'
live_run psinfo "rt=10 pingpong=20 pages=16 threads=$T tasks=0" "$prog" -q
rc=$?
out=$TMP/psinfo.out
workload_ok live-psinfo-workload "$TMP/psinfo.con"
vf=$(grep -c '^vf ' "$out")
set -- $(grep '^vf ' "$out" | head -n 1)
vfpid=${2:-x}
tipid=$(sed -n 's/^ti \([0-9]*\) .*/\1/p' "$out")
if [ $rc = 0 ] && [ "$vf" = 1 ] && [ "${3:-y}" = "$vfpid" ] &&
   [ "${4:-}" = machload ] && [ "$tipid" = "$vfpid" ] &&
   [ "$vfpid" -ge 1 ] && [ "$vfpid" -lt 64 ]; then
	pass live-psinfo-pid
else
	fail live-psinfo-pid "exit $rc: $(grep -E '^(vf|ti) ' "$out" | tr '\n' ' ') $(head -c 300 "$TMP/psinfo.err")"
fi
ntids=$(grep -c '^tid ' "$out")
big=$(awk '/^tid / && $2 >= 4096 { n++ } END { print n + 0 }' "$out")
if [ "$ntids" = $((T + 2)) ] && [ "$big" = 0 ]; then
	pass live-psinfo-tids
else
	fail live-psinfo-tids "$ntids distinct tids for threads=$T (want $((T + 2)): main, pingpong's worker, T), $big not small"
fi
if grep -q '^same agree ' "$out" && ! grep -q '^same differ' "$out"; then
	pass live-psinfo-agree
else
	fail live-psinfo-agree "$(grep '^same' "$out" | tr '\n' ' ')"
fi
if [ "$(grep -c '^ids ' "$out")" = 1 ] && grep -q '^ids -1 4294967295 -1 4294967295 ' "$out"; then
	pass live-psinfo-no-mach-meaning
else
	fail live-psinfo-no-mach-meaning "$(grep '^ids' "$out" | tr '\n' ' ')"
fi
if grep -q '^kthread ' "$out" && ! grep -q '^kthread gnumach ' "$out" &&
   grep -qE '^kthread (idle/0|[a-z_]+_thread) ' "$out"; then
	pass live-psinfo-kthread-names
else
	fail live-psinfo-kthread-names "$(grep '^kthread' "$out" | tr '\n' ' ')"
fi
