#!/usr/bin/env bash
# Profile samples taken while another probe runs are tracer time
# (runtime/x86_64/sample.c): arg0 names machtrace`tracer, and stack() is
# machtrace`tracer, then the kernel instruction the probe ran for with its
# real callers: after a function's first instruction (a probe's site, or
# a kernel sample in a prologue) comes the call site that called it (the
# instruction before that return address is a call to that function), not
# its caller's caller.  No sample shows the blob's own
# code or trampolines.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-proftracer

prog='ipc:::send { @n[args[1]->pr_fname, args[0]->msg_name] = count(); }
profile-997 /arg0/ { @f[func(arg0)] = count(); @s[stack(3)] = count(); }
END { printf("[f]\n"); printa(@f); printf("[s]\n"); printa(@s); }'
live_run proftracer "rt=20000 pingpong=0 pages=0 threads=0 tasks=0" "$prog" -q
rc=$?
out=$TMP/proftracer.out
# section f's rows "KEY N"; section s's stacks as "N frame frame ..."
frows() {
	awk '/^\[/ { in_f = ($0 == "[f]"); next } in_f && NF == 2 { print $1, $2 }' "$out"
}
stacks() {
	awk '/^\[/ { in_s = ($0 == "[s]"); next } !in_s { next }
		/`/ { st = st " " $1; next } NF == 1 && st != "" { print $1 st; st = "" }' "$out"
}
ft=$(frows | awk '$1 == "machtrace`tracer" { print $2 }')
st=$(stacks | awk '$2 == "machtrace`tracer" { s += $1 } END { print s + 0 }')
if [ $rc = 0 ] && [ "${ft:-0}" -gt 0 ] && [ "$ft" = "$st" ]; then
	pass live-proftracer-tracer-time
else
	fail live-proftracer-tracer-time "exit $rc, func(arg0) machtrace\`tracer ${ft:-none}, stacks led by it $st: $(head -c 300 "$TMP/proftracer.err")"
fi
# each stack "[tracer] F G+0xOFF" with F at its first instruction (a
# probe's site, or a sample in a prologue) where F builds a frame (push
# %rbp first; a frame-pointer walk cannot see through frameless ones):
# the instruction ending at G+OFF calls F (indirect calls, through a
# table, are not checked); at least one such stack is tracer time
insn_before() {	# address, length: the instruction of that length ending there
	objdump -d --start-address=$(($1 - $2)) --stop-address=$1 "$KERNEL" | grep -E '^ *[0-9a-f]+:' | head -n 1
}
checked=0 traced=0 bad=
while read -r n f g rest; do
	tr=0
	[ "$f" = 'machtrace`tracer' ] && { tr=1 f=$g g=${rest%% *}; }
	case $f in *+*|machtrace*|"") continue ;; esac
	f=${f#gnumach\`}
	fa=$(nm "$KERNEL" | awk -v s="$f" '$3 == s { print $1; exit }')
	[ -n "$fa" ] || { bad="$bad $f(unknown)"; continue; }
	# frameless, or a trap entry the CPU enters (t_page_fault): no
	# caller to check
	objdump -d --start-address=0x$fa --stop-address=$((0x$fa + 1)) "$KERNEL" |
		grep -q 'push *%rbp' || continue
	[ -n "$g" ] || { bad="$bad $f(no caller)"; continue; }
	gs=${g#gnumach\`}
	base=$(nm "$KERNEL" | awk -v s="${gs%+*}" '$3 == s { print $1; exit }')
	[ -n "$base" ] || { bad="$bad $f<-$g(unknown)"; continue; }
	at=$(( 0x$base + ${gs#*+} ))
	if insn_before $at 5 | grep -q "call.*<$f>"; then
		checked=$((checked + 1)) traced=$((traced + tr))
	elif ! for k in 2 3 4 6 7; do insn_before $at $k; done | grep -q 'call *\*'; then
		bad="$bad $f<-$g"
	fi
done < <(stacks)
if [ $traced -gt 0 ] && [ -z "$bad" ]; then
	pass live-proftracer-real-callers
else
	fail live-proftracer-real-callers "$checked checked ($traced tracer time), not called from there:$bad"
fi
if ! stacks | grep -q 'machtrace`\(runtime\|trampoline\)'; then
	pass live-proftracer-no-machinery
else
	fail live-proftracer-no-machinery "$(stacks | grep -m3 'machtrace`\(runtime\|trampoline\)')"
fi
# the clock interrupt's fallback (no local APIC timer) charges samples
# taken while a probe runs the same way: machtrace`tracer, never the
# runtime's own code
MACHTRACE_NO_LAPIC=1 live_run proftracer-clock "rt=20000 pingpong=0 pages=0 threads=0 tasks=0" "$prog" -q
rc=$?
out=$TMP/proftracer-clock.out
ft=$(frows | awk '$1 == "machtrace`tracer" { print $2 }')
st=$(stacks | awk '$2 == "machtrace`tracer" { s += $1 } END { print s + 0 }')
if ! grep -q "local APIC timer is not used: MACHTRACE_NO_LAPIC" "$TMP/proftracer-clock.err"; then
	fail live-proftracer-clock "the clock fallback was not used: $(head -c 300 "$TMP/proftracer-clock.err")"
elif [ $rc = 0 ] && [ "${ft:-0}" -gt 0 ] && [ "$ft" = "$st" ] &&
     ! { frows; stacks; } | grep -q 'machtrace`\(runtime\|trampoline\)'; then
	pass live-proftracer-clock
else
	fail live-proftracer-clock "exit $rc, func(arg0) machtrace\`tracer ${ft:-none}, stacks led by it $st, machinery: $({ frows; stacks; } | grep -m2 'machtrace`\(runtime\|trampoline\)' | tr '\n' ' ')"
fi
