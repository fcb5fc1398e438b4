/*
 * A scratchsize pragma after the clauses holds for all of them: they are
 * cooked after the whole program is parsed, as in dtrace, where the
 * pragma sets the option while parsing.
 * @@stderr-match: line 8: alloca(65) size larger than scratchsize 64$ */
BEGIN
{
	a = alloca(65);
}

BEGIN
{
	exit(0);
}

#pragma D option scratchsize=64
