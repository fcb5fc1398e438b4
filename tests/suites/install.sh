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

# The run-time files an installed machtrace finds from bin/../lib/machtrace
# (targets/mach/qemu/paths.c), the man pages, the bash completion.
missing=
for f in lib/machtrace/live/blob.bin lib/machtrace/boot/shim.elf lib/machtrace/guest/machload \
	 lib/machtrace/fetch-kernel.sh share/man/man1/machtrace.1 share/man/man1/machtrace-toolkit.1 \
	 share/bash-completion/completions/machtrace; do
	[ -s "$T/usr/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then
	echo "PASS make-install-layout"
else
	echo "FAIL make-install-layout: missing under $T/usr:$missing"
fi

# --version: machtrace's own version, the one debian/changelog packages and
# the man pages name
v=$(build/bin/machtrace --version 2>&1)
deb=$(sed -n '1s/^machtrace (\([^)-]*\).*/\1/p' debian/changelog 2>/dev/null)
th=$(sed -n 's/^\.TH .*"machtrace \([^"]*\)".*/\1/p' docs/man/*.1 | sort -u | tr '\n' ' ')
if [ "$v" = "machtrace $(cat VERSION)" ] && [ "$deb" = "$(cat VERSION)" ] && [ "$th" = "$(cat VERSION) " ]; then
	echo "PASS version"
else
	echo "FAIL version: --version says '$v', VERSION '$(cat VERSION)', debian/changelog '$deb', man pages '$th'"
fi

# The man pages render without a groff warning (-ww); machtrace(1) has
# every option and subcommand machtrace -h lists, and -h points to it.
if ! command -v groff >/dev/null; then
	echo "SKIP man-render: no groff (scripts/packages.txt; run make setup)"
	echo "SKIP man-options: no groff"
else
	bad=
	for p in docs/man/*.1; do
		w=$(LC_ALL=C groff -ww -z -man "$p" 2>&1; LC_ALL=C MANWIDTH=80 man --warnings=w -l "$p" 2>&1 >/dev/null)
		[ -z "$w" ] || bad="$bad $p: $w"
	done
	if [ -z "$bad" ] && [ -n "$(ls docs/man/*.1)" ]; then
		echo "PASS man-render"
	else
		echo "FAIL man-render:$bad"
	fi
	text=$(LC_ALL=C MANWIDTH=200 man -l docs/man/machtrace.1 2>/dev/null)
	help=$(build/bin/machtrace -h 2>&1)
	miss=
	for o in $(printf '%s\n' "$help" | sed -n 's/^\t\(-[a-zA-Z]\)  .*/\1/p'); do
		printf '%s\n' "$text" | grep -qE -- "^ +$o( |,|$)" || miss="$miss $o"
	done
	for o in $(printf '%s\n' "$help" | grep -oE -- '--[a-z]+' | sort -u); do
		printf '%s\n' "$text" | grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" || miss="$miss $o"
	done
	for s in $(printf '%s\n' "$help" | sed -n 's/^\tmachtrace \([a-z]*\) .*/\1/p'); do
		printf '%s\n' "$text" | grep -q "machtrace $s" || miss="$miss $s"
	done
	if [ -z "$miss" ] && printf '%s\n' "$help" | grep -q 'machtrace(1)'; then
		echo "PASS man-options"
	else
		echo "FAIL man-options: in machtrace -h, not in machtrace(1):$miss"
	fi
fi

# The completion offers the subcommands, the options and (from machtrace
# -l, with a kernel) the providers
if [ -f /usr/share/bash-completion/bash_completion ]; then
	c=$(bash -c '. /usr/share/bash-completion/bash_completion
		. "$1"
		comp() { COMP_LINE=$*; COMP_POINT=${#COMP_LINE}; COMP_WORDS=("$@")
			COMP_CWORD=$(($# - 1)); COMPREPLY=(); _machtrace; echo "${COMPREPLY[*]}"; }
		comp machtrace b; comp machtrace --ver; comp machtrace vm s
		[ -f build/kernel/gnumach-dbg ] && PATH=$2:$PATH comp machtrace -P i' \
		_ "$T/usr/share/bash-completion/completions/machtrace" "$PWD/build/bin" 2>&1)
	want=$(printf 'boot baseline\n--version\nstart stop')
	[ -f build/kernel/gnumach-dbg ] && want=$(printf '%s\nipc' "$want")
	if [ "$c" = "$want" ]; then
		echo "PASS bash-completion"
	else
		echo "FAIL bash-completion: $c"
	fi
else
	echo "SKIP bash-completion: no /usr/share/bash-completion/bash_completion"
fi
