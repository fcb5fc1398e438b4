#!/bin/sh
# -i ID names the probe with that id in -l's catalog (the session's
# mt_session_probe_by_id): -l -i lists it, -i with a clause runs it, an id
# no catalog has and a malformed one fail with dtrace's messages.
id=$("$MT" -l -n dtrace:::BEGIN 2>/dev/null | awk '$2 == "dtrace" && $NF == "BEGIN" { print $1; exit }')
[ -n "$id" ] || { echo "no dtrace:::BEGIN in -l"; exit 1; }
"$MT" -l -i "$id" 2>/dev/null | grep -q "dtrace.*BEGIN" ||
	{ echo "-l -i $id does not list dtrace:::BEGIN"; exit 1; }
out=$("$MT" -q -i "$id { printf(\"hit\"); exit(0); }" 2>&1)
[ "$out" = hit ] || { echo "-i $id with a clause printed '$out'"; exit 1; }
"$MT" -i 4000000000 > "$T/out" 2>&1 && { echo "an unknown id succeeded"; exit 1; }
grep -q "probe ID 4000000000 does not exist" "$T/out" ||
	{ echo "unknown id: $(cat "$T/out")"; exit 1; }
"$MT" -i 12x > "$T/out" 2>&1 && { echo "a malformed id succeeded"; exit 1; }
grep -q "invalid probe identifier 12x" "$T/out" ||
	{ echo "malformed id: $(cat "$T/out")"; exit 1; }
exit 0
