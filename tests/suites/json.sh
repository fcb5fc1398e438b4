#!/bin/sh
# -xoformat=json against the text output: every D test of the project run
# both ways; the JSON parses and holds the values the text shows, in order
# (tests/suites/json-check.py says exactly how they are compared).
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP json: python3 is not installed"
	exit 0
fi
exec python3 tests/suites/json-check.py "$BUILD/bin/machtrace" tests/d
