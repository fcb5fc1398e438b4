#!/usr/bin/env bash
# vm and vminfo: with pages=P machload takes at least P page faults;
# vm:::fault sees them (args[2] is machload's psinfo), vm:::fault-done ends each (the same count, user
# faults ending in their continuation included) with a latency > 0;
# vminfo:::zfod and as_fault fire exactly as often as the kernel's own
# vm_stat counters grow (read before and after, and arg1 points to the
# counter: its values run without a gap); -lv gives the argument types.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-vm

"$MACHTRACE" -lv -n 'vm:::fault' >"$TMP/lv"
"$MACHTRACE" -lv -n 'vm:::fault-done' >"$TMP/lvd"
"$MACHTRACE" -lv -n 'vminfo:::zfod' >"$TMP/lvz"
if grep -q 'args\[0\]: vm_offset_t' "$TMP/lv" && grep -q 'args\[1\]: vm_prot_t' "$TMP/lv" &&
   grep -q 'args\[2\]: psinfo_t \*' "$TMP/lv" && grep -q 'args\[0\]: kern_return_t' "$TMP/lvd" &&
   grep -q 'args\[1\]: uint64_t' "$TMP/lvd" && grep -q 'args\[1\]: integer_t \*' "$TMP/lvz"; then
	pass live-vm-list-types
else
	fail live-vm-list-types "$(grep -h 'args\[' "$TMP/lv" "$TMP/lvd" "$TMP/lvz" | tr '\n' ' ')"
fi
"$MACHTRACE" -l -n 'vm:::,vminfo:::' >"$TMP/l"
miss=
for n in 'user_trap fault' 'kernel_trap fault' 'vm_fault fault-done' \
	 'user_page_fault_continue fault-done' 'vm_fault_page zfod' 'vm_fault_page cow_fault' \
	 'vm_fault_page pgin' 'vm_pageout_setup pgout' 'vm_fault_page pgrec' 'vm_fault_page as_fault'; do
	grep -q " gnumach  *$n\$" "$TMP/l" || miss="$miss [$n]"
done
if [ -z "$miss" ]; then
	pass live-vm-list
else
	fail live-vm-list "not listed:$miss"
fi

P=64
prog='BEGIN { z0 = `vm_stat.zero_fill_count; f0 = `vm_stat.faults; zfirst = 0; zlast = 0; }
vm:::fault /execname == "machload"/ { @f = count(); }
vm:::fault /execname == "machload" && args[2]->pr_fname == "machload" && args[2]->pr_pid == pid/ { @ft = count(); }
vm:::fault-done /execname == "machload"/ { @d = count(); @zero = sum(args[1] == 0); @max = max(args[1]); }
vminfo:::zfod { @z = count(); zfirst = zfirst ? zfirst : *args[1] + 1; zlast = *args[1] + 1; }
vminfo:::as_fault { @a = count(); }
END {
	printa("f %@d\n", @f); printa("ft %@d\n", @ft); printa("d %@d\n", @d); printa("zero %@d\n", @zero);
	printa("max %@d\n", @max); printa("z %@d\n", @z); printa("a %@d\n", @a);
	printf("zdelta %d\nzrun %d\nfdelta %d\n", `vm_stat.zero_fill_count - z0,
	       zlast - zfirst + 1, `vm_stat.faults - f0);
}'
live_run vm "pages=$P" "$prog" -q --mach
rc=$?
workload_ok live-vm-workload-completes "$TMP/vm.con"
f=$(val f "$TMP/vm.out"); ft=$(val ft "$TMP/vm.out"); d=$(val d "$TMP/vm.out"); zero=$(val zero "$TMP/vm.out")
max=$(val max "$TMP/vm.out"); z=$(val z "$TMP/vm.out"); a=$(val a "$TMP/vm.out")
zdelta=$(val zdelta "$TMP/vm.out"); zrun=$(val zrun "$TMP/vm.out"); fdelta=$(val fdelta "$TMP/vm.out")
if [ $rc = 0 ] && [ "${f:-0}" -ge $P ] && [ "${ft:-0}" = "$f" ]; then
	pass live-vm-fault-covers-pages
else
	fail live-vm-fault-covers-pages "exit $rc, vm:::fault ${f:-none} (want >= $P; args[2] machload's: ${ft:-none}): $(head -c 300 "$TMP/vm.err")"
fi
if [ "${d:-0}" = "${f:-x}" ]; then
	pass live-vm-fault-done-balances
else
	fail live-vm-fault-done-balances "fault ${f:-none}, fault-done ${d:-none}"
fi
if [ "${zero:-x}" = 0 ] && [ "${max:-0}" -gt 0 ]; then
	pass live-vm-fault-latency
else
	fail live-vm-fault-latency "fault-done with latency 0: ${zero:-none}, max ${max:-none}"
fi
if [ "${z:-0}" -ge $P ] && [ "$z" = "${zdelta:-x}" ] && [ "$z" = "${zrun:-x}" ]; then
	pass live-vminfo-zfod-is-the-kernel-counter
else
	fail live-vminfo-zfod-is-the-kernel-counter "zfod ${z:-none}, vm_stat.zero_fill_count grew ${zdelta:-?}, counter values seen ${zrun:-?}"
fi
if [ "${a:-0}" -ge $P ] && [ "$a" = "${fdelta:-x}" ]; then
	pass live-vminfo-as_fault-is-the-kernel-counter
else
	fail live-vminfo-as_fault-is-the-kernel-counter "as_fault ${a:-none}, vm_stat.faults grew ${fdelta:-?}"
fi

# fault-done alone: the faults' sites still stamp its latency
prog='vm:::fault-done /execname == "machload"/ { @d = count(); @zero = sum(args[1] == 0); }
END { printa("d %@d\n", @d); printa("zero %@d\n", @zero); }'
live_run done "pages=16" "$prog" -q --mach
d=$(val d "$TMP/done.out"); zero=$(val zero "$TMP/done.out")
if [ "${d:-0}" -ge 16 ] && [ "${zero:-x}" = 0 ]; then
	pass live-vm-fault-done-alone-has-latency
else
	fail live-vm-fault-done-alone-has-latency "fault-done ${d:-none}, of which latency 0: ${zero:-none}: $(head -c 300 "$TMP/done.err")"
fi
