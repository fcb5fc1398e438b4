#!/usr/bin/env bash
# Another local user against the persistent VMs (issue 22 items 1-4), as
# root with two throwaway users: a victim (state root /tmp/machtrace-UID,
# no XDG_RUNTIME_DIR, as under sudo or cron) and an attacker who makes
# that root first.  The victim's vm list must not delete what info names,
# --vm must not use the attacker's fake VM or RAM file, a RAM file the
# attacker put at the VM's old name must not stop vm start, and vm list
# during vm start must not remove the starting VM.
set -u
. "$(dirname "$0")/live_lib.sh"
TESTS="vm-hostile-delete vm-hostile-fake-vm vm-hostile-ram-name vm-hostile-list-during-start"
if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null; then
	for t in $TESTS; do echo "SKIP $t: needs root, useradd and setpriv (throwaway users)"; done
	exit 0
fi
need_live vm-hostile-delete
VIC=mtv$$ ATK=mta$$
useradd --system --no-create-home --shell /usr/sbin/nologin "$VIC" &&
	useradd --system --no-create-home --shell /usr/sbin/nologin "$ATK" ||
	{ fail vm-hostile-delete "useradd failed"; userdel "$VIC" 2>/dev/null; exit 1; }
VUID=$(id -u "$VIC") AUID=$(id -u "$ATK")
ROOT=/tmp/machtrace-$VUID
PUB=$(mktemp -d /tmp/mt-hostile.XXXXXX) && chmod 1777 "$PUB"	# as /tmp; the victim writes its trace there
as() {	# user command...: run as a throwaway user, environment reset
	local u=$1
	shift
	setpriv --reuid "$u" --regid "$(id -g "$u")" --clear-groups --reset-env -- "$@"
}
cleanup() {
	for n in default r; do as "$VIC" "$MACHTRACE" vm stop "$n" >/dev/null 2>&1; done
	[ -n "${FAKE:-}" ] && kill "$FAKE" 2>/dev/null
	rm -rf "$ROOT" "$PUB" "$TMP" /dev/shm/machtrace-vm-"$VUID"-*
	userdel "$VIC"
	userdel "$ATK"
}
trap cleanup EXIT

# 1. the attacker's root, a VM x whose info names the victim's directory
#    through a link as its --disk directory
mkdir "$PUB/victim" && echo precious >"$PUB/victim/keep" && chown -R "$VIC" "$PUB/victim"
mkdir "$PUB/atk" && chmod 1777 "$PUB/atk"
as "$ATK" sh -c 'mkdir -p "$1/vm/x" && ln -s "$2" "$3/machtrace-disk-1" &&
	printf "memory=256\nresv_size=0x2000000\ndisk_dir=%s/machtrace-disk-1/.\n" "$3" >"$1/vm/x/info"' \
	- "$ROOT" "$PUB/victim" "$PUB/atk"
as "$VIC" "$MACHTRACE" vm list >"$TMP/list" 2>"$TMP/list.err"; rc=$?
if [ $rc != 0 ] && [ -f "$PUB/victim/keep" ] &&
   grep -q "machtrace: vm list: $ROOT is owned by uid $AUID, not by you (uid $VUID): .*refusing it" "$TMP/list.err"; then
	pass vm-hostile-delete
else
	fail vm-hostile-delete "exit $rc, victim's file $([ -f "$PUB/victim/keep" ] && echo kept || echo DELETED): $(cat "$TMP/list.err")"
fi

# 2. a fake VM y: its qemu.pid a process of the attacker's naming the RAM
#    file, the attacker's RAM file and kernel
shm=/dev/shm/machtrace-vm-$VUID-y
as "$ATK" sh -c 'truncate -s 256M "$1" && chmod 666 "$1" && cp "$3" "$4/kernel" &&
	mkdir -p "$2/vm/y" && chmod 777 "$2/vm/y" && printf "kernel=%s/kernel\nshm=%s\nmemory=256\nresv_pa=0x1000000\nresv_size=0x2000000\n" \
	"$4" "$1" >"$2/vm/y/info"' - "$shm" "$ROOT" "$KERNEL" "$PUB/atk"
# one process naming the RAM file ($! is that process: no function around it)
setpriv --reuid "$ATK" --regid "$(id -g "$ATK")" --clear-groups -- tail -n 0 -f /dev/null "$shm" \
	>/dev/null 2>&1 &
FAKE=$!
echo "$FAKE" | as "$ATK" sh -c 'cat >"$1/vm/y/qemu.pid"' - "$ROOT"
trace=
command -v strace >/dev/null && trace="strace -f -qq -e trace=open,openat -o $PUB/fake.trace"
as "$VIC" $trace timeout 30 "$MACHTRACE" --vm y -n 'BEGIN { exit(0); }' >"$TMP/fake" 2>"$TMP/fake.err"; rc=$?
opened=$(grep -oE "\"($PUB/atk/kernel|$shm)\"" "$PUB/fake.trace" 2>/dev/null | sort -u | tr '\n' ' ')
if [ $rc != 0 ] && [ -z "$opened" ] && grep -q "$ROOT is owned by uid $AUID, not by you" "$TMP/fake.err"; then
	pass vm-hostile-fake-vm
else
	fail vm-hostile-fake-vm "exit $rc, opened the attacker's ${opened:-(no strace)}: $(head -c 300 "$TMP/fake.err")"
fi
kill "$FAKE" 2>/dev/null
FAKE=
rm -rf "$ROOT" "$shm"

# 3. the attacker's file at the victim's RAM file's old name
old=/dev/shm/machtrace-vm-$VUID-default
as "$ATK" sh -c 'echo mine >"$1"' - "$old"
as "$VIC" "$MACHTRACE" vm start >"$TMP/start" 2>&1; rc=$?
ram=$(sed -n 's/^shm=//p' "$ROOT/vm/default/info" 2>/dev/null)
if [ $rc = 0 ] && [ -n "$ram" ] && [ "$ram" != "$old" ] && [ "$(stat -c %u "$ram")" = "$VUID" ] &&
   [ "$(cat "$old")" = mine ] && as "$VIC" "$MACHTRACE" vm stop >/dev/null 2>&1 && [ ! -e "$ram" ]; then
	pass vm-hostile-ram-name
else
	fail vm-hostile-ram-name "exit $rc, RAM file '$ram': $(cat "$TMP/start")"
fi

# 4. vm list, again and again, while vm start runs (same user)
bad=0
for i in 1 2 3; do
	as "$VIC" "$MACHTRACE" vm start --name r >"$TMP/r.out" 2>&1 &
	st=$!
	while kill -0 "$st" 2>/dev/null; do as "$VIC" "$MACHTRACE" vm list >/dev/null 2>&1; done
	wait "$st" || { bad=$((bad + 1)); cp "$TMP/r.out" "$TMP/r.bad"; }
	as "$VIC" "$MACHTRACE" vm stop r >/dev/null 2>&1
done
if [ $bad = 0 ]; then
	pass vm-hostile-list-during-start
else
	fail vm-hostile-list-during-start "$bad of 3 starts failed: $(cat "$TMP/r.bad")"
fi
