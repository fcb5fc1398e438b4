#!/usr/bin/env bash
# Run a suite with the interpreter forced (MACHTRACE_NOJIT=1), its result
# lines named "nojit:" so that they count apart from the compiled
# engine's run of the same suite (tests/run-all.sh).
#   tests/nojit.sh COMMAND [ARG...]
set -o pipefail
MACHTRACE_NOJIT=1 "$@" | sed -u 's/^\(PASS\|FAIL\|SKIP\) /\1 nojit:/'
