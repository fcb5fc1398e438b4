#!/usr/bin/env bash
# Bad input and bad guests: clear errors, the right exit codes, no QEMU
# and no guest RAM file left behind.
set -u
. "$(dirname "$0")/mach_lib.sh"
need_kernel mach-errors

expect() {	# name, exit code, stderr pattern, command...
	local name=$1 code=$2 pat=$3 rc pid
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	wait $pid
	rc=$?
	if [ "$rc" != "$code" ]; then
		fail "$name" "exit $rc, expected $code: $(tail -n 1 "$TMP/err")"
	elif ! grep -qE "$pat" "$TMP/err"; then
		fail "$name" "stderr lacks /$pat/: $(tail -n 1 "$TMP/err")"
	else
		pass "$name"
	fi
	no_leftovers "$name-no-leftovers" $pid
}

echo "not a kernel" >"$TMP/notelf"
objcopy --strip-all "$KERNEL" "$TMP/stripped"
expect mach-err-not-elf 2 "machtrace: .*notelf: not an ELF file" "$MACHTRACE" boot --kernel "$TMP/notelf"
expect mach-err-stripped 2 "machtrace: .*no symbol table" "$MACHTRACE" boot --kernel "$TMP/stripped"
expect mach-err-not-mach 2 "machtrace: .*not a GNU Mach kernel" "$MACHTRACE" boot --kernel "$BUILD/guest/machload"
expect mach-err-no-module 2 "machtrace: module /nonexistent/x: No such file" \
	"$MACHTRACE" boot --module '/nonexistent/x a b'
# a module line that starts no task (issue 21 item 3): refused before
# booting, with the boot script's syntax, by boot and by a session
expect mach-err-module-not-started 2 "no boot module would run: .*task-create.*task-resume" \
	"$MACHTRACE" boot --timeout 30 --module "$BUILD/guest/machload rt=5"
expect mach-err-module-not-started-trace 1 "could not enable tracing: no boot module would run" \
	"$MACHTRACE" --timeout 30 --module "$BUILD/guest/machload rt=5 \$(task-create)" \
	-n 'fbt::mach_msg_trap:entry { @ = count(); }'
# a guest that runs nothing more (issue 21 item 3): the module's task
# exits without rebooting, the kernel idles; without --timeout the
# session ends after 10 s of guest time (timeout(1) guards the old hang)
expect mach-err-no-progress 1 "no progress: the kernel only idled for 10 s" \
	timeout 60 "$MACHTRACE" --module "$BUILD/guest/machload \${host-port} \${device-port} rt=1 exit \$(task-create) \$(task-resume)" \
	-n 'fbt::mach_msg_trap:entry { @ = count(); }'
expect mach-err-panic 3 "machtrace: kernel panic: panic .*Cannot load user executable" \
	"$MACHTRACE" boot --timeout 30 --module "$TMP/notelf \$(task-create) \$(task-resume)"
expect mach-err-debugger 3 "machtrace: kernel stopped in the debugger: Debugger invoked" \
	"$MACHTRACE" boot --timeout 30 -- rt=10 panic
expect mach-err-timeout 4 "machtrace: time limit reached after 2.0 s" \
	"$MACHTRACE" boot --timeout 2 -- hang
expect mach-err-shim-reserve 2 "machtrace: the boot shim failed: shim: error: the reserved region overlaps the kernel" \
	"$MACHTRACE" boot --timeout 20 --reserve 0x1000000:0x100000
mkdir -p "$TMP/emptybuild/boot"
expect mach-err-no-kernel 2 "machtrace: no kernel at .*run scripts/setup.sh" \
	env MACHTRACE_BUILD="$TMP/emptybuild" "$MACHTRACE" boot
expect mach-err-no-qemu 2 "machtrace: cannot run qemu-system-x86_64: .*install qemu-system-x86" \
	env PATH=/nonexistent "$(realpath "$MACHTRACE")" boot --timeout 5
expect mach-err-list-not-mach 1 "not an ELF file" "$MACHTRACE" -l --kernel "$TMP/notelf" -n fbt:::entry

for sig in INT TERM; do
	"$MACHTRACE" boot --timeout 30 -- hang >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	for _ in $(seq 50); do grep -q "machload: hanging" "$TMP/out" && break; sleep 0.1; done
	kill -$sig $pid
	wait $pid
	rc=$?
	if [ $rc = 130 ] && grep -q "stopped by signal" "$TMP/err"; then
		pass mach-err-sig$sig
	else
		fail mach-err-sig$sig "exit $rc: $(tail -n 1 "$TMP/err")"
	fi
	no_leftovers mach-err-sig$sig-no-leftovers $pid
done
