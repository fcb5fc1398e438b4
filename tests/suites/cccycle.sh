#!/usr/bin/env bash
# The compiler's call graph between its files, from their objects: file A
# calls file B when A's object has an undefined symbol B's object defines.
# Prints the files that call one another in a cycle (the strongly
# connected components of more than one file) and checks the ground file,
# compiler/ground.c (arena, diagnostics), which every pass uses: it must
# call no other compiler file, so that it can never join a cycle.  The
# largest cycle may not grow past MAXCYCLE files: a ratchet, lowered as
# files leave the cycle (16 files before ground.c; compiler/README.md).
#
#   tests/suites/cccycle.sh [-v]	-v: also print every file's callees
#
# ROOT (default: this tree) and BUILD (default: ROOT/build) as layers.sh.
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1
BUILD=${BUILD:-build}
O=$BUILD/obj/compiler
GROUND=ground
MAXCYCLE=5
verbose=${1:-}

ls "$O"/*.o > /dev/null 2>&1 || { echo "FAIL cc-cycle: $O/*.o not built"; exit 0; }
[ -f "$O/$GROUND.o" ] || { echo "FAIL cc-ground: $O/$GROUND.o not built"; exit 0; }

# "file D symbol" for each defined symbol, "file U symbol" for each use
for o in "$O"/*.o; do
	f=$(basename "$o" .o)
	nm -g "$o" | awk -v f="$f" '
		$1 == "U" { print f, "U", $2; next }
		NF == 3 && $2 ~ /^[TDBRCV]$/ { print f, "D", $3 }'
done | awk -v verbose="$verbose" -v ground="$GROUND" -v maxc="$MAXCYCLE" '
	$2 == "D" { def[$3] = $1; files[$1] = 1; next }
	{ use[++n] = $1 " " $3; files[$1] = 1 }
	END {
		for (i = 1; i <= n; i++) {
			split(use[i], u, " ")
			if ((u[2] in def) && def[u[2]] != u[1]) {
				e[u[1], def[u[2]]] = 1
				if (u[1] == ground)
					bad = bad " " def[u[2]] ":" u[2]
			}
		}
		nf = 0
		for (f in files) name[++nf] = f
		# sort the names (insertion sort: a few dozen files)
		for (i = 2; i <= nf; i++)
			for (j = i; j > 1 && name[j-1] > name[j]; j--) {
				t = name[j]; name[j] = name[j-1]; name[j-1] = t
			}
		for (i = 1; i <= nf; i++)
			for (j = 1; j <= nf; j++)
				r[i, j] = (i == j) || ((name[i], name[j]) in e)
		for (k = 1; k <= nf; k++)	# transitive closure
			for (i = 1; i <= nf; i++)
				if (r[i, k])
					for (j = 1; j <= nf; j++)
						if (r[k, j]) r[i, j] = 1
		if (verbose)
			for (i = 1; i <= nf; i++) {
				s = ""
				for (j = 1; j <= nf; j++)
					if ((name[i], name[j]) in e) s = s " " name[j]
				printf "%s ->%s\n", name[i], s
			}
		for (i = 1; i <= nf; i++) {
			if (done[i]) continue
			s = name[i]; m = 1
			for (j = i + 1; j <= nf; j++)
				if (r[i, j] && r[j, i]) { s = s " " name[j]; m++; done[j] = 1 }
			if (m > 1) printf "cycle of %d files: %s\n", m, s
			if (m > big) big = m
		}
		if (big <= maxc)
			printf "PASS cc-cycle: largest cycle %d files (limit %d)\n", big, maxc
		else
			printf "FAIL cc-cycle: largest cycle %d files (limit %d)\n", big, maxc
		if (bad == "")
			print "PASS cc-ground: " ground ".c calls no other compiler file"
		else
			print "FAIL cc-ground: " ground ".c calls" bad
	}'
