#!/bin/sh
# -S on the local target says which probes run compiled code (jit/,
# targets/local/jit.c) and shows it, or why a probe is interpreted, as on
# the GNU Mach target; with MACHTRACE_NOJIT set none is compiled (the
# first run unsets it: the D tests also run with it set).
prog='tick-1ms { @n = count(); } tick-10ms { printa(@n); exit(0); }'
env -u MACHTRACE_NOJIT "$MT" -S -q -n "$prog" >"$T/s.out" 2>&1 || { cat "$T/s.out"; exit 1; }
grep -q '^Probe profile:::tick-1ms: compiled, [0-9]* bytes$' "$T/s.out" ||
	{ echo "no compiled line"; cat "$T/s.out"; exit 1; }
grep -q 'call .*! helper' "$T/s.out" || { echo "no disassembly"; exit 1; }
grep -q '^Probe profile:::tick-10ms: interpreted (' "$T/s.out" ||
	{ echo "no interpreted line"; cat "$T/s.out"; exit 1; }
MACHTRACE_NOJIT=1 "$MT" -S -q -n "$prog" >"$T/n.out" 2>&1 || { cat "$T/n.out"; exit 1; }
! grep -q ': compiled, ' "$T/n.out" || { echo "compiled with MACHTRACE_NOJIT"; exit 1; }
exit 0
