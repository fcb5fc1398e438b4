#!/bin/sh
# Each subcommand (argv[1]) runs its own parser: an unknown option is its
# message, exit status 2; after "record" the words are the session's
# command line, never another subcommand.
for sc in export top health baseline; do
	"$MT" $sc --bogus-opt </dev/null 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] || { echo "$sc: exit $rc"; exit 1; }
	grep -q "^$sc: unrecognized option" "$T/err" || { echo "$sc: $(cat "$T/err")"; exit 1; }
done
"$MT" report --bogus-opt 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q '^machtrace report: unknown option' "$T/err" ||
	{ echo "report: exit $rc: $(cat "$T/err")"; exit 1; }
for sc in vm kernel msgdecode; do
	"$MT" $sc --bogus-opt </dev/null 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "^usage: machtrace $sc" "$T/err" ||
		{ echo "$sc: exit $rc: $(head -n 1 "$T/err")"; exit 1; }
done
"$MT" record report -n BEGIN 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q '^machtrace: record: -o DIR is required' "$T/err" ||
	{ echo "record report: exit $rc: $(head -n 1 "$T/err")"; exit 1; }
exit 0
