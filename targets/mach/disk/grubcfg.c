/*
 * grub.cfg: the multiboot kernel and modules of the default menu entry.
 *
 * This reads the subset of GRUB's script language that generated and
 * hand-written grub.cfg files use:
 *   - words split at blanks; 'single quotes' literal; "double quotes" with
 *     \$ \" \\ and \newline escapes and $var expansion; a backslash outside
 *     quotes escapes the next character (\newline continues the line);
 *     `#` at the start of a word comments out the rest of the line;
 *     commands end at a newline or `;`;
 *   - $name and ${name} expand from `set name=value` / `name=value`
 *     assignments read so far (grub_platform and grub_cpu are predefined);
 *     outside quotes the value is split into words.  An unset variable is
 *     empty, except on a multiboot or module line, where it is an error
 *     (the boot would not be the one GRUB does);
 *   - `if` blocks: only the first branch is read (elif/else are skipped),
 *     so feature tests such as `if [ x"${feature_menuentry_id}" = xy ]`
 *     take their modern-GRUB side;
 *   - `menuentry TITLE [--id ID] ... { body }` and `submenu TITLE { ... }`;
 *     function bodies are skipped;
 *   - `set default=` a number (top-level position), a title or id, or a
 *     `>`-separated path into submenus; empty or absent: the first entry.
 * The chosen entry's body is read after the whole file, as GRUB runs it at
 * boot, with the variables the file left set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machtrace/disk.h"
#include "targets/mach/mach_int.h"

#define MAX_VARS	96
#define MAX_WORDS	128
#define MAX_ENTRIES	128
#define MAX_IFS		32

struct gvar {
	char name[64];
	char *val;
};

struct gcmd {
	int argc;
	char *argv[MAX_WORDS];
	char buf[3 * MT_DISK_STR_MAX];
	size_t used;
	int line;                       /* where the command starts */
	const char *body;               /* after a `{` word: the block's text */
	size_t bodylen;
	int bodyline;
	char unset[64];                 /* first unset variable expanded */
};

struct gentry {
	char title[256], id[256];
	int parent;                     /* index of the submenu, -1: top level */
	int pos;                        /* position among the parent's entries */
	int submenu;
	const char *body;
	size_t bodylen;
	int line, bodyline;
};

struct gstate {
	struct gvar vars[MAX_VARS];
	int nvars;
	struct gentry entries[MAX_ENTRIES];
	int nentries;
	char *err;
	size_t errlen;
};

static const char *getvar(const struct gstate *st, const char *name)
{
	for (int i = 0; i < st->nvars; i++)
		if (strcmp(st->vars[i].name, name) == 0)
			return st->vars[i].val;
	return NULL;
}

static int setvar(struct gstate *st, const char *name, const char *val, int line)
{
	int i;

	if (strlen(name) >= sizeof st->vars[0].name) {
		mt_seterr(st->err, st->errlen, "grub.cfg:%d: variable name too long", line);
		return -1;
	}
	for (i = 0; i < st->nvars; i++)
		if (strcmp(st->vars[i].name, name) == 0)
			break;
	if (i == st->nvars) {
		if (st->nvars == MAX_VARS) {
			mt_seterr(st->err, st->errlen, "grub.cfg:%d: more than %d variables",
				  line, MAX_VARS);
			return -1;
		}
		snprintf(st->vars[st->nvars++].name, sizeof st->vars[0].name, "%s", name);
		st->vars[i].val = NULL;
	}
	free(st->vars[i].val);
	st->vars[i].val = strdup(val);
	return st->vars[i].val ? 0 : -1;
}

static void free_vars(struct gstate *st)
{
	for (int i = 0; i < st->nvars; i++)
		free(st->vars[i].val);
	st->nvars = 0;
}

/* ---- the lexer ----------------------------------------------------------- */

struct lex {
	const char *p, *end;
	int line;
	struct gcmd *c;
	int inword;                     /* a word is being built (maybe empty) */
	struct gstate *st;
};

static int lex_error(struct lex *lx, const char *what)
{
	mt_seterr(lx->st->err, lx->st->errlen, "grub.cfg:%d: %s", lx->line, what);
	return -1;
}

/* Starts a word unless one is being built (quotes start even an empty one). */
static int begin_word(struct lex *lx)
{
	struct gcmd *c = lx->c;

	if (lx->inword)
		return 0;
	if (c->argc == MAX_WORDS - 1)
		return lex_error(lx, "too many words in one command");
	if (c->used + 1 >= sizeof c->buf)
		return lex_error(lx, "command too long");
	c->argv[c->argc++] = c->buf + c->used;
	c->buf[c->used] = 0;
	lx->inword = 1;
	return 0;
}

static int put(struct lex *lx, char ch)
{
	struct gcmd *c = lx->c;

	if (begin_word(lx) < 0)
		return -1;
	if (c->used + 2 >= sizeof c->buf)
		return lex_error(lx, "command too long");
	c->buf[c->used++] = ch;
	c->buf[c->used] = 0;
	return 0;
}

static void end_word(struct lex *lx)
{
	if (lx->inword) {
		lx->c->buf[lx->c->used++] = 0;
		lx->inword = 0;
	}
}

static int name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

/*
 * At a '$': appends the variable's value (split into words when unquoted).
 * A '$' that starts no variable name is literal, as in GRUB (so the boot
 * script's unquoted $(task-create) passes through).
 */
static int expand(struct lex *lx, int quoted)
{
	char name[64];
	const char *val;
	size_t n = 0;

	lx->p++;
	if (lx->p < lx->end && *lx->p == '{') {
		const char *close = memchr(lx->p, '}', (size_t)(lx->end - lx->p));
		if (!close)
			return lex_error(lx, "unterminated ${");
		n = (size_t)(close - lx->p - 1);
		if (n == 0 || n >= sizeof name)
			return lex_error(lx, "bad ${...} variable name");
		memcpy(name, lx->p + 1, n);
		lx->p = close + 1;
	} else {
		while (lx->p + n < lx->end && name_char(lx->p[n]) && n < sizeof name - 1)
			n++;
		if (n == 0)
			return put(lx, '$');
		memcpy(name, lx->p, n);
		lx->p += n;
	}
	name[n] = 0;
	val = getvar(lx->st, name);
	if (!val) {
		if (!lx->c->unset[0])
			snprintf(lx->c->unset, sizeof lx->c->unset, "%s", name);
		val = "";
	}
	for (; *val; val++) {
		if (!quoted && (*val == ' ' || *val == '\t' || *val == '\n')) {
			end_word(lx);
			continue;
		}
		if (put(lx, *val) < 0)
			return -1;
	}
	return 0;
}

/* Skips the text of a { } block; lx->p is just after the '{'. */
static int skip_block(struct lex *lx)
{
	int depth = 1, word_start = 1;

	while (lx->p < lx->end) {
		char ch = *lx->p++;

		if (ch == '\n')
			lx->line++;
		if (ch == '\\' && lx->p < lx->end) {
			if (*lx->p++ == '\n')
				lx->line++;
			word_start = 0;
			continue;
		}
		if (ch == '\'' || ch == '"') {
			while (lx->p < lx->end && *lx->p != ch) {
				if (*lx->p == '\n')
					lx->line++;
				if (ch == '"' && *lx->p == '\\' && lx->p + 1 < lx->end)
					lx->p++;
				lx->p++;
			}
			if (lx->p >= lx->end)
				return lex_error(lx, "unterminated quote");
			lx->p++;
			word_start = 0;
			continue;
		}
		if (ch == '#' && word_start) {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
			continue;
		}
		if (ch == '$' && lx->p < lx->end && *lx->p == '{') {
			const char *close = memchr(lx->p, '}', (size_t)(lx->end - lx->p));
			if (!close)
				return lex_error(lx, "unterminated ${");
			lx->p = close + 1;
			word_start = 0;
			continue;
		}
		if (ch == '{')
			depth++;
		else if (ch == '}' && --depth == 0)
			return 0;
		word_start = ch == ' ' || ch == '\t' || ch == '\n' || ch == ';';
	}
	return lex_error(lx, "'{' without a matching '}'");
}

/*
 * Reads one command into c.  Returns 1 with a command, 0 at the end of
 * the text, -1 on error.  A `{` word ends the command; c->body is then
 * the block's text (the caller decides whether it is a menu entry).
 */
static int lex_cmd(struct lex *lx)
{
	struct gcmd *c = lx->c;

	c->argc = 0;
	c->used = 0;
	c->body = NULL;
	c->bodylen = 0;
	c->unset[0] = 0;
	lx->inword = 0;
	for (;;) {
		char ch;

		if (lx->p >= lx->end) {
			end_word(lx);
			return c->argc > 0;
		}
		ch = *lx->p;
		if (c->argc == 0 && !lx->inword)
			c->line = lx->line;
		if (ch == '\n' || ch == ';') {
			lx->p++;
			end_word(lx);
			if (ch == '\n')
				lx->line++;
			if (c->argc > 0)
				return 1;
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\r') {
			lx->p++;
			end_word(lx);
			continue;
		}
		if (ch == '#' && !lx->inword) {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
			continue;
		}
		if (ch == '\\') {
			if (lx->p + 1 >= lx->end) {
				lx->p++;
				continue;
			}
			lx->p += 2;
			if (lx->p[-1] == '\n') {
				lx->line++;
				continue;
			}
			if (put(lx, lx->p[-1]) < 0)
				return -1;
			continue;
		}
		if (ch == '\'') {
			const char *q = memchr(lx->p + 1, '\'', (size_t)(lx->end - lx->p - 1));
			if (!q)
				return lex_error(lx, "unterminated single quote");
			if (begin_word(lx) < 0)
				return -1;
			for (const char *s = lx->p + 1; s < q; s++) {
				if (*s == '\n')
					lx->line++;
				if (put(lx, *s) < 0)
					return -1;
			}
			lx->p = q + 1;
			continue;
		}
		if (ch == '"') {
			if (begin_word(lx) < 0)
				return -1;
			lx->p++;
			while (lx->p < lx->end && *lx->p != '"') {
				char d = *lx->p;
				if (d == '\\' && lx->p + 1 < lx->end &&
				    strchr("$\"\\\n", lx->p[1])) {
					lx->p += 2;
					if (lx->p[-1] == '\n')
						lx->line++;
					else if (put(lx, lx->p[-1]) < 0)
						return -1;
					continue;
				}
				if (d == '$') {
					if (expand(lx, 1) < 0)
						return -1;
					continue;
				}
				if (d == '\n')
					lx->line++;
				if (put(lx, d) < 0)
					return -1;
				lx->p++;
			}
			if (lx->p >= lx->end)
				return lex_error(lx, "unterminated double quote");
			lx->p++;
			continue;
		}
		if (ch == '$') {
			if (expand(lx, 0) < 0)
				return -1;
			continue;
		}
		if ((ch == '{' || ch == '}') && !lx->inword &&
		    (lx->p + 1 >= lx->end || strchr(" \t\r\n;", lx->p[1]))) {
			lx->p++;
			if (ch == '}') {
				if (c->argc > 0) {
					lx->p--;	/* ends this command first */
					end_word(lx);
					return 1;
				}
				if (put(lx, '}') < 0)
					return -1;
				end_word(lx);
				return 1;
			}
			end_word(lx);
			c->body = lx->p;
			c->bodyline = lx->line;
			if (skip_block(lx) < 0)
				return -1;
			c->bodylen = (size_t)(lx->p - 1 - c->body);
			return 1;
		}
		if (put(lx, ch) < 0)
			return -1;
		lx->p++;
	}
}

/* ---- commands ------------------------------------------------------------ */

/*
 * Calls fn for each command of text that runs: control words (if, then,
 * elif, else, fi, for, while, until, do, done) are handled here, and
 * commands in a skipped branch are dropped.  fn returns 0 or -1.
 */
typedef int (*cmd_fn)(struct gstate *st, struct gcmd *c, void *ctx);

static int is_word(const struct gcmd *c, const char *w)
{
	return c->argc > 0 && strcmp(c->argv[0], w) == 0;
}

static void shift(struct gcmd *c)
{
	memmove(c->argv, c->argv + 1, (size_t)c->argc * sizeof c->argv[0]);
	c->argc--;
}

static int walk(struct gstate *st, const char *text, size_t len, int line,
		cmd_fn fn, void *ctx)
{
	struct gcmd *c = malloc(sizeof *c);
	struct lex lx = { .p = text, .end = text + len, .line = line, .c = c, .st = st };
	int skip[MAX_IFS], nifs = 0, r;

	if (!c) {
		mt_seterr(st->err, st->errlen, "out of memory");
		return -1;
	}
	while ((r = lex_cmd(&lx)) > 0) {
		int taking = 1;

		while (is_word(c, "then") || is_word(c, "do"))
			shift(c);
		if (c->argc == 0)
			continue;
		for (int i = 0; i < nifs; i++)
			taking &= !skip[i];
		if (is_word(c, "if") || is_word(c, "for") || is_word(c, "while") ||
		    is_word(c, "until")) {
			if (nifs == MAX_IFS) {
				r = lex_error(&lx, "blocks nested too deeply");
				break;
			}
			skip[nifs++] = 0;
			continue;
		}
		if (is_word(c, "elif") || is_word(c, "else")) {
			if (nifs == 0) {
				r = lex_error(&lx, "else/elif without if");
				break;
			}
			skip[nifs - 1] = 1;
			continue;
		}
		if (is_word(c, "fi") || is_word(c, "done")) {
			if (nifs == 0) {
				r = lex_error(&lx, "fi/done without if/for/while");
				break;
			}
			nifs--;
			continue;
		}
		if (is_word(c, "}")) {
			r = lex_error(&lx, "'}' without a matching '{'");
			break;
		}
		if (taking && (r = fn(st, c, ctx)) < 0)
			break;
	}
	if (r == 0 && nifs > 0)
		r = lex_error(&lx, "if/for/while without fi/done");
	free(c);
	return r < 0 ? -1 : 0;
}

/* `set a=b ...` and `a=b`: 1 if c was an assignment, -1 on error. */
static int assignment(struct gstate *st, struct gcmd *c)
{
	int first = is_word(c, "set") ? 1 : 0;
	char *eq;

	if (!first) {
		eq = strchr(c->argv[0], '=');
		if (!eq || eq == c->argv[0])
			return 0;
		for (char *s = c->argv[0]; s < eq; s++)
			if (!name_char(*s))
				return 0;
	}
	for (int i = first; i < c->argc; i++) {
		if (!(eq = strchr(c->argv[i], '=')))
			continue;
		*eq = 0;
		if (setvar(st, c->argv[i], eq + 1, c->line) < 0)
			return -1;
		*eq = '=';
	}
	return 1;
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* menuentry/submenu arguments: the title and --id. */
static void entry_names(const struct gcmd *c, struct gentry *e)
{
	int have_title = 0;

	for (int i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];

		if (strcmp(a, "--id") == 0 && i + 1 < c->argc)
			copy(e->id, sizeof e->id, c->argv[++i]);
		else if (strncmp(a, "--id=", 5) == 0)
			copy(e->id, sizeof e->id, a + 5);
		else if ((strcmp(a, "--class") == 0 || strcmp(a, "--users") == 0 ||
			  strcmp(a, "--hotkey") == 0) && i + 1 < c->argc)
			i++;
		else if (strncmp(a, "--", 2) == 0)
			continue;
		else if (!have_title++)
			copy(e->title, sizeof e->title, a);
	}
}

static int menu_cmd(struct gstate *st, struct gcmd *c, void *ctx)
{
	int parent = *(int *)ctx, r;
	int is_sub = is_word(c, "submenu");
	struct gentry *e;

	if ((r = assignment(st, c)) != 0)
		return r < 0 ? -1 : 0;
	if (!is_sub && !is_word(c, "menuentry"))
		return 0;
	if (!c->body) {
		mt_seterr(st->err, st->errlen, "grub.cfg:%d: %s without a { } block",
			  c->line, c->argv[0]);
		return -1;
	}
	if (st->nentries == MAX_ENTRIES) {
		mt_seterr(st->err, st->errlen, "grub.cfg:%d: more than %d menu entries",
			  c->line, MAX_ENTRIES);
		return -1;
	}
	e = &st->entries[st->nentries++];
	memset(e, 0, sizeof *e);
	entry_names(c, e);
	e->parent = parent;
	e->submenu = is_sub;
	e->body = c->body;
	e->bodylen = c->bodylen;
	e->line = c->line;
	e->bodyline = c->bodyline;
	e->pos = 0;
	for (int i = 0; i < st->nentries - 1; i++)
		e->pos += st->entries[i].parent == parent;
	if (is_sub) {
		int me = st->nentries - 1;
		return walk(st, c->body, c->bodylen, c->bodyline, menu_cmd, &me);
	}
	return 0;
}

/* The entry `default` names, or -1 with err filled. */
static int find_default(struct gstate *st)
{
	const char *def = getvar(st, "default");
	char path[512], *save = NULL, *part;
	int cur = -1, found = -1;

	if (!def || !*def)
		def = "0";
	copy(path, sizeof path, def);
	for (part = strtok_r(path, ">", &save); part; part = strtok_r(NULL, ">", &save)) {
		int num = *part && strspn(part, "0123456789") == strlen(part);

		found = -1;
		for (int i = 0; i < st->nentries && found < 0; i++) {
			const struct gentry *e = &st->entries[i];
			if (e->parent != cur)
				continue;
			if (num ? e->pos == atoi(part)
				: strcmp(e->title, part) == 0 || (e->id[0] && strcmp(e->id, part) == 0))
				found = i;
		}
		if (found < 0)
			break;
		cur = found;
	}
	if (found < 0) {                /* also a path of only '>'s */
		if (st->nentries == 0)
			mt_seterr(st->err, st->errlen, "grub.cfg has no menuentry");
		else
			mt_seterr(st->err, st->errlen, "grub.cfg: default=\"%s\" names no menu "
				  "entry", def);
		return -1;
	}
	if (st->entries[found].submenu) {
		mt_seterr(st->err, st->errlen, "grub.cfg: default=\"%s\" is a submenu, not an "
			  "entry (write \"N>M\" to pick an entry inside it)", def);
		return -1;
	}
	return found;
}

/*
 * GRUB 2.06's command line of words (grub_create_loader_cmdline): joined
 * by spaces; \ ' " escaped with a backslash; a word holding a space
 * quoted with "...".
 */
static int join_words(char *const *w, int n, char *out, size_t len)
{
	size_t k = 0;

	for (int i = 0; i < n; i++) {
		int space = strchr(w[i], ' ') != NULL;

		if (k + 4 >= len)
			return -1;
		if (i)
			out[k++] = ' ';
		if (space)
			out[k++] = '"';
		for (const char *s = w[i]; *s; s++) {
			if (k + 4 >= len)
				return -1;
			if (*s == '\\' || *s == '\'' || *s == '"')
				out[k++] = '\\';
			out[k++] = *s;
		}
		if (space)
			out[k++] = '"';
	}
	out[k] = 0;
	return 0;
}

/* A file name of grub.cfg: "(hd0,msdos1)/boot/x" -> "/boot/x". */
static int file_path(const char *word, char *out, size_t len)
{
	if (*word == '(') {
		const char *close = strchr(word, ')');
		if (!close)
			return -1;
		word = close + 1;
	}
	if (!*word)
		return -1;
	return snprintf(out, len, "%s%s", *word == '/' ? "" : "/", word) < (int)len ? 0 : -1;
}

struct entry_ctx {
	struct mt_grub_boot *out;
	int have_kernel;
	char other[32];                 /* a linux/chainloader/multiboot2 line seen */
};

static int boot_line(struct gstate *st, struct gcmd *c, struct entry_ctx *x, int is_kernel)
{
	struct mt_grub_boot *o = x->out;
	int i = 1, nounzip = 0;
	char *path, *args;
	size_t pathlen, argslen;

	if (c->unset[0]) {
		mt_seterr(st->err, st->errlen, "grub.cfg:%d: %s line uses the variable '%s', which "
			  "grub.cfg does not set", c->line, c->argv[0], c->unset);
		return -1;
	}
	while (i < c->argc && strncmp(c->argv[i], "--", 2) == 0) {
		if (!is_kernel && strcmp(c->argv[i], "--nounzip") == 0)
			nounzip = 1;
		else if (!(is_kernel && strncmp(c->argv[i], "--quirk-", 8) == 0)) {
			mt_seterr(st->err, st->errlen, "grub.cfg:%d: %s option '%s' is not supported",
				  c->line, c->argv[0], c->argv[i]);
			return -1;
		}
		i++;
	}
	if (i >= c->argc) {
		mt_seterr(st->err, st->errlen, "grub.cfg:%d: %s without a file", c->line,
			  c->argv[0]);
		return -1;
	}
	if (is_kernel) {
		path = o->kernel, pathlen = sizeof o->kernel;
		args = o->kernel_args, argslen = sizeof o->kernel_args;
		o->nmodules = 0;        /* a second multiboot starts over, as in GRUB */
		x->have_kernel = 1;
	} else {
		if (!x->have_kernel) {
			mt_seterr(st->err, st->errlen, "grub.cfg:%d: module before multiboot",
				  c->line);
			return -1;
		}
		if (o->nmodules == MT_BOOT_MAX_MODULES) {
			mt_seterr(st->err, st->errlen, "grub.cfg:%d: more than %d modules", c->line,
				  MT_BOOT_MAX_MODULES);
			return -1;
		}
		path = o->modules[o->nmodules].path, pathlen = sizeof o->modules[0].path;
		args = o->modules[o->nmodules].args, argslen = sizeof o->modules[0].args;
		o->modules[o->nmodules++].nounzip = nounzip;
	}
	if (file_path(c->argv[i], path, pathlen) < 0) {
		mt_seterr(st->err, st->errlen, "grub.cfg:%d: bad file name '%s'", c->line,
			  c->argv[i]);
		return -1;
	}
	if (join_words(c->argv + i + 1, c->argc - i - 1, args, argslen) < 0) {
		mt_seterr(st->err, st->errlen, "grub.cfg:%d: %s line too long", c->line,
			  c->argv[0]);
		return -1;
	}
	return 0;
}

static int entry_cmd(struct gstate *st, struct gcmd *c, void *ctx)
{
	struct entry_ctx *x = ctx;
	int r;

	if ((r = assignment(st, c)) != 0)
		return r < 0 ? -1 : 0;
	if (is_word(c, "multiboot"))
		return boot_line(st, c, x, 1);
	if (is_word(c, "module"))
		return boot_line(st, c, x, 0);
	if (is_word(c, "multiboot2") || is_word(c, "module2")) {
		mt_seterr(st->err, st->errlen, "grub.cfg:%d: %s is not supported (multiboot 1 "
			  "only: GNU Mach boots with `multiboot`)", c->line, c->argv[0]);
		return -1;
	}
	if (is_word(c, "linux") || is_word(c, "chainloader") || is_word(c, "kfreebsd"))
		copy(x->other, sizeof x->other, c->argv[0]);
	return 0;
}

int mt_grub_parse(const char *text, struct mt_grub_boot *out, char *err, size_t errlen)
{
	struct gstate *st = calloc(1, sizeof *st);
	struct entry_ctx x = { .out = out };
	int top = -1, e, r = -1;

	if (!st) {
		mt_seterr(err, errlen, "out of memory");
		return -1;
	}
	memset(out, 0, sizeof *out);
	st->err = err;
	st->errlen = errlen;
	if (setvar(st, "grub_platform", "pc", 0) < 0 || setvar(st, "grub_cpu", "i386", 0) < 0)
		goto out;
	if (walk(st, text, strlen(text), 1, menu_cmd, &top) < 0)
		goto out;
	if ((e = find_default(st)) < 0)
		goto out;
	copy(out->title, sizeof out->title, st->entries[e].title);
	if (walk(st, st->entries[e].body, st->entries[e].bodylen, st->entries[e].bodyline,
		 entry_cmd, &x) < 0)
		goto out;
	if (!x.have_kernel) {
		mt_seterr(err, errlen, "grub.cfg:%d: menu entry '%s' has no multiboot line%s%s%s",
			  st->entries[e].line, out->title, x.other[0] ? " (it boots with `" : "",
			  x.other, x.other[0] ? "`: not a GNU Mach entry)" : "");
		goto out;
	}
	r = 0;
out:
	free_vars(st);
	free(st);
	return r;
}
