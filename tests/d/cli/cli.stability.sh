#!/bin/sh
# -v reports dtrace's stability attributes: the minimum over the probe
# descriptions (a provider's attributes lowered by each component given;
# Unstable when no provider is named, as dt_probe_info()) and over the
# statements (curthread's data semantics are Private, htonl() is
# Evolving); with -e, each description's attributes follow.
# The name is cropped at "{", so it keeps the blank before it, as in dtrace.
TAB=$(printf '\t')
cat >"$T/want" <<W

Stability attributes for description tick-1s :

${TAB}Minimum Probe Description Attributes
${TAB}${TAB}Identifier Names: Unstable
${TAB}${TAB}Data Semantics:   Unstable
${TAB}${TAB}Dependency Class: Common

${TAB}Minimum Statement Attributes
${TAB}${TAB}Identifier Names: Evolving
${TAB}${TAB}Data Semantics:   Private
${TAB}${TAB}Dependency Class: Common

:::tick-1s

${TAB}Probe Description Attributes
${TAB}${TAB}Identifier Names: Unstable
${TAB}${TAB}Data Semantics:   Unstable
${TAB}${TAB}Dependency Class: Common

${TAB}Argument Attributes
${TAB}${TAB}Identifier Names: Unstable
${TAB}${TAB}Data Semantics:   Unstable
${TAB}${TAB}Dependency Class: Common

${TAB}Argument Types
${TAB}${TAB}None

W
"$MT" -ve -n 'tick-1s { trace(htonl(1)); trace(curthread); }' >"$T/got" 2>"$T/err" ||
	{ echo "-ve failed: $(head -3 "$T/err")"; exit 1; }
cmp -s "$T/want" "$T/got" || { echo "-ve report differs:"; diff "$T/want" "$T/got" | head -8; exit 1; }
"$MT" -v -q -n 'BEGIN { exit(0); }' >"$T/got" 2>&1 || { echo "-v failed"; exit 1; }
grep -q "^${TAB}${TAB}Data Semantics:   Stable" "$T/got" ||
	{ echo "-v BEGIN: no Stable data semantics"; exit 1; }
# desc: the three lines of a description's Minimum Probe Description
# Attributes, as "Names/Data/Class"
desc() {	# description [options]
	d=$1; shift
	"$MT" "$@" -ve -n "$d { trace(1); }" 2>"$T/err" | awk -F': *' '
		/Minimum Probe Description/ { f = 1; next }
		f && /Identifier Names/ { n = $2 } f && /Data Semantics/ { d = $2 }
		f && /Dependency Class/ { print n "/" d "/" $2; exit }'
}
check() {	# description want [options]
	got=$(desc "$1" ${3:-})
	[ "$got" = "$2" ] || { echo "-v $1: $got, not $2: $(head -2 "$T/err")"; exit 1; }
}
check dtrace:::BEGIN Stable/Stable/Common
check BEGIN Unstable/Unstable/Common
check profile:::tick-1s Evolving/Evolving/Common
check 'profile:::tick-*' Unstable/Unstable/Common
# the GNU Mach providers, when the kernel's probes can be read
if "$MT" --mach -l -n sched:::on-cpu >/dev/null 2>&1; then
	check fbt::mach_msg_trap:entry Private/Private/ISA --mach
	check fbt:::entry Evolving/Evolving/Common --mach
	check fbt::mach_msg_trap: Unstable/Unstable/Common --mach
	check sched:::on-cpu Evolving/Evolving/ISA --mach
	check mach_trap::mach_msg_trap:entry Private/Private/ISA --mach
fi
exit 0
