#!/usr/bin/env python3
"""Every D test of the project run twice, as text and as -xoformat=json:
the JSON must parse and hold the values the text shows, in the same order.

The comparison, per test:
  * both runs exit alike; a run that exits 0 prints a JSON document, and
    any stdout of a failing run (err.* tests) is valid JSON too;
  * the text's stdout as tokens (whitespace-separated; a byte dump read
    back into one "HEX:..." token) minus its decoration (the FUNCTION:NAME
    heading and probe prefixes, distribution headings and bars), joined
    without the whitespace, must equal the JSON's data values joined the
    same way, in document order: trace() values, printf()
    messages, stack frames, sym() values, print() text, then each printa()
    and the exit printout: every row's keys followed by its value (count,
    sum, ..., or each bucket's value and count; a formatted printa()'s
    row message instead);
  * each ERROR or DROP pseudo-probe's "msg" is a "dtrace: MSG" line of
    stderr, and there are as many ERROR records as error lines;
  * "exit-status", when present, is the exit status.
Prints PASS/FAIL per test and a summary line; exits 1 on any failure.
Usage: json-check.py MACHTRACE DIR
"""
import json
import os
import re
import subprocess
import sys

# Tests whose two runs cannot show the same values, and why.
EXCEPTIONS = {
}

DUMP_HEAD = re.compile(r'^\s+0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f'
                       r'  0123456789abcdef$')
DUMP_ROW = re.compile(r'^\s+[0-9a-f]+:((?: [0-9a-f]{2})+)')
DIST_HEAD = re.compile(r'^\s*(value|key)\s+-+ Distribution -+ count\s*$')
BAR = re.compile(r'^[|@]+$')


def text_tokens(out, prefixes):
    toks = []
    hexbuf = None
    for line in out.split('\n'):
        if DUMP_HEAD.match(line):
            if hexbuf is not None:
                toks.append('HEX:' + hexbuf)
            hexbuf = ''
            continue
        m = DUMP_ROW.match(line) if hexbuf is not None else None
        if m:
            hexbuf += m.group(1).replace(' ', '')
            continue
        if hexbuf is not None:
            toks.append('HEX:' + hexbuf)
            hexbuf = None
        if DIST_HEAD.match(line) or line.strip() == 'FUNCTION:NAME':
            continue
        for t in line.split():
            if BAR.match(t) or t in prefixes:
                continue
            toks.append(t)
    if hexbuf is not None:
        toks.append('HEX:' + hexbuf)
    return toks


def words(v):
    if isinstance(v, bool):
        return [str(v)]
    if isinstance(v, int):
        return [str(v)]
    return str(v).split()


def agg_tokens(agg):
    toks = []
    for row in agg.get('aggregation-data', []):
        if 'message' in row:    # a formatted printa() shows only this,
            # read as the text is (a %@ of a quantize prints its header
            # and bars, which the text's tokens leave out)
            toks += text_tokens(row['message'], set())
            continue
        for k in row.get('keys', []):
            toks += elem_tokens(k)
        toks += value_tokens(row)
        for a in row.get('aggregations', []):
            toks += value_tokens(a)
    return toks


def value_tokens(obj):
    toks = []
    for f in ('count', 'sum', 'min', 'max', 'avg', 'stddev'):
        if f in obj:
            toks += words(obj[f])
    for b in obj.get('buckets', []):
        toks += words(b['value']) + words(b['count'])
    return toks


def elem_tokens(e):
    """The tokens the text shows for one "output" (or key) element."""
    toks = []
    if 'aggregation-data' in e:
        return agg_tokens(e)
    for k in ('stack-frames', 'ustack-frames'):
        for f in e.get(k, []):
            toks += words(f['symbol'])
    for k in ('value', 'message', 'sym', 'mod', 'usym', 'umod', 'uaddr',
              'print'):
        if k in e:
            toks += words(e[k])
    for k in ('bytes', 'tracemem'):
        if k in e:
            toks.append('HEX:' + e[k])
    if 'system' in e:
        toks += words(e['output'])
    return toks


def json_tokens(doc):
    d = doc['dtrace']
    toks, prefixes, internal = [], set(), []
    for p in d['probes']:
        if p.get('module') == 'INTERNAL':
            internal.append(p)
            continue
        prefixes.add('%s:%s' % (p['function'], p['name']))
        for e in p['output']:
            toks += elem_tokens(e)
    for a in d.get('aggregations', []):
        toks += agg_tokens(a)
    return toks, prefixes, internal


def run(mt, opts, path, extra):
    env = dict(os.environ, _DTRACE_TESTING='t', LANGUAGE='C', LC_ALL='C')
    try:
        p = subprocess.run([mt] + extra + opts + ['-s', path], env=env,
                           stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=30)
    except subprocess.TimeoutExpired:
        return None
    return (p.returncode, p.stdout.decode('utf-8', 'surrogateescape'),
            p.stderr.decode('utf-8', 'surrogateescape'))


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def check(mt, path):
    src = open(path, encoding='utf-8', errors='replace').read()
    m = re.search(r'@@runtest-opts: *([^*\n]*)', src)
    opts = m.group(1).split() if m else []
    base = os.path.basename(path)
    if base.startswith('err.D_'):
        opts = ['-xerrtags'] + opts
    t = run(mt, opts, path, [])
    j = run(mt, opts, path, ['-x', 'oformat=json'])
    if t is None or j is None:
        return 'timed out'
    if t[0] != j[0]:
        return 'exit %d as JSON, %d as text: %s' % (j[0], t[0], j[2][:200])
    if not j[1]:
        if j[0] == 0:
            return 'no JSON document on stdout'
        return None
    try:
        doc = json.loads(j[1])
    except ValueError as e:
        return 'invalid JSON: %s' % e
    jt, prefixes, internal = json_tokens(doc)
    errlines = set(re.sub(r'^dtrace: \[[A-Z_]+\] ', 'dtrace: ', l)
                   for l in j[2].split('\n'))
    for p in internal:
        if 'dtrace: ' + p['msg'] not in errlines:
            return '%s record not on stderr: %s' % (p['name'], p['msg'])
    nerr = sum(1 for p in internal if p['name'] == 'ERROR')
    nerrl = sum(1 for l in j[2].split('\n')
                if l.startswith('dtrace: error on enabled probe ID') and
                'DIF offset' in l)
    if nerr != nerrl:
        return '%d ERROR records, %d error lines' % (nerr, nerrl)
    es = doc['dtrace'].get('exit-status')
    if es is not None and j[0] not in (es, 1):
        return 'exit-status %s, exit %d' % (es, j[0])
    if base in EXCEPTIONS:
        return None
    # Characters, not tokens: printf() pieces join up ("a|" "b|" shows
    # as "a|b|") and quiet trace() values print without a space.
    tt = ''.join(text_tokens(t[1], prefixes))
    jt = ''.join(jt)
    if tt != jt:
        i = first_diff(tt, jt)
        return ('values differ at character %d: text %r, json %r' %
                (i, tt[max(0, i - 20):i + 20], jt[max(0, i - 20):i + 20]))
    return None


def main():
    mt, top = sys.argv[1], sys.argv[2]
    tests = []
    for d, _, files in os.walk(top):
        for f in files:
            if re.match(r'(tst|err)\..*\.d$', f):
                tests.append(os.path.join(d, f))
    failed = compared = 0
    for path in sorted(tests):
        why = check(mt, path)
        base = os.path.basename(path)
        if why:
            failed += 1
            print('FAIL json %s: %s' % (path, why))
        else:
            if base not in EXCEPTIONS:
                compared += 1
            print('PASS json %s' % path)
    print('json: %d tests, %d compared value by value, %d excepted, '
          '%d failed' % (len(tests), compared,
                         sum(1 for t in tests
                             if os.path.basename(t) in EXCEPTIONS), failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
