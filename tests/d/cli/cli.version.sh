#!/bin/sh
# -V reports the D version as dtrace-utils does.
[ "$("$MT" -V)" = "dtrace: Oracle D 2.0" ] || { echo "bad -V"; exit 1; }
