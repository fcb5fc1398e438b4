#!/bin/sh
# -v reports dtrace's stability attributes: the minimum over the probe
# descriptions (a provider's attributes lowered by each component given)
# and over the statements (curthread's data semantics are Private,
# htonl() is Evolving); with -e, each description's attributes follow.
# The name is cropped at "{", so it keeps the blank before it, as in dtrace.
TAB=$(printf '\t')
cat >"$T/want" <<W

Stability attributes for description tick-1s :

${TAB}Minimum Probe Description Attributes
${TAB}${TAB}Identifier Names: Evolving
${TAB}${TAB}Data Semantics:   Evolving
${TAB}${TAB}Dependency Class: Common

${TAB}Minimum Statement Attributes
${TAB}${TAB}Identifier Names: Evolving
${TAB}${TAB}Data Semantics:   Private
${TAB}${TAB}Dependency Class: Common

:::tick-1s

${TAB}Probe Description Attributes
${TAB}${TAB}Identifier Names: Evolving
${TAB}${TAB}Data Semantics:   Evolving
${TAB}${TAB}Dependency Class: Common

${TAB}Argument Attributes
${TAB}${TAB}Identifier Names: Evolving
${TAB}${TAB}Data Semantics:   Evolving
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
exit 0
