#!/usr/bin/env bash
# Writes docs/figures.md (on stdout) from the outputs `make bench` kept in
# DIR (bench/bench.mk: STEP.out per benchmark), so that the one table of
# measured figures holds what the last run measured.  Fails, writing
# nothing, when a figure is missing from those outputs (a benchmark failed
# or changed its output): a table with a stale or empty cell would pass
# for measured.
#   bench/figures.sh DIR > docs/figures.md
# tests/suites/figures.sh runs it on sample outputs (no benchmark run).
set -u
DIR=${1:?usage: bench/figures.sh DIR}
DATE=${FIGURES_DATE:-$(date -u '+%Y-%m-%d %H:%M UTC')}

# A figure that cannot be read becomes MISSING; the file is not written if
# any is.
need() {	# file
	[ -s "$DIR/$1" ] && return
	echo "figures: $DIR/$1 missing (did its benchmark run?)" >&2
	return 1
}
pick() {	# what, file, sed expression printing the figure
	local v=
	need "$2" && v=$(sed -n "$3" "$DIR/$2" | head -n 1)
	[ -n "$v" ] || { echo "figures: no $1 in $DIR/$2" >&2; v=MISSING; }
	printf '%s' "$v"
}
# live_bench.sh's row for a variant: label, best, ratio, median, ratio;
# the best run's ratio is the figure
live_ratio() {	# file, row label
	local v=
	need "$1" && v=$(awk -v l="  $2 " 'index($0, l) == 1 { print $(NF - 2); exit }' "$DIR/$1")
	[ -n "$v" ] || { echo "figures: no '$2' row in $DIR/$1" >&2; v=MISSING; }
	printf '%s' "$v"
}
probe_ns() {	# case letter
	pick "probe case ($1)" probe.out "s/^  ($1) .* \([0-9.]*\) ns\/firing.*/\1/p"
}
probe_ratio() {	# case letter
	pick "probe case ($1) ratio" probe.out "s/^  ($1) .*ratio *\([0-9.]*\)x\$/\1/p"
}

boot_shim=$(pick "shim boot time" boot.out 's/^  shim (machtrace) *\([0-9.]*\) s.*/\1/p')
boot_grub=$(pick "GRUB boot time" boot.out 's/^  GRUB ISO *\([0-9.]*\) s.*/\1/p')
boot_ratio=$(pick "boot ratio" boot.out 's/^  ratio GRUB\/shim *\([0-9.]*\)x.*/\1/p')
boot_runs=$(pick "boot runs" boot.out 's/.*median of \([0-9]*\) runs.*/\1/p')
fbt_e=$(pick "fbt entry count" tools.out 's/.*fbt probes.*: \([0-9]*\) entry.*/\1/p')
fbt_r=$(pick "fbt return count" tools.out 's/.*fbt probes.*, \([0-9]*\) return.*/\1/p')
list_ms=$(pick "machtrace -l time" tools.out 's/^tools: machtrace -l .*: \([0-9]*\) ms$/\1/p')
vm_begin=$(pick "vm attach latency" vm.out 's/^vm attach: session start to BEGIN \([0-9.]*\) s.*/\1/p')
vm_whole=$(pick "vm session time" vm.out 's/.*whole BEGIN { exit(0); } session \([0-9.]*\) s.*/\1/p')
vm_reps=$(pick "vm sessions" vm.out 's/.*(median of \([0-9]*\) sessions.*/\1/p')
fetch_ms=$(pick "fetch give-up time" tools.out 's/^tools: fetch-kernel .*: \([0-9]*\) ms$/\1/p')
idle=$(live_ratio live-icount.out "runtime in the kernel, no fbt probe")
count=$(live_ratio live-icount.out "fbt::mach_msg_trap:entry { @ = count(); }")
nofast=$(live_ratio live-nofast.out "fbt::mach_msg_trap:entry { @ = count(); } (no fast path)")
count_tsc=$(live_ratio live-tsc.out "fbt::mach_msg_trap:entry { @ = count(); }")
entret=$(live_ratio live-icount.out "entry+return, predicate, quantize")
entret_tsc=$(live_ratio live-tsc.out "entry+return, predicate, quantize")
pfire=$(pick "profile firing cost" live-icount.out 's/^  profile-4999 .*: [0-9]* firings, \([0-9]*\) guest instructions per firing$/\1/p')
tsc_runs=$(pick "host TSC runs" live-tsc.out 's/.*(N=[0-9]*, \([0-9]*\) runs each.*/\1/p')
# bench/firing_bench.sh: guest instructions per firing, host ns beside
firing() {	# clause name
	pick "firing $1" firing.out "s/^firing $1 instructions \([0-9]*\)\$/\1/p"
}
firing_interp() {	# clause name: the interpreter's (MACHTRACE_NOJIT=1)
	pick "firing $1 interpreter" firing.out "s/^firing $1 interpreter instructions \([0-9]*\)\$/\1/p"
}
host_ns() {	# clause name
	pick "host $1" firing.out "s/^host $1 ns \([0-9.]*\)\$/\1/p"
}
host_jit_ns() {	# clause name: the local target's compiled code
	pick "host $1 compiled" firing.out "s/^host $1 compiled \(ns \)*\([0-9.a-z]*\)\$/\2/p"
}
# bench/bpftrace_bench.sh: bpftrace's ns per firing on the host's Linux,
# "-" for a clause it does not measure or when bpftrace does not work here
bpftrace_ns() {	# clause name
	local v
	v=$(sed -n "s/^bpftrace $1 ns \([0-9.]*\)\$/\1/p" "$DIR/firing.out" 2>/dev/null | head -n 1)
	printf '%s' "${v:--}"
}
bpftrace_why=$(sed -n 's/^bpftrace unavailable: //p' "$DIR/firing.out" 2>/dev/null | head -n 1)
firing_row() {	# clause name, what the clause is
	printf '| %s (`%s`) | %s | %s | %s | %s | %s |\n' "$2" "$1" "$(firing "$1")" \
		"$(firing_interp "$1")" "$(host_ns "$1")" "$(host_jit_ns "$1")" "$(bpftrace_ns "$1")"
}
firing_rows=$(
	firing_row count '`@ = count()`, general path'
	firing_row false-predicate '`/arg0 == 0xdeadbeef/ { @ = count(); }`, false'
	firing_row execname-predicate '`/execname == "machload"/ { @ = count(); }`'
	firing_row key-execname '`@[execname] = count()`'
	firing_row key-probefunc '`@[probefunc] = count()`'
	firing_row trace '`trace(arg0)`'
	firing_row printf '`printf("%d %d\n", arg0, arg1)`'
	firing_row latency-pair 'entry `self->ts = timestamp`, return `quantize(timestamp - self->ts)`, per firing'
	printf '| %s (`%s`) | %s | %s | %s | %s | %s |\n' '`@ = count()` on the trampoline'"'"'s increment' \
		fast-count "$(firing fast-count)" "-" "-" "-" "-"
)
# bench/provider_bench.sh: per firing of Mach provider clauses, beside the
# same logic with casts
prov() {	# variant name, field after which the figure comes
	pick "provider $1 $2" provider.out "s/^provider $1\( .*\)* $2 \([0-9.-]*\)\( .*\)*\$/\2/p"
}
prov_row() {	# variant, the clause, the cast variant ('' = none)
	printf '| %s (`%s`) | %s | %s | %s |\n' "$2" "$1" "$(prov "$1" instructions)" \
		"$([ -n "$3" ] && prov "$3" instructions || echo -)" "$(prov "$1" firings-per-op)"
}
provider_rows=$(
	prov_row ipc-count '`ipc:::send { @ = count(); }`' ''
	prov_row ipc-msg-name '`ipc:::send { @[args[0]->msg_name] = count(); }`' ipc-msg-name-cast
	prov_row ipc-msg-id '`ipc:::send { @[args[0]->msg_id] = count(); }`' ipc-msg-id-cast
	prov_row oncpu-fname '`sched:::on-cpu { @[curpsinfo->pr_fname] = count(); }`' oncpu-fname-cast
	prov_row lwp-create-count '`proc:::lwp-create { @ = count(); }`' ''
	prov_row fault-fname '`vm:::fault { @[args[2]->pr_fname] = count(); }`' fault-fname-cast
)
prov_rt=$(prov ipc-msg-id per-op)
prov_rt_ratio=$(prov ipc-msg-id ratio)
prov_stock=$(pick "provider stock rt" provider.out 's/^provider stock rt instructions-per-op \([0-9]*\)$/\1/p')
rt_stock=$(pick "stock round trip" firing.out 's/^round trip stock instructions \([0-9]*\) .*/\1/p')
rt_bench=$(pick "entry+return round trip" firing.out \
	's/^round trip entry+return+predicate+thread-local+quantize instructions \([0-9]*\) ratio \([0-9.]*\)$/\1 (x\2)/p')
rt_bench_interp=$(pick "entry+return round trip, interpreter" firing.out \
	's/^round trip entry+return+predicate+thread-local+quantize-interpreter instructions \([0-9]*\) ratio \([0-9.]*\)$/\1 (x\2)/p')
rt_record=$(pick "record's round trip" firing.out \
	's/^round trip record instructions \([0-9]*\) ratio \([0-9.]*\)$/\1 instructions (x\2)/p')
rt_top=$(pick "top's round trip" firing.out \
	's/^round trip top instructions \([0-9]*\) ratio \([0-9.]*\)$/\1 instructions (x\2)/p')
# SMP=1 bench/firing_bench.sh: the same on sid's SMP kernel, 1 CPU and 2
smp_why=$(sed -n 's/^smp unavailable: //p' "$DIR/smp.out" 2>/dev/null | head -n 1)
smp() {	# what, row's start, column (cpus1 | cpus2)
	pick "smp $1 $3" smp.out "s/^smp $2 .*$3 \([0-9.]*\)\( .*\)*\$/\1/p"
}
smp_row() {	# clause name, what the clause is
	local a b
	a=$(smp "$1" "firing $1" cpus1) b=$(smp "$1" "firing $1" cpus2)
	printf '| %s (`%s`) | %s | %s | %s |\n' "$2" "$1" "$a" "$b" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN { if (a + 0 == a && b + 0 == b) printf "%+d", b - a; else print "MISSING" }')"
}
if [ -n "$smp_why" ]; then
	smp_text="Not measured by this run: ${smp_why}."
else
	smp_text=$(
		echo "| clause (bench name) | 1 CPU | 2 CPUs | 2 CPUs minus 1 |"
		echo "|---|---|---|---|"
		smp_row count '`@ = count()`, general path'
		smp_row latency-pair 'entry `self->ts = timestamp`, return `quantize(timestamp - self->ts)`, per firing'
		printf '| %s | %s | %s | - |\n' 'stock round trip, guest instructions' \
			"$(smp stock 'stock round trip instructions' cpus1)" "$(smp stock 'stock round trip instructions' cpus2)"
		r='round trip entry+return+predicate+thread-local+quantize ratio'
		printf '| %s | x%s | x%s | - |\n' 'round trip with the entry+return, predicate, thread-local, quantize program, ratio to stock' \
			"$(smp ratio "$r" cpus1)" "$(smp ratio "$r" cpus2)"
	)
fi
ns=() ratios=()
for c in a b c d; do
	ns+=("$(probe_ns $c)")
	ratios+=("$(probe_ratio $c)")
done
msgname=$(probe_ns e)
lltostr=$(probe_ns f)
lookup=$(awk -v a="$msgname" -v b="$lltostr" 'BEGIN { if (a + 0 && b + 0) printf "%.0f", a - b; else print "MISSING" }')
rmin=$(printf '%s\n' "${ratios[@]}" | sort -n | head -n 1)
rmax=$(printf '%s\n' "${ratios[@]}" | sort -n | tail -n 1)
cores=$(nproc 2>/dev/null || echo "?")
qemu=$(qemu-system-x86_64 --version 2>/dev/null | sed -n '1s/.*version \([^ ]*\).*/\1/p')

out=$(cat <<EOF
# Figures

Written by \`make bench\` (bench/figures.sh) on $DATE.
The figures below are that run's measurements: run \`make bench\` again
rather than editing this file.  README.md and docs/*.md point here
instead of quoting numbers.

Machine: ${cores} cores (shared with other work), QEMU ${qemu:-?} with TCG.
Identical runs timed by the host TSC vary with the machine's other load,
which is why the live figures are taken with \`-icount\` (the guest clock
counts instructions, so a run repeats exactly); the host-TSC figures are
the best of ${tsc_runs} interleaved runs.

| what | figure | measured by |
|---|---|---|
| boot to the workload's first line, shim vs GRUB ISO of the same kernel (median of ${boot_runs}) | ${boot_shim} s vs ${boot_grub} s (${boot_ratio}x) | \`bench-boot\` (bench/boot-bench.sh) |
| fbt probes in the kernel's catalog | ${fbt_e} entry + ${fbt_r} return | \`bench-tools\` (bench/tools-bench.sh) |
| IPC round trip with the runtime in the kernel, no fbt probe (\`-icount\`) | x${idle} | \`bench-live\` (bench/live_bench.sh) |
| IPC round trip with \`fbt::mach_msg_trap:entry { @ = count(); }\` (\`-icount\`) | x${count} (x${nofast} without the count() fast path) | \`bench-live\` |
| the same, host TSC | x${count_tsc} | \`bench-live\` |
| IPC round trip with entry+return probes, predicate, thread-local, quantize (\`-icount\`) | x${entret} (host TSC: x${entret_tsc}) | \`bench-live\` |
| IPC round trip (rt=2000) with \`machtrace record --events sched,ipc,proc,trap,vm\` (\`-icount\`) | ${rt_record} | \`bench-firing\` (bench/firing_bench.sh) |
| IPC round trip (rt=2000) with \`machtrace top\`'s program (\`-icount\`) | ${rt_top} | \`bench-firing\` |
| one profile-4999 firing: the local APIC timer's interrupt, the blob's handler, a predicate and count() (\`-icount\`) | ${pfire} guest instructions | \`bench-live\` |
| runtime, ns per firing: false predicate / trace(arg0) / count() by key / quantize | ${ns[0]} / ${ns[1]} / ${ns[2]} / ${ns[3]} ns (${rmin}x to ${rmax}x an empty call) | \`bench-probe\` (bench/probe_bench.c) |
| runtime, ns per firing: count() keyed by \`mach_msgname(id)\` / by \`lltostr(id)\` (the same string key without the msgids lookup) | ${msgname} / ${lltostr} ns (the lookup adds ${lookup} ns) | \`bench-probe\` |
| attaching to a running VM (\`machtrace --vm\`): session start to BEGIN / a whole \`BEGIN { exit(0); }\` session (median of ${vm_reps}) | ${vm_begin} s / ${vm_whole} s | \`bench-vm\` (bench/vm_bench.sh) |
| \`machtrace -l\`, the full kernel catalog (median of 5) | ${list_ms} ms | \`bench-tools\` |
| \`scripts/fetch-kernel.sh\` giving up on an unreachable mirror | ${fetch_ms} ms | \`bench-tools\` |

## Cost per probe firing

Guest instructions per firing of each clause on \`fbt::mach_msg_trap\`
(\`bench-firing\`, bench/firing_bench.sh: machload's IPC round trips under
\`-icount\`, traced minus stock, two entry firings per round trip; the
latency pair's four firings are its entry and return, twice): compiled
probes (jit/, the engine in use), the interpreter's (\`MACHTRACE_NOJIT=1\`),
and the ns per firing for the same clause on the host (local target,
\`bench/probe_bench --firing\`; BEGIN stands for the entry, END for the
return): the interpreter's, and the local target's compiled code's.
Beside them, bpftrace's JIT-compiled BPF for the same logic on this
host's Linux kernel (\`bench/bpftrace_bench.sh\`: its programs on the
getppid system call's tracepoints, the loop's ns per call minus with an
empty clause; \`comm\` for execname, \`probe\` for probefunc, \`@ts[tid]\`
and \`hist()\` for the pair; trace and printf not measured)${bpftrace_why:+: not
measured here, ${bpftrace_why}}.  Stock round trip: ${rt_stock} instructions; with the
entry+return, predicate, thread-local and quantize program of
\`bench-live\`: ${rt_bench} (the interpreter: ${rt_bench_interp}).

| clause (bench name) | guest instructions per firing | interpreter | host ns per firing | host ns, compiled | bpftrace ns (host Linux) |
|---|---|---|---|---|---|
${firing_rows}

The count() figure relies on a fast path: a probe whose only clause is an
unpredicated, keyless \`@ = count()\` becomes a single increment in its
trampoline (docs/live-kernel.md, "Sites").

## Cost per firing on two CPUs

Guest instructions per firing on \`fbt::mach_msg_trap\` on sid's SMP GNU
Mach (\`bench-smp\`, \`SMP=1 bench/firing_bench.sh\`), with \`--cpus 1\`
and \`--cpus 2\` in one run.  The workload is machload's \`cpus=N\` word
in both: two workers, each making N round trips on a port of its own;
on one CPU they share it, on two one runs on each CPU at once (the
second in GNU Mach's slave processor set), so both columns do the same
work.  Under \`-icount\` QEMU runs every vCPU in one thread, round robin,
and its clock (the guest's TSC) counts the instructions of all CPUs:
machload's rdtsc interval is the work of both CPUs rather than the time
one of them took, and traced minus stock over the firings is what a
firing costs wherever it ran.  The round-trip ratio is thus a ratio of
work, not of latency.  On two CPUs a firing of compiled code goes through the
dispatch stub choosing the CPU's own copy of the code.

${smp_text}

## Cost per firing of the Mach providers

Guest instructions per firing of clauses on the Mach providers
(\`bench-provider\`, bench/provider_bench.sh: machload's phase that fires
the probe under \`-icount\`, traced minus stock, over the firings of the
phase's operations), beside the same logic written with casts on the
probe's native arguments (\`((struct ipc_kmsg *)arg0)->ikm_header.msgh_id\`,
\`mach_msgname()\` of it, \`mach_execname()\` of the thread).  A reference
to one member of a translated argument evaluates that member's translator
expression alone.  The IPC round trip with the \`args[0]->msg_id\` clause:
${prov_rt} instructions (x${prov_rt_ratio} of stock ${prov_stock}).

| clause (bench name) | guest instructions per firing | the same logic with casts | firings per operation |
|---|---|---|---|
${provider_rows}

## Not measured by \`make bench\`

Recorded by hand from the closing notes of earlier issues; no benchmark
re-measures them, so they can be stale.

- Kernel probe sites: of 1513 enabled fbt entries, 1475 take a 5-byte jmp
  and the rest an int3; of 2410 rets, 1717 take a jmp
  (tests/e2e/live_allfbt.sh enables them all but does not count them).
- Enabling image size added by the msgids table (only for programs
  calling \`mach_msgname()\`/\`mach_msgsubsystem()\`): 336 ids x 16 bytes +
  3815 bytes of names = 9192 bytes (a \`trace(strlen("x"))\` image: 360
  bytes); tests/unit/runtime/test_msgid.c (\`msgtab_only_when_used\`)
  checks that the table is there only when used.
- Where the entry+return cost goes (TCG cycles per firing): the runtime's
  interpreter ~1500-4500, a jmp probe's entry path ~200, an int3 ~900.
EOF
)
case $out in
*MISSING*) exit 1 ;;
esac
printf '%s\n' "$out"
