#!/usr/bin/env bash
# -xoformat=json on the live kernel: an aggregation keyed by execname and
# a stack() record, run once as text and once as JSON.  The document
# parses; both runs count at least the N 48-byte sends the workload makes
# (machload's own round trips) under the same keys; the stack() of the
# first vm_fault of machload has the same frames (function names) in both,
# and each JSON frame's module, name and offset are its symbol's parts.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-json
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP live-json: python3 is not installed"
	exit 0
fi

N=500
prog='fbt::mach_msg_trap:entry /execname == "machload" && arg1 == 1 && arg2 == 48/ { @[execname] = count(); }
fbt::vm_fault:entry /execname == "machload" && !seen/ { seen = 1; stack(); }'
work="rt=$N pingpong=0 pages=4 threads=0 tasks=0"
live_run jtext "$work" "$prog" -q
live_run jjson "$work" "$prog" -q -x oformat=json
rc=$?
why=$(python3 - "$TMP/jtext.out" "$TMP/jjson.out" "$N" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
try:
    doc = json.load(open(sys.argv[2]))["dtrace"]
except ValueError as e:
    print("invalid JSON: %s" % e); sys.exit()
n = int(sys.argv[3])
# text: the stack's frames (indented "mod`func+0x..."), then "KEY COUNT" rows
tframes = [l.strip() for l in text.split("\n") if re.match(r"^ +\S+`", l)]
trows = dict(l.split() for l in text.split("\n")
             if re.match(r"^ *[a-z]\S* +[0-9]+ *$", l))
stacks = [e["stack-frames"] for p in doc["probes"] for e in p.get("output", [])
          if "stack-frames" in e]
aggs = doc["aggregations"]
jrows = {r["keys"][0]["value"]: r["count"] for a in aggs
         for r in a["aggregation-data"]}
fn = lambda s: s.split("+")[0]
if len(stacks) != 1 or not stacks[0]:
    print("JSON stack records: %r" % stacks); sys.exit()
js = stacks[0]
for f in js:
    parts = f["module"] + "`" + f["name"] + ("+" + f["offset"] if "offset" in f else "")
    if parts != f["symbol"]:
        print("frame parts %r" % f); sys.exit()
if [fn(f["symbol"]) for f in js] != [fn(s) for s in tframes]:
    print("frames differ: json %r text %r" % ([f["symbol"] for f in js], tframes))
    sys.exit()
if set(jrows) != set(trows) or jrows.get("machload", 0) < n or \
   int(trows.get("machload", 0)) < n:
    print("rows differ or short: json %r text %r (want >= %d)" % (jrows, trows, n))
PY
)
if [ $rc = 0 ] && [ -z "$why" ]; then
	pass live-json-agg-stack
else
	fail live-json-agg-stack "exit $rc: $why $(head -c 300 "$TMP/jjson.err")"
fi
