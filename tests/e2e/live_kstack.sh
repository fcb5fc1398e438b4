#!/usr/bin/env bash
# Kernel stacks name every frame and end at the stack's base.  User faults
# enter vm_fault from assembly (locore.S's trap path, symbols without a
# size): those frames print as symbol+offset from the symbol table, never
# as a raw gnumach`0x... address.  Kernel threads start in Thread_continue,
# whose call of the continuation never returns: no stack shows that call's
# return address, which names the next routine at its offset 0 (no return
# address of a caller is a routine's first byte).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-kstack

prog='fbt::vm_fault:entry { @f[stack()] = count(); }
fbt::thread_block:entry { @b[stack()] = count(); }
END { printf("[f]\n"); printa(@f); printf("[b]\n"); printa(@b); }'
live_run kstack "rt=100 pingpong=10 pages=64 threads=2 tasks=1" "$prog" -q
rc=$?
out=$TMP/kstack.out
# the frames of section NAME; with 1, the callers only (not each stack's
# first frame, the probed function)
frames() {
	awk -v s="[$1]" -v callers="${2:-0}" '/^\[/ { in_s = ($0 == s); next }
		!in_s { next } /`/ { if (!callers || !first) print $1; first = 0; next }
		{ first = 1 }' "$out"
}
nf=$(frames f | grep -c .); nb=$(frames b | grep -c .)
raw=$(frames f; frames b) ; raw=$(printf '%s\n' "$raw" | grep -c '^gnumach`0x')
# a size-0 symbol of the kernel's text named in a fault stack
asm=$(readelf -sW "$KERNEL" | awk '$3 == 0 && ($4 == "NOTYPE" || $4 == "FUNC") { print $8 }' | sort -u)
named=$(frames f | sed -n 's/^gnumach`\([^+]*\)+0x[0-9a-f]*$/\1/p' | sort -u | comm -12 - <(printf '%s\n' "$asm") | head -n 1)
if [ $rc = 0 ] && [ "$nf" -gt 0 ] && [ "$raw" = 0 ] && [ -n "$named" ]; then
	pass live-kstack-asm-symbols
else
	fail live-kstack-asm-symbols "exit $rc, $nf fault frames, $raw raw addresses, assembly symbol '${named}': $(grep -m3 '^ *gnumach`0x' "$out" | tr -s ' \n' ' ') $(head -c 200 "$TMP/kstack.err")"
fi
bare=$(frames b 1 | grep -v '+0x' | sort -u)
if [ $rc = 0 ] && [ "$nb" -gt 0 ] && [ -z "$bare" ]; then
	pass live-kstack-ends-at-base
else
	fail live-kstack-ends-at-base "exit $rc, $nb frames; return addresses at a routine's first byte: $(echo $bare)"
fi
