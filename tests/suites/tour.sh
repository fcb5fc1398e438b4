#!/usr/bin/env bash
# The README's Tour names every folder with code: a folder git tracks a
# source file in (C, assembly, D, shell, Python, JavaScript, CSS, or an
# executable script) has its name followed by "/" in the Tour, and so does
# its top-level folder.  tests/ and include/ are named as wholes (their
# subfolders are the tests' areas and the contracts).  README (default:
# README.md) may name another file, e.g. the README before a change.
set -u
cd "$(dirname "$0")/../.." || exit 1
if ! git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	echo "SKIP tour: not a git checkout"
	exit 0
fi
tour=$(awk '/^## Tour/ { on = 1; next } /^## / { on = 0 } on' "${README:-README.md}")
if [ -z "$tour" ]; then
	echo "FAIL tour: README.md has no ## Tour section"
	exit 0
fi
bad=
for d in $(git ls-files -s | awk '$1 ~ /^100755/ { print $4; next }
		$4 ~ /\.(c|h|S|d|sh|py|js|css)$/ { print $4 }' |
		grep / | sed -E 's|/[^/]*$||; s#^(tests|include)/.*#\1#' |
		grep -v '^\.' | sort -u); do
	for name in "${d%%/*}" "${d##*/}"; do
		if ! grep -qF "$name/" <<< "$tour"; then
			bad+=" $d/"
			break
		fi
	done
done
if [ -z "$bad" ]; then
	echo "PASS tour: every folder with code is in the README's Tour"
else
	echo "FAIL tour: folders the README's Tour does not name:$bad"
fi
