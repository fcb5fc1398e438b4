/*
 * Internal interface of the D compiler passes.
 *
 *   lex.c     source text -> tokens (struct tok), probe specifiers, $N macros
 *   parse.c   tokens -> AST (struct node); declarations are applied at once
 *   types.c   the type container (D built-ins, C declarations, later DWARF)
 *   decl.c    declarators -> types, struct/union/enum/typedef definitions
 *   ident.c   identifier scopes, built-in variables, subroutines, actions
 *   sema.c    cooking: types of expressions, every D_* diagnostic
 *   cg.c      expressions -> bytecode (registers, tuple stack)
 *   act.c     clause statements -> actions, records, aggregations
 *   asm.c     growing the program tables, DIFO assembly
 *   disasm.c  -S listing
 *   cpp.c     -C: the C preprocessor
 *   pragma.c  #pragma D ...
 *   compile.c mt_compile: the driver
 *   ground.c  the arena and cc_error(); calls no other compiler file
 *
 * Errors: cc_error() fills the diagnostic (its tag an enum mt_dtag of
 * include/machtrace/errtags.h) and longjmps back to mt_compile;
 * everything the compiler allocates is owned by struct cc (an arena) or by
 * the program being built, so nothing leaks on that path.
 */
#ifndef MT_CC_H
#define MT_CC_H

#include <setjmp.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdarg.h>
#include "machtrace/compiler.h"
#include "machtrace/errtags.h"
#include "machtrace/hmap.h"
#include "machtrace/vec.h"

struct cc;

/* ------------------------------------------------- ground.c: arena, errors */
void *cc_alloc(struct cc *cc, size_t n);		/* zeroed */
void cc_arena_free(struct cc *cc);
char *cc_strdup(struct cc *cc, const char *s);
char *cc_strndup(struct cc *cc, const char *s, size_t n);
char *cc_printf(struct cc *cc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

_Noreturn void cc_error(struct cc *cc, int line, enum mt_dtag tag,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* the few diagnostics dtrace prints without a tag */
_Noreturn void cc_error_notag(struct cc *cc, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Bounded recursion.  The parser recurses once per nesting level of an
 * expression or declarator ("((((", "!!!!", "(int)(int)", "a=b=c") and the
 * semantic pass once per level of the tree (which a long "1+1+...+1" also
 * deepens).  Each recursive step calls cc_nest_in() on entry and
 * cc_nest_out() on a normal return (an error longjmps away and frees the
 * whole compiler state, counter included); past CC_MAXNEST levels the
 * program is refused with D_SYNTAX -- dtrace's yacc parser reports its
 * own stack exhaustion with that tag -- instead of overflowing the stack.
 * A parenthesis costs about 4 levels, a unary operator or cast 2, an
 * operand of a long chain 1: about 1000 nested parentheses, 2000 unary
 * operators or 4000 chained operands compile, in well under 1 MiB of stack.
 */
#define CC_MAXNEST	4000
void cc_nest_in(struct cc *cc);
#define cc_nest_out(cc)	((cc)->nest--)

/* ---------------------------------------------------------------- types */
enum tkind {
	T_VOID = 1, T_INT, T_FLOAT, T_PTR, T_ARRAY, T_STRUCT, T_UNION,
	T_ENUM, T_FUNC, T_STRING, T_FORWARD
};

struct member {
	char *name;
	struct type *type;
	uint32_t off;			/* bytes from the start */
	uint8_t bitoff, bits;		/* bitfield: bit offset in the unit at off, width */
	uint8_t usize;			/* bitfield: bytes of the unit at off (0: type's) */
	int line;
	struct member *next;
};

struct enumc {
	char *name;
	int64_t val;
	struct enumc *next;
};

/*
 * A type.  Typedefs are copies of their base type with another name and
 * canon pointing at the base's canonical type, so identity is canon
 * equality and printing uses name.
 */
struct type {
	enum tkind kind;
	uint32_t size, align;
	int is_signed;
	int is_const;
	char *name;			/* as dtrace prints it */
	struct type *canon;		/* the type without typedef names */
	struct type *base;		/* pointer target, array element, return */
	uint32_t nelems;		/* arrays */
	struct type *index;		/* D assoc-array declarations: not used */
	struct member *members;		/* struct/union (NULL while forward) */
	int complete;
	int from_target;		/* defined by the target's declarations */
	int program_typedef;		/* a typedef the program declared */
	struct enumc *enums;
	char *tag;			/* struct/union/enum tag */
	struct type *ptrto;		/* cache: pointer to this */
	struct type **args;		/* functions */
	int nargs, varargs;
};

struct type *ty_lookup(struct cc *cc, const char *name);	/* "int", "struct x" */
void ty_define(struct cc *cc, const char *name, struct type *t);
struct type *ty_new(struct cc *cc, enum tkind k, uint32_t size, const char *name);
struct type *ty_ptr(struct cc *cc, struct type *t);
struct type *ty_array(struct cc *cc, struct type *t, uint32_t n);
struct type *ty_typedef(struct cc *cc, struct type *t, const char *name);
void ty_init(struct cc *cc);
struct member *ty_member(struct cc *cc, struct type *t, const char *name);
int ty_same(struct type *a, struct type *b);
int ty_compat(struct type *a, struct type *b);	/* for assignment */
char *ty_decl_name(struct cc *cc, struct type *t, const char *inner);
#define TY_K(t)		((t)->canon->kind)
int ty_is_integral(struct type *t);		/* int, enum */
int ty_is_arith(struct type *t);
int ty_is_scalar(struct type *t);		/* arith, pointer, string?no */
int ty_is_ptrlike(struct type *t);		/* pointer or array */
int ty_is_string(struct type *t);
int ty_is_sou(struct type *t);
int ty_is_void(struct type *t);
int ty_is_charptr(struct type *t);		/* char * / char[] */

/* ---------------------------------------------------------------- lexer */
enum tokk {
	TK_EOF = 0, TK_IDENT, TK_TYPENAME, TK_INT, TK_STRING, TK_CHAR,
	TK_AGG,				/* @name */
	TK_PSPEC,			/* probe specifier text */
	TK_MACRO,			/* $N, $pid, $$N ... resolved in text */
	TK_KEYWORD,			/* see kw in struct tok */
	TK_OP,				/* punctuation, op in struct tok */
	TK_BACKQUOTE
};

enum {
	OP_NONE = 0,
	OP_LPAR, OP_RPAR, OP_LBRACK, OP_RBRACK, OP_LBRACE, OP_RBRACE,
	OP_COMMA, OP_SEMI, OP_COLON, OP_QUESTION, OP_DOT, OP_ARROW,
	OP_ELLIPSIS,
	OP_PLUS, OP_MINUS, OP_STAR, OP_SLASH, OP_MOD, OP_AMP, OP_BOR,
	OP_XOR, OP_SHL, OP_SHR, OP_LNOT, OP_BNOT,
	OP_LAND, OP_LOR, OP_LXOR,
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
	OP_ASSIGN, OP_ADD_EQ, OP_SUB_EQ, OP_MUL_EQ, OP_DIV_EQ, OP_MOD_EQ,
	OP_AND_EQ, OP_OR_EQ, OP_XOR_EQ, OP_SHL_EQ, OP_SHR_EQ,
	OP_INC, OP_DEC, OP_EPRED,
	/* AST-only operators */
	OP_NEG, OP_POS, OP_DEREF, OP_ADDROF, OP_POSTINC, OP_POSTDEC,
	OP_PREINC, OP_PREDEC, OP_SIZEOF, OP_STRINGOF, OP_CAST, OP_COND,
	OP_INDEX, OP__COUNT
};

enum {
	KW_NONE = 0, KW_AUTO, KW_BREAK, KW_CASE, KW_CHAR, KW_CONST, KW_CONTINUE,
	KW_COUNTER, KW_DEFAULT, KW_DO, KW_DOUBLE, KW_ELSE, KW_ENUM, KW_EXTERN,
	KW_FLOAT, KW_FOR, KW_GOTO, KW_IF, KW_IMPORT, KW_INLINE, KW_INT,
	KW_LONG, KW_OFFSETOF, KW_PROBE, KW_PROVIDER, KW_REGISTER, KW_RESTRICT,
	KW_RETURN, KW_SELF, KW_SHORT, KW_SIGNED, KW_SIZEOF, KW_STATIC,
	KW_STRING, KW_STRINGOF, KW_STRUCT, KW_SWITCH, KW_THIS, KW_TRANSLATOR,
	KW_TYPEDEF, KW_UNION, KW_UNSIGNED, KW_USERLAND, KW_VOID, KW_VOLATILE,
	KW_WHILE, KW_XLATE
};

struct tok {
	enum tokk k;
	int op, kw;
	char *text;			/* identifiers, strings (decoded), spec */
	size_t len;			/* decoded string length */
	uint64_t ival;
	int is_unsigned, is_long;	/* integer suffixes */
	int line;
	const char *start, *end;	/* raw source text of the token */
};

void lex_init(struct cc *cc, const char *text, int line);
/* dump.c (-d): source [start, end) reads as the probe description pspec
   (also expanded as the target expands it) or as macro token t */
void dump_pspec(struct cc *cc, const char *start, const char *end, const char *pspec);
void dump_token(struct cc *cc, const char *start, const char *end, const struct tok *t);
void dump_source(struct cc *cc, const char *text);
void lex_next(struct cc *cc);			/* advance cc->tok */
struct tok *lex_peek(struct cc *cc);		/* one token after cc->tok */
int lex_is_op(struct cc *cc, int op);		/* cc->tok is operator op */
void lex_expect_op(struct cc *cc, int op);	/* consume op or D_SYNTAX */
_Noreturn void lex_syntax_error(struct cc *cc);	/* "syntax error near ..." */
void lex_pspec(struct cc *cc);			/* re-lex cc->tok as a pspec */
int lex_at_pspec(struct cc *cc);		/* top level: next is a pspec? */
const char *kw_name(int kw);
int kw_is(const char *s);			/* s is a D keyword */
const char *op_name(int op);

/* ---------------------------------------------------------------- AST */
enum nkind {
	N_INT = 1, N_STRING, N_IDENT, N_VAR, N_AGG, N_FUNC, N_OP1, N_OP2,
	N_OP3, N_MEMBER, N_TYPE, N_XLATE, N_OFFSETOF, N_ASSIGN, N_LIST,
	N_IF			/* statement: l condition, r then-list, x else-list */
};

struct ident;

struct node {
	enum nkind k;
	int op;				/* OP_* */
	int line;
	struct node *l, *r, *x;		/* operands; x = third */
	struct node *args;		/* call args / index keys (list via next) */
	struct node *next;		/* in lists */
	char *name;			/* identifiers, member names, string text */
	size_t slen;
	int64_t ival;
	struct type *type;		/* set by sema */
	struct type *ctype;		/* N_TYPE / casts / xlate: the type named */
	struct ident *id;		/* sema: resolved identifier */
	int scope;			/* N_VAR: 0 global, 1 self, 2 this */
	int is_unsigned_lit;
	/* sema flags */
	unsigned lvalue : 1, writable : 1, is_const : 1, is_ref : 1,
		 is_string_lit : 1, is_action : 1, is_agg : 1,
		 is_alloca : 1, nonassign : 1,
		 is_uaddr : 1,		/* printf %A argument: pid + address */
		 alloca_str : 1;	/* stringof() of an alloca()'d pointer */
	int64_t cval;			/* integer constant value when is_const */
	struct xlator *xl;		/* N_XLATE */
	char *strval;			/* constant string value */
};

struct node *nd_new(struct cc *cc, enum nkind k, int line);	/* ground.c */

/* ---------------------------------------------------------------- idents */
enum idkind {
	ID_BVAR = 1,		/* built-in variable */
	ID_VAR,			/* user variable: scope in ->scope */
	ID_AGG,			/* @name */
	ID_SUBR,		/* subroutine: CALL */
	ID_ACTF,		/* action function: trace(), printf() ... */
	ID_AGGF,		/* aggregating function */
	ID_ENUMC,		/* enum constant */
	ID_INLINE,
	ID_MACRO		/* $pid etc: integer constant */
};

struct ident {
	char *name;
	enum idkind k;
	int scope;			/* ID_VAR: 0 global, 1 self, 2 this */
	int id;				/* var id, subr number, action kind, agg func */
	struct type *type;		/* value type (NULL until first assignment) */
	int is_assoc;			/* -1 unknown, 0 scalar, 1 assoc */
	struct type **ktypes;		/* assoc key types */
	int nkeys;
	int declared;			/* from a declaration */
	int varidx;			/* index in prog vars[], -1 none */
	int64_t val;			/* enum value, macro */
	struct node *init;		/* inline expression */
	int line;
	int outside;			/* declared before the program (built-in, D library) */
	int has_attr;			/* #pragma D attributes: attr */
	struct mt_attr attr;
	int alloca_taint;		/* assigned an alloca() pointer */
	int param;			/* parameter of an inline: index + 1 */
	int preg;			/* cg: register bound to that parameter */
	struct ident **params;		/* inline parameters (nkeys of them) */
	/* aggregation */
	int aggid;			/* index+1 */
	int aggfunc;
	int minargs, maxargs;		/* functions */
	const char *proto;		/* function prototype for messages */
	struct ident *shadow;		/* the scope's older one of this name */
};

/*
 * A scope: the newest identifier of each name in a hash map (common/
 * hmap.c), so that a lookup costs the same with 10 names as with 60,000;
 * each hides the older ones of its name (shadow, newest first), which
 * id_remove() brings back.
 */
struct scope {
	struct mt_hmap map;
};

struct ident *id_lookup(struct scope *s, const char *name);
void id_remove(struct scope *s, struct ident *id);
struct ident *id_add(struct cc *cc, struct scope *s, const char *name,
		     enum idkind k);
void id_init(struct cc *cc);

/* ---------------------------------------------------------------- xlators */
struct xlmember {
	char *name;
	struct node *expr;
	struct xlmember *next;
};

struct xlator {
	struct type *out, *in;
	char *argname;
	struct xlmember *members;
	int line;
	struct xlator *next;
};

/* ---------------------------------------------------------------- program */
#define VEC(T) struct { T *v; uint32_t n; size_t cap; }
/* out of memory aborts, as cc_alloc does */
#define VEC_PUSH(cc, vec, val) do {					\
	if (MT_VEC_ROOM((vec).v, (vec).n, (vec).cap, 16) != 0)		\
		abort();						\
	(vec).v[(vec).n++] = (val);					\
} while (0)

struct clause_state {
	int line;
	int nacts0;			/* first action of this clause */
	uint32_t recoff;		/* bytes used in the record */
	int speculative;		/* speculate() seen */
	int has_commit, has_data, has_agg;
	int has_spec_only;
	int noargs;			/* only BEGIN/END: args[] has no elements */
	char *pdesc0;
	struct node *pred;		/* predicate not yet cooked (sema_pred_first) */
};

struct cc {
	jmp_buf jb;
	struct mt_diag *diag;
	const struct mt_cc_input *in;
	int srcidx;
	const char *lib;		/* compiling this D library (name) */
	int in_prog;			/* parsing the program, past the libraries */
	int c_layout;			/* > 0: laying out the target's C types */
	int c_layout_pragma;		/* #pragma machtrace layout c */
	uint8_t stmt_attr[3];		/* -v: minimum statement attributes */

	/* arena */
	struct arena_blk *arena;

	/* lexer state */
	const char *text, *p;
	int line;
	struct tok tok, peek;
	int have_peek;
	int pspec_mode;			/* reading a probe specifier */
	int depth;			/* open parentheses */
	int brackets;			/* open brackets */
	int in_clause;
	int force_pspec;		/* #pragma D option pspec */
	uint64_t macro_used;		/* $N referenced (bit N) */
	uint64_t scratch_lim;		/* alloca() limit (scratchsize) */
	uint64_t scratch_size;		/* -x scratchsize as the runtime takes it */
	int brace_line;			/* line of the last struct body's '{' */
	int nest;			/* parser + sema recursion depth */
	int cur_clause;			/* clause being compiled (clause_info index) */
	int if_depth;			/* open if statements (bounded: recursion) */

	/* types */
	struct mt_hmap types;		/* struct tentry (types.c) by name */
	struct type *t_int, *t_uint, *t_long, *t_ulong, *t_char, *t_uchar,
		*t_short, *t_ushort, *t_llong, *t_ullong, *t_void, *t_string,
		*t_voidp, *t_charp, *t_schar, *t_uintptr, *t_int64, *t_uint64,
		*t_int32, *t_uint32, *t_int16, *t_uint16, *t_int8, *t_uint8,
		*t_float, *t_double, *t_ldouble, *t_size, *t_stack, *t_symaddr,
		*t_usymaddr, *t_void_fn, *t_bool;

	/* identifiers */
	struct scope globals, tls, locals, aggs;
	const struct clause *parsing;	/* parse.c: the clause being parsed */
	struct xlator *xlators;
	struct binding {		/* #pragma binding/attributes pending */
		char *name;
		const char *prname;	/* "binding" or "attributes" */
		int line, src;
		int has_attr;		/* attributes: attr below */
		struct mt_attr attr;
		struct binding *next;
	} *bindings;

	/* the program being built */
	struct mt_prog *prog;
	VEC(struct mt_clause) clauses;
	VEC(struct mt_clause_info) clause_info;
	VEC(struct mt_action) actions;
	VEC(struct mt_action_info) action_info;
	VEC(struct mt_rec) recs;
	VEC(struct mt_rec_info) rec_info;
	VEC(struct mt_agg) aggs_v;
	VEC(struct mt_agg_info) agg_info;
	VEC(struct mt_var) vars;
	VEC(char *) var_names;
	VEC(struct mt_difo) difos;
	VEC(mt_instr_t) text_v;
	VEC(uint64_t) ints;
	uint32_t *int_slots;		/* asm.c: index + 1 of each int, hashed */
	VEC(char) strtab;
	VEC(struct mt_optset) optsets;
	VEC(struct mt_pragattr) pragattrs;
	uint32_t nuser[3];		/* next user var id per scope */
	struct clause_state cl;
	uint32_t strsize;

	/* codegen state for the DIFO being built (per compile: never statics) */
	uint32_t cg_text0;		/* its first instruction */
	int cg_xlarg;			/* in a translation: the input's register */
	struct node *cg_root;		/* store via scratch: the variable... */
	int cg_rootreg;			/* ...and the register of its copy */
	uint16_t regmask;
	uint32_t cg_nspill;		/* spill slots in use (cg_operands) */
	VEC(uint16_t) spill_ids;	/* the slots: hidden this-> variables */
	int cg_line;
	int tuple_depth;
	int in_pred;
	char *cpp_out;			/* -C: the current source after cpp */
	/* -d (dump.c): the rewrites of the source being parsed, and the
	   sources rewritten so far (malloc'd) */
	struct dump_rw *rws;
	size_t nrws, caprws;
	char *dump;
	size_t dumplen;
};

/* asm.c */
uint32_t as_emit(struct cc *cc, mt_instr_t i);
uint32_t as_int(struct cc *cc, uint64_t v);
uint32_t as_str(struct cc *cc, const char *s, size_t len);
uint32_t as_difo_begin(struct cc *cc);
uint32_t as_difo_end(struct cc *cc, uint32_t text0, uint32_t rtype,
		     uint32_t rsize);		/* returns index+1 */
void as_patch(struct cc *cc, uint32_t at, uint32_t target);
void as_finish(struct cc *cc, struct mt_prog *p);

/* parse.c */
/* A clause as parsed: what act_clause() turns into tables and code. */
struct clause {
	struct mt_pdesc *pds;		/* split into their fields (arena) */
	int npd;
	struct node *pred, *body;	/* body: statements via ->next */
	int line;
	int src;			/* index of its source (diagnostics) */
	struct clause *next;		/* the next clause of the program */
};
struct clause *parse_source(struct cc *cc);
struct node *parse_expr(struct cc *cc);
struct node *parse_cond(struct cc *cc);
struct type *parse_typename(struct cc *cc);
int parse_at_type(struct cc *cc);

/* decl.c */
struct declspec {
	struct type *type;
	int storage;			/* KW_TYPEDEF, KW_EXTERN, KW_STATIC ... */
	int scope;			/* 0, 1 self, 2 this */
	int line;
	int is_inline;
};
void decl_specs(struct cc *cc, struct declspec *ds, int allow_storage);
struct type *decl_declarator(struct cc *cc, struct type *base, char **name,
			     int abstract, struct node **assoc_keys);
void decl_toplevel(struct cc *cc, int in_clause);
int decl_starts(struct cc *cc);

/* sema.c */
void sema_expr(struct cc *cc, struct node *n);
int sema_pred_first(struct cc *cc);
struct ident *sema_var(struct cc *cc, struct node *n, int create);
int sema_var_index(struct cc *cc, struct ident *id);
void sema_call_args(struct cc *cc, struct node *n, struct ident *id);
/* sema internals shared with semaop.c */
const char *sema_tname(struct node *n);
struct type *sema_promote1(struct cc *cc, struct type *t);
struct type *sema_promote2(struct cc *cc, struct type *a, struct type *b);
void sema_set_const(struct node *n, int64_t v);
void sema_index(struct cc *cc, struct node *n, int create, struct node *rhs);
void sema_member(struct cc *cc, struct node *n);
void sema_op1(struct cc *cc, struct node *n);
void sema_op2(struct cc *cc, struct node *n);
void sema_op3(struct cc *cc, struct node *n);

/* cg.c */
uint32_t cg_difo(struct cc *cc, struct node *n, uint32_t *rtype, uint32_t *rsize);
int cg_temps_dead(const struct node *n);

/* act.c */
void act_clause(struct cc *cc, const struct clause *c);

/* agg.c */
void agg_assign(struct cc *cc, struct node *s);
int key_special(struct cc *cc, struct node *k, uint32_t *size);
int ti_is_user(int tikind);

/* printf.c */
int printf_validate(struct cc *cc, const char *fmt, struct node *args,
		    int argbase, const char *func, int line, int is_printa);

/* pragma.c */
void pragma_line(struct cc *cc, const char *text, int line);
void pragma_unused(struct cc *cc);
void pragma_error(struct cc *cc, const char *p, int line);
uint64_t scratch_limit(uint64_t scratchsize);


/* ctypes.c */
int ctypes_typedef(struct cc *cc, const char *name, int line);
struct type *ctypes_argtype(struct cc *cc, int i, int line);
/* locals->var from the target: n rewritten and checked, 1; 0 if none. */
int ctypes_local(struct cc *cc, struct node *n);
/* print(locals): n's argument rewritten to the located locals, 1; 0 if
   the argument is not locals. */
int ctypes_print_locals(struct cc *cc, struct node *n);
void ctypes_ask_clause(struct cc *cc);
int ctypes_skip_target_decl(struct cc *cc);
struct type *ctypes_argnative(struct cc *cc, struct node *n, int i,
			      const char **xname);
int ctypes_complete(struct cc *cc, struct type *t, int line);
void ctypes_check_argidx(struct cc *cc, struct node *n, int64_t idx);
struct type *ctypes_curthread(struct cc *cc, int line);
struct type *ctypes_symbol(struct cc *cc, const char *ref, uint64_t *addr,
			   int line);

/* cpp.c */
char *cpp_run(const struct mt_cc_input *in, const char *text,
	      const char *name, struct mt_diag *diag);

#endif /* MT_CC_H */
