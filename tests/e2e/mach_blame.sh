#!/usr/bin/env bash
# A compile error in a kernel program names what is wrong in it, not the
# kernel D library's identifiers it uses: the program is compiled with the
# library (curpsinfo, curlwpsinfo, msginfo_t), and that error is the one
# reported.  Compile only (-e): no QEMU.
set -u
. "$(dirname "$0")/mach_lib.sh"
need_kernel mach-blame

blame() {	# name, expected stderr (fixed string), program
	"$MACHTRACE" -xerrtags -e -n "$3" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	if [ $rc != 1 ]; then
		fail "$1" "exit $rc, expected 1: $(tail -n 1 "$TMP/err")"
	elif ! grep -qF -- "$2" "$TMP/err"; then
		fail "$1" "stderr lacks '$2': $(tail -n 1 "$TMP/err")"
	else
		pass "$1"
	fi
}

blame mach-blame-lwpsinfo-member \
	"[D_TYPE_MEMBER] line 1: pr_lwpidd is not a member of lwpsinfo_t" \
	'fbt::mach_msg_trap:entry { trace(curlwpsinfo->pr_lwpidd); }'
blame mach-blame-msginfo-member \
	"[D_TYPE_MEMBER] line 1: msg_nam is not a member of msginfo_t" \
	'ipc:::send { trace(args[0]->msg_nam); }'
blame mach-blame-undefined-key \
	"[D_IDENT_UNDEF] line 1: failed to resolve mytv: Unknown variable name" \
	'fbt::mach_msg_trap:entry { @c[curpsinfo->pr_pid, mytv] = count(); }'
# a local program still learns that curpsinfo is the kernel's
blame mach-blame-local \
	"[D_IDENT_UNDEF] line 1: failed to resolve curpsinfo: Unknown variable name" \
	'BEGIN { trace(curpsinfo->pr_pid); }'

# top -s FILE: an error in the user's file names that file and its line
printf '/* user */\n\nfbt::vm_fault:entry\n{ trace(nosuch); }\n' >"$TMP/user.d"
timeout 120 "$MACHTRACE" top -b -n 1 -s "$TMP/user.d" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc != 1 ]; then
	fail mach-blame-top-file "exit $rc, expected 1: $(tail -n 1 "$TMP/err")"
elif ! grep -qF "failed to compile script $TMP/user.d: line 4: failed to resolve nosuch" "$TMP/err"; then
	fail mach-blame-top-file "stderr: $(tail -n 1 "$TMP/err")"
else
	pass mach-blame-top-file
fi
