#!/usr/bin/env bash
# `make install` puts machtrace and every toolkit script in PREFIX/bin,
# executable, each script with a usage header (USAGE:) that -h prints for
# the shell ones.  Installs into a scratch DESTDIR.
set -u
cd "$(dirname "$0")/../.."
T=$(mktemp -d /tmp/mt-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
make -s --no-print-directory install DESTDIR="$T" PREFIX=/usr >"$T/log" 2>&1 ||
	echo "FAIL make-install: exit status $?: $(tail -n 3 "$T/log" | tr '\n' ' ')"
bad=
for f in toolkit/*; do
	case $f in *.md) continue;; esac
	i=$T/usr/bin/$(basename "$f")
	if [ ! -x "$i" ] || ! grep -q "USAGE: $(basename "$f")" "$i"; then
		bad="$bad $(basename "$f")"
	fi
done
if [ -x "$T/usr/bin/machtrace" ] && [ -z "$bad" ] && [ -n "$(ls toolkit)" ]; then
	echo "PASS make-install-toolkit"
else
	echo "FAIL make-install-toolkit: not installed or no usage header:$bad"
fi
if "$T/usr/bin/hotkernel" -h | grep -q "^USAGE: hotkernel"; then
	echo "PASS toolkit-usage-help"
else
	echo "FAIL toolkit-usage-help: $("$T/usr/bin/hotkernel" -h 2>&1 | head -n 3)"
fi
