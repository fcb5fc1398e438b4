#!/usr/bin/env bash
# Names others chose reach the terminal escaped (issue 22 item 11): a boot
# module whose task GNU Mach names "ESC[2J ESC[31mevil" (the module's
# path, as a task renaming itself would) in top's task table, a rules
# file whose message holds escapes in top's and health's reasons, and a
# probe specifier with one in machtrace's error: no ESC byte is printed,
# each shows as \033.
set -u
. "$(dirname "$0")/vm_lib.sh"
need_live hostile-names
EVIL=$TMP/$(printf '\033[2J\033[31mevil')
cp "$BUILD/guest/machload" "$EVIL" || { fail hostile-names "cannot copy machload"; exit 1; }
if ! "$MACHTRACE" vm start --name "$VM" --memory 256 \
     --module "$EVIL \${host-port} \${device-port} serve=200 \$(task-create) \$(task-resume)" \
     >"$TMP/start.out" 2>"$TMP/start.err"; then
	fail hostile-names "vm start: $(cat "$TMP/start.err")"
	exit 1
fi
printf 'cpu_pct >= 0 -> \033]0;pwned\007 always\n' >"$TMP/r.rules"
timeout 120 "$MACHTRACE" top --vm "$VM" -b -n 2 --rules "$TMP/r.rules" >"$TMP/top.out" 2>"$TMP/top.err"
rc=$?
esc=$(printf '\033')
if [ $rc = 0 ] && ! grep -q "$esc" "$TMP/top.out" &&
   grep -qF ' \033[2J\033[31mevil ' "$TMP/top.out" &&
   grep -qF '(line 1: \033]0;pwned\a always (cpu_pct = ' "$TMP/top.out"; then
	pass top-names-escaped
else
	fail top-names-escaped "exit $rc: $(grep -a "evil\|always" "$TMP/top.out" | head -n 3 | cat -v) $(head -c 200 "$TMP/top.err")"
fi
timeout 120 "$MACHTRACE" health --vm "$VM" -d 2 --rules "$TMP/r.rules" >"$TMP/h.out" 2>"$TMP/h.err"
rc=$?
if [ $rc = 0 ] && ! grep -q "$esc" "$TMP/h.out" &&
   grep -qF 'last: line 1: \033]0;pwned\a always (cpu_pct = ' "$TMP/h.out"; then
	pass health-rules-escaped
else
	fail health-rules-escaped "exit $rc: $(grep -a "always" "$TMP/h.out" | cat -v) $(head -c 200 "$TMP/h.err")"
fi
"$MACHTRACE" -n "$(printf 'BEGIN\033[2J')" >/dev/null 2>"$TMP/e.err"
rc=$?
if [ $rc != 0 ] && ! grep -q "$esc" "$TMP/e.err" && grep -qF 'BEGIN\033[2J' "$TMP/e.err"; then
	pass error-escaped
else
	fail error-escaped "exit $rc: $(cat -v "$TMP/e.err")"
fi
