#!/bin/sh
# -l lists matching probes under dtrace's header.
"$MT" -l -n 'dtrace:::BEGIN' >"$T/out" || { echo "exit $?"; exit 1; }
printf '%5s %10s %17s %33s %s\n' ID PROVIDER MODULE FUNCTION NAME \
	1 dtrace '' '' BEGIN > "$T/want"
cmp -s "$T/out" "$T/want" || { echo "got: $(cat "$T/out")"; exit 1; }
