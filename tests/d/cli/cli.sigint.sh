#!/bin/sh
# ^C (SIGINT) ends tracing and prints the aggregations after one blank
# line when the output is a file or a pipe (issue 21 item 14: the newline
# that ends the terminal's ^C echo was a second one there).  Not in
# testing mode, which drops that newline.
env -u _DTRACE_TESTING "$MT" -q -n 'profile-97 { @ = count(); }' >"$T/out" 2>"$T/err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid; rc=$?
[ $rc -eq 0 ] || { echo "exit $rc: $(cat "$T/err")"; exit 1; }
head -n 1 "$T/out" | grep -q '^$' && sed -n 2p "$T/out" | grep -q '^ *[0-9][0-9]*$' ||
	{ echo "not one blank line, then the count: $(od -c "$T/out" | head -n 2)"; exit 1; }
exit 0
