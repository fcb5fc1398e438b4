/*
 * mt_compile: the driver.  Sets up the compiler state (arena, types,
 * identifiers), runs the passes in the order of the list below, and hands
 * the finished tables over to a struct mt_prog.  Errors longjmp back here
 * (cc_error, ground.c).
 */
#include <stdlib.h>
#include <string.h>
#include "cc.h"


static void cc_free(struct cc *cc)
{
	cc_arena_free(cc);
	mt_hmap_free(&cc->types);
	mt_hmap_free(&cc->globals.map);
	mt_hmap_free(&cc->tls.map);
	mt_hmap_free(&cc->locals.map);
	mt_hmap_free(&cc->aggs.map);
	free(cc->rws);
	free(cc->dump);
	free(cc->clauses.v);
	free(cc->clause_info.v);
	free(cc->actions.v);
	free(cc->action_info.v);
	free(cc->recs.v);
	free(cc->rec_info.v);
	free(cc->aggs_v.v);
	free(cc->agg_info.v);
	free(cc->vars.v);
	free(cc->var_names.v);
	free(cc->spill_ids.v);
	free(cc->difos.v);
	free(cc->text_v.v);
	free(cc->ints.v);
	free(cc->strtab.v);
	free(cc->optsets.v);
	free(cc->pragattrs.v);
	free(cc->cpp_out);
}

/*
 * The passes, in order (as dtrace's dt_compile: the whole program is
 * parsed before any clause is cooked).  Declarations, inlines,
 * translators and `#pragma D option`s are applied as the parser reads
 * them, so every clause is cooked with all of them, also those after it
 * (`BEGIN { x = "a"; } int x;` is an assignment to an int, D_OP_INCOMPAT;
 * the last strsize or scratchsize pragma holds for every clause).  Errors
 * come in pass order: a syntax error anywhere, or a $N argument nothing
 * references, is reported before any clause's semantic error.
 *
 *   libs     (here)     the D libraries (in->libs, e.g. the kernel's
 *                       mach.d) are parsed first; their errors name them
 *   cpp      (cpp.c)    -C: each source through the C preprocessor
 *   parse    (parse.c)  every source; declarations applied as read
 *                       (decl.c, pragma.c); returns the list of clauses
 *   macros   (here)     every $N argument given was referenced
 *   clauses  (act.c)    per clause: sema (sema.c), actions and records
 *                       (act.c, printf.c), aggregations (agg.c), code
 *                       generation (cg.c) of each predicate and statement
 *   pragmas  (pragma.c) a #pragma D binding no identifier took is reported
 *   assemble (asm.c)    the tables into a struct mt_prog
 *
 * Sources are one program: a declaration in a later -s file applies to
 * the clauses of an earlier one.
 */
static const char *pass_cpp(struct cc *cc, int i)
{
	const struct mt_cc_src *s = &cc->in->srcs[i];
	if (!cc->in->cpp || s->is_pspec)
		return s->text;
	free(cc->cpp_out);
	cc->cpp_out = cpp_run(cc->in, s->text, s->name, cc->diag);
	if (!cc->cpp_out) {
		cc->diag->src = i;
		longjmp(cc->jb, 1);
	}
	return cc->cpp_out;
}

static struct clause *pass_parse(struct cc *cc)
{
	struct clause *head = NULL, **tail = &head;
	for (int i = 0; i < cc->in->nlibs; i++) {
		cc->srcidx = -1;
		cc->lib = cc->in->libs[i].name;
		lex_init(cc, cc->in->libs[i].text, 1);
		*tail = parse_source(cc);
		while (*tail)
			tail = &(*tail)->next;
	}
	cc->lib = NULL;
	cc->in_prog = 1;
	for (int i = 0; i < cc->in->nsrcs; i++) {
		cc->srcidx = i;
		const char *text = pass_cpp(cc, i);
		lex_init(cc, text, 1);
		*tail = parse_source(cc);
		dump_source(cc, text);
		while (*tail)
			tail = &(*tail)->next;
	}
	return head;
}

static void pass_clauses(struct cc *cc, const struct clause *c)
{
	for (; c; c = c->next) {
		cc->srcidx = c->src;
		act_clause(cc, c);
	}
}

static void pass_macros(struct cc *cc)
{
	const struct mt_cc_input *in = cc->in;
	for (int i = 1; i < in->nmacro_args && i < 64; i++)
		if (!(cc->macro_used & (1ULL << i)) && in->macro_args[i] &&
		    !(in->opts && (in->opts->defaultargs || in->opts->argref)))
			cc_error(cc, 0, D_MACRO_UNUSED,
				 "extraneous argument '%s' ($%d is not referenced)",
				 in->macro_args[i], i);
}

struct mt_prog *mt_compile(const struct mt_cc_input *in, struct mt_diag *diag)
{
	struct cc *cc = calloc(1, sizeof(*cc));
	struct mt_prog *volatile prog = calloc(1, sizeof(*prog));
	if (!cc || !prog)
		abort();
	memset(diag, 0, sizeof(*diag));
	diag->src = -1;
	cc->diag = diag;
	cc->in = in;
	/* string storage: dtrace's strsize characters plus the NUL */
	/* statements are Stable/Stable/Common unless they use less */
	cc->stmt_attr[0] = cc->stmt_attr[1] = 6;
	cc->stmt_attr[2] = 5;
	cc->strsize = mt_opts_strsize(in->opts ? in->opts->strsize : 0);
	if (setjmp(cc->jb)) {
		/* error: partial program tables belong to cc or prog */
		as_finish(cc, prog);
		mt_prog_free(prog);
		cc_free(cc);
		free(cc);
		return NULL;
	}
	/*
	 * dtrace-utils' alloca() limit is 256 bytes unless -xscratchsize:
	 * the option holds the size rounded up to 8 plus an 8-byte gap, and
	 * the limit is the size without that gap.
	 */
	cc->scratch_size = in->opts && in->opts->scratchsize != MT_OPT_UNSET ?
			   in->opts->scratchsize : mt_opts_default("scratchsize");
	cc->scratch_lim = cc->scratch_size != mt_opts_default("scratchsize") ?
			  scratch_limit(cc->scratch_size) : 256;
	ty_init(cc);
	id_init(cc);
	if (in->opts && in->opts->pspec)
		cc->force_pspec = 1;
	/* strings of the empty string table start with "" at offset 0 */
	as_str(cc, "", 0);
	const struct clause *clauses = pass_parse(cc);
	pass_macros(cc);
	pragma_unused(cc);	/* before the clauses create variables, as dt_compile */
	pass_clauses(cc, clauses);
	as_finish(cc, prog);
	prog->source_name = strdup(in->nsrcs ? in->srcs[0].name : "");
	prog->dump = cc->dump;
	cc->dump = NULL;
	cc_free(cc);
	free(cc);
	return prog;
}
