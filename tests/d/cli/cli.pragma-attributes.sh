#!/bin/sh
# #pragma D attributes, as dtrace's dt_pragma_attributes: "provider NAME
# PART" sets that part of a provider's attributes (-v's probe description
# and argument attributes), an identifier's lower the statements using it,
# and "names" alone is names/Standard/Common (dtrace_str2attr).  #pragma D
# depends_on provider accepts every provider machtrace has.
# attrs FILE TITLE: the three lines after TITLE in -ve's report, as N/D/C
attrs() {
	"$MT" -ve -s "$1" 2>"$T/err" | awk -F': *' -v t="$2" '
		index($0, t) { f = 1; next }
		f && /Identifier Names/ { n = $2 } f && /Data Semantics/ { d = $2 }
		f && /Dependency Class/ { print n "/" d "/" $2; exit }'
}
check() {	# file title want
	got=$(attrs "$1" "$2")
	[ "$got" = "$3" ] || { echo "$2: '$got', not $3: $(head -2 "$T/err")"; exit 1; }
}
cat >"$T/prov.d" <<'D'
#pragma D attributes Unstable/Unstable/Common provider dtrace name
#pragma D attributes Evolving/Evolving/ISA provider dtrace args
dtrace:::BEGIN { exit(0); }
D
check "$T/prov.d" "Minimum Probe Description" Unstable/Unstable/Common
check "$T/prov.d" "Argument Attributes" Evolving/Evolving/ISA
cat >"$T/ident.d" <<'D'
int x;
#pragma D attributes Evolving/Unstable/ISA x
inline int y = 2;
#pragma D attributes stable y
dtrace:::BEGIN { x = y; trace(x); exit(0); }
D
check "$T/ident.d" "Minimum Statement" Evolving/Unstable/ISA
cat >"$T/dep.d" <<'D'
#pragma D depends_on provider fbt
#pragma D depends_on provider mach_trap
dtrace:::BEGIN { exit(0); }
D
"$MT" -e -s "$T/dep.d" 2>"$T/err" ||
	{ echo "depends_on provider fbt: $(head -2 "$T/err")"; exit 1; }
exit 0
