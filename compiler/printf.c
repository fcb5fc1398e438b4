/*
 * printf()/printa() format strings: conversions are checked against the
 * argument types at compile time, with dtrace's diagnostics.  The consumer
 * does the formatting.
 */
#include <string.h>
#include "cc.h"

static const char *tname(struct node *n)
{
	return n->is_agg ? "aggregation" : n->type ? n->type->name : "?";
}

/* Does argument a fit conversion c?  *proto receives dtrace's wording. */
static int conv_ok(struct cc *cc, char c, struct node *a, const char **proto)
{
	struct type *t = a->type;
	int isint = !a->is_agg && t && ty_is_integral(t) && t != cc->t_stack;
	int isptr = !a->is_agg && t && ty_is_ptrlike(t);
	switch (c) {
	case 'd': case 'i':
		*proto = "char, short, int, long, or long long";
		return isint;
	case 'u': case 'o': case 'x': case 'X':
		*proto = "integer or pointer";
		return isint || isptr;
	case 'c':
		*proto = "char, short, int, long, or long long";
		return isint;
	case 's':
		*proto = "char [] or string (or use stringof)";
		return !a->is_agg && t && (ty_is_string(t) || ty_is_charptr(t));
	case 'p':
		*proto = "pointer or integer";
		return isint || isptr;
	case 'a': case 'A':
		*proto = "pointer or integer";
		return isint || isptr;
	case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
		*proto = "float, double, or long double";
		return !a->is_agg && t && (TY_K(t) == T_FLOAT || ty_is_integral(t));
	case 'Y':
		*proto = "int64_t";
		return isint;
	case 'k':
		*proto = "stack";
		return t == cc->t_stack;
	case 'S':
		*proto = "char [] or string (or use stringof)";
		return !a->is_agg && t && (ty_is_string(t) || ty_is_charptr(t));
	}
	*proto = "?";
	return 1;
}

/*
 * %s of a `char *` prints the string it points to, as dtrace does: the
 * argument becomes stringof(argument), so the runtime copies the string
 * (strsize bytes at most, through safe loads) into the record instead of
 * recording the pointer.  a keeps its place in the argument list.
 */
static void charptr_as_string(struct cc *cc, struct node *a)
{
	struct node *inner, *next = a->next;

	if (a->is_agg || !a->type || TY_K(a->type) != T_PTR ||
	    !ty_is_charptr(a->type))
		return;
	inner = nd_new(cc, a->k, a->line);
	*inner = *a;
	inner->next = NULL;
	memset(a, 0, sizeof(*a));
	a->k = N_OP1;
	a->op = OP_STRINGOF;
	a->line = inner->line;
	a->l = inner;
	a->next = next;
	a->type = cc->t_string;
}

/*
 * Walk the conversions of fmt.  For printf, args are the value arguments
 * (argument numbers from argbase).  For printa (is_printa), argbase is the
 * number of aggregations; conversions are not matched against values.
 */
int printf_validate(struct cc *cc, const char *fmt, struct node *args,
		    int argbase, const char *func, int line, int is_printa)
{
	int conv = 0, argno = argbase;
	struct node *a = args;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		const char *start = p;
		p++;
		if (*p == '%') {
			continue;
		}
		conv++;
		int star_w = 0, star_p = 0, dot = 0;
		for (;;) {
			if (*p == 0)
				cc_error(cc, line, D_SYNTAX,
					 "format conversion #%d name expected before end of format string", conv);
			if (strchr("-+ #0'", *p)) {
				p++;
			} else if (*p >= '0' && *p <= '9') {
				const char *q = p;
				while (*q >= '0' && *q <= '9')
					q++;
				if (*q == '$')
					cc_error(cc, line, D_SYNTAX,
						 "format conversion #%d uses unsupported positional format (%%n$)", conv);
				p = q;
			} else if (*p == '*') {
				if (dot) {
					if (star_p)
						cc_error(cc, line, D_SYNTAX,
							 "format conversion #%d has more than one '*' specified for the output precision", conv);
					star_p = 1;
				} else {
					if (star_w)
						cc_error(cc, line, D_SYNTAX,
							 "format conversion #%d has more than one '*' specified for the output width", conv);
					star_w = 1;
				}
				p++;
			} else if (*p == '.') {
				if (dot)
					cc_error(cc, line, D_SYNTAX,
						 "format conversion #%d has more than one '.' specified", conv);
				dot = 1;
				p++;
			} else if (strchr("hlL", *p)) {
				p++;
			} else if (*p == '?') {
				p++;
			} else {
				break;
			}
		}
		char c = *p;
		if (c == '%') {
			cc_error(cc, line, D_SYNTAX,
				 "format conversion #%d cannot be combined with other format flags: %%%%", conv);
		}
		if (c == '@') {
			if (!is_printa)
				cc_error(cc, line, D_PRINTF_AGG_CONV,
					 "%%@ conversion requires an aggregation and is not for use with %s( )", func);
			continue;
		}
		if (!strchr("diouxXcspaAeEfFgGYkSm", c))
			cc_error(cc, line, D_SYNTAX,
				 "format conversion #%d is undefined: %%%c", conv, c);
		char cname[32];
		snprintf(cname, sizeof(cname), "%%%c", c);
		(void)start;
		for (int s = 0; s < star_w + star_p; s++) {
			int isw = s == 0 && star_w;
			if (!a)
				cc_error(cc, line, D_PRINTF_DYN_PROTO,
					 "%s( ) prototype mismatch: conversion #%d (%s) is missing a corresponding \"%s\" argument",
					 func, conv, cname, isw ? "*" : ".*");
			if (a->is_agg || !a->type || !ty_is_integral(a->type))
				cc_error(cc, line, D_PRINTF_DYN_TYPE,
					 "%s( ) argument #%d is incompatible with conversion #%d prototype:\n\tconversion: %% %s%s%c\n\t prototype: int\n\t  argument: %s",
					 func, argno, conv, isw ? "* " : "", isw ? "" : ".* ", c, tname(a));
			a = a->next;
			argno += !is_printa;
		}
		if (!a)
			cc_error(cc, line, D_PRINTF_ARG_PROTO,
				 "%s( ) prototype mismatch: conversion #%d (%s) is missing a corresponding value argument",
				 func, conv, cname);
		const char *proto;
		if (a->is_action || (a->type && ty_is_void(a->type) && !a->is_agg) ||
		    !conv_ok(cc, c, a, &proto)) {
			if (a->is_action || (a->type && ty_is_void(a->type) && !a->is_agg))
				conv_ok(cc, c, a, &proto);
			cc_error(cc, line, D_PRINTF_ARG_TYPE,
				 "%s( ) argument #%d is incompatible with conversion #%d prototype:\n\tconversion: %s\n\t prototype: %s\n\t  argument: %s",
				 func, argno, conv, cname, proto,
				 a->is_action ? "void" : tname(a));
		}
		if ((c == 's' || c == 'S') && !is_printa)
			charptr_as_string(cc, a);
		if (c == 'A' && !is_printa && !a->is_agg)
			a->is_uaddr = 1;
		a = a->next;
		argno += !is_printa;
	}
	if (!is_printa && a) {
		cc_error(cc, line, D_PRINTF_ARG_EXTRA,
			 "%s( ) prototype mismatch: only %d arguments required by this format string",
			 func, argno - argbase);
	}
	return conv;
}
