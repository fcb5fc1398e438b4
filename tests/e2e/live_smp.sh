#!/usr/bin/env bash
# Tracing sid's SMP GNU Mach (issue 28).  On one CPU: the text check after
# an exit() ends the session compares the text (the SMP image's _start is
# in no segment) and finds it restored.  A missing image is a SKIP.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-smp

SID=$BUILD/kernels/sid-smp/gnumach-dbg
if [ ! -f "$SID" ]; then
	echo "SKIP live-smp: missing $SID (scripts/setup.sh)"
	exit 0
fi

# restored: test name, stderr of a MACHTRACE_TEXTCHECK session
restored() {
	if grep -q "kernel text identical to the image" "$2" &&
	   grep -q "kernel IDT identical to before tracing" "$2"; then
		pass "$1"
	else
		fail "$1" "$(grep -E 'kernel (text|IDT)' "$2" | tr '\n' ' ') $(head -c 200 "$2")"
	fi
}

MACHTRACE_TEXTCHECK=1 live_run one "rt=2000000" \
	'fbt::mach_msg_trap:entry { n++; } fbt::mach_msg_trap:return /n >= 2000/ { exit(0); }' \
	-q --kernel "$SID"
restored live-smp-1cpu-text-restored "$TMP/one.err"

