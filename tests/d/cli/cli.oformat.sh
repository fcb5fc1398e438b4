#!/bin/sh
# -xoformat: text is the default and leaves the output alone; json makes
# the whole output one valid document (also with -o, with runtime errors,
# system() output and bytes that are not UTF-8); any other value is
# refused with dtrace's message.
json_ok() {	# file what
	python3 -m json.tool "$1" >/dev/null 2>&1 ||
		{ echo "$2: invalid JSON: $(head -c 300 "$1")"; exit 1; }
}
"$MT" -x oformat=xml -n 'BEGIN { exit(0); }' >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || { echo "oformat=xml accepted"; exit 1; }
grep -q '^dtrace: failed to set -x oformat: Invalid value for specified option$' \
	"$T/err" || { echo "oformat=xml: $(cat "$T/err")"; exit 1; }
[ -s "$T/out" ] && { echo "oformat=xml: output on stdout"; exit 1; }

prog='BEGIN { @c[execname] = count(); trace(3); printf("%d|", 4); exit(0); }'
"$MT" -n "$prog" >"$T/def" 2>/dev/null
"$MT" -x oformat=text -n "$prog" >"$T/text" 2>/dev/null
cmp -s "$T/def" "$T/text" || { echo "oformat=text changed the output"; exit 1; }

rm -f "$T/doc"
"$MT" -x oformat=json -o "$T/doc" -n "$prog" >"$T/out" 2>/dev/null ||
	{ echo "-o: failed"; exit 1; }
[ -s "$T/out" ] && { echo "-o: output on stdout"; exit 1; }
json_ok "$T/doc" "-o"
python3 - "$T/doc" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))["dtrace"]
out = d["probes"][0]["output"]
assert out[0] == {"value": 3}, out
assert out[1]["message"] == "4|" and out[1]["args"] == [{"value": 4}], out
agg = d["aggregations"][0]
assert agg["aggregation-name"] == "c", agg
assert agg["aggregation-data"][0]["count"] == 1, agg
assert d["exit-status"] == 0, d
PY

# an error record, system() output, a string that is not UTF-8
"$MT" -w -q -x oformat=json -n 'BEGIN { trace("a\377b\001"); system("echo sys-out");
	} BEGIN { trace(*(int *)8); } BEGIN { exit(2); }' >"$T/doc2" 2>"$T/err2"
[ $? -eq 2 ] || { echo "exit(2): exit $?"; exit 1; }
json_ok "$T/doc2" "error/system/bytes"
python3 - "$T/doc2" "$T/err2" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))["dtrace"]
err = open(sys.argv[2]).read()
out = d["probes"][0]["output"]
assert out[0] == {"value": "a\u00ffb\u0001"}, out
assert out[1]["system"] == "echo sys-out" and out[1]["output"] == "sys-out\n", out
e = [p for p in d["probes"] if p["name"] == "ERROR"]
assert len(e) == 1 and e[0]["module"] == "INTERNAL", d["probes"]
assert e[0]["fault"] == "invalid address" and e[0]["address"] == 8, e
assert "dtrace: " + e[0]["msg"] + "\n" in err, (e, err)
assert d["exit-status"] == 2, d
PY

# -v's stability report goes to stderr: stdout stays one document
"$MT" -v -x oformat=json -n 'BEGIN { exit(0); }' >"$T/doc3" 2>"$T/err3"
json_ok "$T/doc3" "-v"
grep -q "Stability attributes" "$T/err3" || { echo "-v: no report"; exit 1; }
exit 0
