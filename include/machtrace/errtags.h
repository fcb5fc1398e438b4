/*
 * The D compiler's error tags: the one list of every tag a diagnostic may
 * carry.  A tag is the name dtrace prints in brackets under -xerrtags
 * ("[D_SYNTAX] ..."); tests and scripts written for dtrace match on it, so
 * the names are dtrace's own and never change once used.
 *
 * MT_DTAGS(X) expands X(TAG) once per tag.  It gives enum mt_dtag (the
 * value diagnostics take) and the name table behind mt_dtag_name().  A tag
 * is written nowhere else: code names the enum constant, and a misspelt tag
 * is a compile error.  tests/suites/errtags.sh checks that no "D_..." string
 * appears outside this file and that every err.D_TAG.* test names a tag
 * listed here.
 *
 * Message formats stay at the call sites: dtrace prints several fixed
 * wordings under one tag (D_SYNTAX alone has a dozen), and the D tests and
 * the conformance suite compare them byte for byte.
 */
#ifndef MACHTRACE_ERRTAGS_H
#define MACHTRACE_ERRTAGS_H

#define MT_DTAGS(X) \
	X(D_ACT_SPEC) \
	X(D_ADDROF_BITFIELD) \
	X(D_ADDROF_LVAL) \
	X(D_ADDROF_VAR) \
	X(D_AGG_COMM) \
	X(D_AGG_FUNC) \
	X(D_AGG_MDIM) \
	X(D_AGG_NULL) \
	X(D_AGG_REDEF) \
	X(D_AGG_SCALAR) \
	X(D_AGG_SPEC) \
	X(D_ALLOCA_INCOMPAT) \
	X(D_ARGS_IDX) \
	X(D_ARR_BADREF) \
	X(D_ARR_BOUNDS) \
	X(D_ARR_LOCAL) \
	X(D_CAST_INVAL) \
	X(D_CG_EXPR) \
	X(D_CHR_NL) \
	X(D_CHR_NULL) \
	X(D_CHR_OFLOW) \
	X(D_CLEAR_AGGARG) \
	X(D_CLEAR_AGGBAD) \
	X(D_COMM_DREC) \
	X(D_DECL_ARRBIG) \
	X(D_DECL_ARRNULL) \
	X(D_DECL_ARRSUB) \
	X(D_DECL_BADCLASS) \
	X(D_DECL_BFCONST) \
	X(D_DECL_BFSIZE) \
	X(D_DECL_BFTYPE) \
	X(D_DECL_CHARATTR) \
	X(D_DECL_CLASS) \
	X(D_DECL_COMBO) \
	X(D_DECL_DYNOBJ) \
	X(D_DECL_ENCONST) \
	X(D_DECL_ENOFLOW) \
	X(D_DECL_IDENT) \
	X(D_DECL_IDRED) \
	X(D_DECL_INCOMPLETE) \
	X(D_DECL_LOCASSC) \
	X(D_DECL_LONGINT) \
	X(D_DECL_PARMCLASS) \
	X(D_DECL_PROTO_NAME) \
	X(D_DECL_PROTO_TYPE) \
	X(D_DECL_PROTO_VARARGS) \
	X(D_DECL_PROTO_VOID) \
	X(D_DECL_SCOPE) \
	X(D_DECL_SIGNINT) \
	X(D_DECL_TYPERED) \
	X(D_DECL_USELESS) \
	X(D_DECL_VOIDATTR) \
	X(D_DECL_VOIDOBJ) \
	X(D_DEREF_FUNC) \
	X(D_DEREF_NONPTR) \
	X(D_DEREF_VOID) \
	X(D_DIF_OFLOW) \
	X(D_DIV_ZERO) \
	X(D_DREC_COMM) \
	X(D_EMPTY) \
	X(D_EXIT_SPEC) \
	X(D_FREOPEN_INVALID) \
	X(D_FUNC_IDENT) \
	X(D_FUNC_IDKIND) \
	X(D_FUNC_UNDEF) \
	X(D_IDENT_AMBIG) \
	X(D_IDENT_BADREF) \
	X(D_ID_OFLOW) \
	X(D_IDENT_UNDEF) \
	X(D_INT_DIGIT) \
	X(D_INT_OFLOW) \
	X(D_KEY_TYPE) \
	X(D_LLQUANT_FACTORTYPE) \
	X(D_LLQUANT_FACTORVAL) \
	X(D_LLQUANT_HMAGTYPE) \
	X(D_LLQUANT_HMAGVAL) \
	X(D_LLQUANT_LMAGTYPE) \
	X(D_LLQUANT_LMAGVAL) \
	X(D_LLQUANT_MATCHFACTOR) \
	X(D_LLQUANT_MATCHHMAG) \
	X(D_LLQUANT_MATCHLMAG) \
	X(D_LLQUANT_MATCHSTEPS) \
	X(D_LLQUANT_STEPTYPE) \
	X(D_LLQUANT_STEPVAL) \
	X(D_LQUANT_BASETYPE) \
	X(D_LQUANT_BASEVAL) \
	X(D_LQUANT_LIMTYPE) \
	X(D_LQUANT_LIMVAL) \
	X(D_LQUANT_MATCHBASE) \
	X(D_LQUANT_MATCHLIM) \
	X(D_LQUANT_MATCHSTEP) \
	X(D_LQUANT_MISMATCH) \
	X(D_LQUANT_STEPLARGE) \
	X(D_LQUANT_STEPSMALL) \
	X(D_LQUANT_STEPTYPE) \
	X(D_LQUANT_STEPVAL) \
	X(D_MACRO_TOKEN) \
	X(D_MACRO_UNDEF) \
	X(D_MACRO_UNUSED) \
	X(D_NOREG) \
	X(D_NORMALIZE_AGGARG) \
	X(D_NORMALIZE_AGGBAD) \
	X(D_OFFSETOF_BITFIELD) \
	X(D_OFFSETOF_TYPE) \
	X(D_OP_ACT) \
	X(D_OP_ARITH) \
	X(D_OP_ARRFUN) \
	X(D_OP_DYN) \
	X(D_OP_INCOMPAT) \
	X(D_OP_INCOMPLETE) \
	X(D_OP_INT) \
	X(D_OP_LVAL) \
	X(D_OP_PTR) \
	X(D_OP_SCALAR) \
	X(D_OP_SOU) \
	X(D_OP_VFPTR) \
	X(D_OP_VOID) \
	X(D_OP_WRITE) \
	X(D_PDESC_INVAL) \
	X(D_PDESC_ZERO) \
	X(D_PRAGCTL_INVAL) \
	X(D_PRAGERR) \
	X(D_PRAGMA_DEPEND) \
	X(D_PRAGMA_INVAL) \
	X(D_PRAGMA_MALFORM) \
	X(D_PRAGMA_OPTSET) \
	X(D_PRAGMA_SCOPE) \
	X(D_PRAGMA_UNUSED) \
	X(D_PRED_SCALAR) \
	X(D_PREPROC) \
	X(D_PRINTA_AGGARG) \
	X(D_PRINTA_AGGBAD) \
	X(D_PRINTA_AGGKEY) \
	X(D_PRINTA_AGGPROTO) \
	X(D_PRINTA_PROTO) \
	X(D_PRINTF_AGG_CONV) \
	X(D_PRINTF_ARG_EXTRA) \
	X(D_PRINTF_ARG_FMT) \
	X(D_PRINTF_ARG_PROTO) \
	X(D_PRINTF_ARG_TYPE) \
	X(D_PRINTF_DYN_PROTO) \
	X(D_PRINTF_DYN_TYPE) \
	X(D_PRINTF_FMT_EMPTY) \
	X(D_PRINT_SIZE) \
	X(D_PROTO_ARG) \
	X(D_PROTO_LEN) \
	X(D_REGS_IDX) \
	X(D_SIZEOF_BITFIELD) \
	X(D_SIZEOF_TYPE) \
	X(D_SPEC_COMM) \
	X(D_SPEC_DREC) \
	X(D_SPEC_SPEC) \
	X(D_STACK_SIZE) \
	X(D_STRINGOF_TYPE) \
	X(D_STR_NL) \
	X(D_SYM_NOTYPES) \
	X(D_SYNTAX) \
	X(D_TRACEMEM_ADDR) \
	X(D_TRACEMEM_DYNSIZE) \
	X(D_TRACEMEM_SIZE) \
	X(D_TRACE_DYN) \
	X(D_TRACE_VOID) \
	X(D_TRUNC_AGGARG) \
	X(D_TRUNC_AGGBAD) \
	X(D_TYPE_MEMBER) \
	X(D_UNKNOWN) \
	X(D_USTACK_FRAMES) \
	X(D_USTACK_STRSIZE) \
	X(D_VAR_UNDEF) \
	X(D_XLATE_INCOMPAT) \
	X(D_XLATE_MEMB) \
	X(D_XLATE_NOCONV) \
	X(D_XLATE_NONE) \
	X(D_XLATE_REDECL) \
	X(D_XLATE_SOU)

enum mt_dtag {
#define MT_DTAG_ENUM(t) t,
	MT_DTAGS(MT_DTAG_ENUM)
#undef MT_DTAG_ENUM
	MT_DTAG_COUNT
};

/* "D_SYNTAX" for D_SYNTAX: a static string, or NULL if out of range. */
const char *mt_dtag_name(enum mt_dtag tag);

#endif
