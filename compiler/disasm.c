/*
 * -S: print each DIFO of the program in dtrace's listing style
 * (OFF OPCODE INSTRUCTION), with the variable and string tables.
 */
#include <stdio.h>
#include "cc.h"

static const char *opnames[MT_OP__COUNT] = {
	"nop", "or", "xor", "and", "sll", "srl", "sra", "sub", "add", "mul",
	"sdiv", "udiv", "srem", "urem", "not", "mov", "cmp", "tst", "scmp",
	"ba", "be", "bne", "bg", "bgu", "bge", "bgeu", "bl", "blu", "ble",
	"bleu", "ldsb", "ldsh", "ldsw", "ldub", "lduh", "lduw", "ldx", "stb",
	"sth", "stw", "stx", "ret", "setx", "sets", "ldgs", "stgs", "ldts",
	"stts", "ldls", "stls", "ldga", "ldgaa", "stgaa", "ldtaa", "sttaa",
	"call", "pushtr", "pushtv", "popts", "flushts", "allocs", "copys",
};

static const char *subrnames[MT_SUBR__COUNT] = {
	"rand", "mutex_owned", "mutex_owner", "mutex_type_adaptive",
	"mutex_type_spin", "rw_read_held", "rw_write_held", "rw_iswriter",
	"copyin", "copyinstr", "speculation", "progenyof", "strlen", "copyout",
	"copyoutstr", "alloca", "bcopy", "copyinto", "msgdsize", "msgsize",
	"getmajor", "getminor", "ddi_pathname", "strjoin", "lltostr",
	"basename", "dirname", "cleanpath", "strchr", "strrchr", "strstr",
	"strtok", "substr", "index", "rindex", "htons", "htonl", "htonll",
	"ntohs", "ntohl", "ntohll", "inet_ntop", "inet_ntoa", "inet_ntoa6",
	"toupper", "tolower", "getf", "strtoll", "link_ntop", "d_path", "strcmp", "arridx",
	"mach_msgname", "mach_msgsubsystem",
	"mach_pid", "mach_tid", "mach_execname", "allocastr",
};

static const char *bvarnames[] = {
	"curthread", "timestamp", "vtimestamp", "ipl", "epid", "id", "arg0",
	"arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7", "arg8", "arg9",
	"stackdepth", "caller", "probeprov", "probemod", "probefunc",
	"probename", "pid", "tid", "execname", "zonename", "walltimestamp",
	"ustackdepth", "ucaller", "ppid", "uid", "gid", "errno", "curcpu",
	"cpu", "execargs", "task",
};

/* "! name" comment for variables: built-ins and the program's own */
static const char *var_name(const struct mt_prog *p, unsigned op, unsigned v)
{
	int scope = op == MT_OP_LDTS || op == MT_OP_STTS || op == MT_OP_LDTAA ||
		    op == MT_OP_STTAA ? 1 : op == MT_OP_LDLS || op == MT_OP_STLS ? 2 : 0;
	if (v >= MT_VAR_CURTHREAD && v < MT_VAR_BUILTIN_END)
		return bvarnames[v - MT_VAR_CURTHREAD];
	for (uint32_t i = 0; i < p->nvars; i++)
		if (p->vars[i].id == v && p->vars[i].scope == scope && p->var_names)
			return p->var_names[i];
	return "?";
}

static void disasm_instr(const struct mt_prog *p, mt_instr_t i, char *buf,
			 size_t n)
{
	unsigned op = MT_OP(i);
	const char *nm = op < MT_OP__COUNT ? opnames[op] : "???";
	unsigned r1 = MT_R1(i), r2 = MT_R2(i), rd = MT_RD(i), v = MT_V16(i);
	if (op >= MT_OP_OR && op <= MT_OP_UREM && op != MT_OP_NOT)
		snprintf(buf, n, "%-8s %%r%u, %%r%u, %%r%u", nm, r1, r2, rd);
	else if (op == MT_OP_NOT || op == MT_OP_MOV)
		snprintf(buf, n, "%-8s %%r%u, %%r%u", nm, r1, rd);
	else if (op == MT_OP_CMP || op == MT_OP_SCMP)
		snprintf(buf, n, "%-8s %%r%u, %%r%u", nm, r1, r2);
	else if (op == MT_OP_TST)
		snprintf(buf, n, "%-8s %%r%u", nm, r1);
	else if (op >= MT_OP_BA && op <= MT_OP_BLEU)
		snprintf(buf, n, "%-8s %u", nm, MT_LABEL(i));
	else if (op >= MT_OP_LDSB && op <= MT_OP_LDX)
		snprintf(buf, n, "%-8s [%%r%u], %%r%u", nm, r1, rd);
	else if (op >= MT_OP_STB && op <= MT_OP_STX)
		snprintf(buf, n, "%-8s %%r%u, [%%r%u]", nm, r1, rd);
	else if (op == MT_OP_RET)
		snprintf(buf, n, "%-8s %%r%u", nm, rd);
	else if (op == MT_OP_SETX)
		snprintf(buf, n, "%-8s 0x%llx, %%r%u", nm,
			 v < p->nints ? (unsigned long long)p->ints[v] : 0ULL, rd);
	else if (op == MT_OP_SETS)
		snprintf(buf, n, "%-8s %u, %%r%u\t! \"%s\"", nm, v, rd,
			 v < p->strtab_size ? p->strtab + v : "");
	else if (op == MT_OP_LDGA)
		snprintf(buf, n, "%-8s %u, %%r%u, %%r%u", nm, r1, r2, rd);
	else if ((op >= MT_OP_LDGS && op <= MT_OP_STLS) ||
		 (op >= MT_OP_LDGAA && op <= MT_OP_STTAA))
		snprintf(buf, n, "%-8s DT_VAR(%u), %%r%u\t! %s", nm, v, rd,
			 var_name(p, op, v));
	else if (op == MT_OP_CALL)
		snprintf(buf, n, "%-8s DIF_SUBR(%u), %%r%u\t! %s", nm, v, rd,
			 v < MT_SUBR__COUNT ? subrnames[v] : "unknown");
	else if (op == MT_OP_PUSHTR)
		snprintf(buf, n, "%-8s %u, %%r%u, %%r%u", nm, r1, r2, rd);
	else if (op == MT_OP_PUSHTV)
		snprintf(buf, n, "%-8s %u, %%r%u", nm, r1, rd);
	else if (op == MT_OP_ALLOCS)
		snprintf(buf, n, "%-8s %%r%u, %%r%u", nm, r1, rd);
	else if (op == MT_OP_COPYS)
		snprintf(buf, n, "%-8s %%r%u, %%r%u, %%r%u", nm, r1, r2, rd);
	else
		snprintf(buf, n, "%s", nm);
}

static void difo(const struct mt_prog *p, uint32_t idx, const char *what, FILE *out)
{
	const struct mt_difo *d = &p->difos[idx - 1];
	static const char *rt[] = { "int", "string", "ref" };
	fprintf(out, "\nDIFO %u (%s) returns %s, %u instructions\n", idx, what,
		d->rtype < 3 ? rt[d->rtype] : "?", d->ntext);
	fprintf(out, "OFF OPCODE      INSTRUCTION\n");
	for (uint32_t i = 0; i < d->ntext; i++) {
		char buf[128];
		mt_instr_t in = p->text[d->text0 + i];
		disasm_instr(p, in, buf, sizeof(buf));
		fprintf(out, "%02u: %08x    %s\n", i, in, buf);
	}
}

void mt_disasm(const struct mt_prog *p, FILE *out)
{
	for (uint32_t c = 0; c < p->nclauses; c++) {
		const struct mt_clause *cl = &p->clauses[c];
		fprintf(out, "\nClause %u:", c);
		if (p->clause_info)
			for (uint32_t k = 0; k < p->clause_info[c].npdescs; k++) {
				const struct mt_pdesc *pd = &p->clause_info[c].pdescs[k];
				fprintf(out, " %s:%s:%s:%s", pd->prov, pd->mod, pd->func, pd->name);
			}
		fprintf(out, "\n");
		if (cl->pred_difo)
			difo(p, cl->pred_difo, "predicate", out);
		for (uint32_t a = cl->act0; a < cl->act0 + cl->nacts; a++) {
			const struct mt_action *ac = &p->actions[a];
			for (uint32_t r = ac->rec0; r < ac->rec0 + ac->nrecs; r++)
				if (p->recs[r].difo) {
					char what[64];
					snprintf(what, sizeof(what), "action %u kind %u rec %u",
						 a - cl->act0, ac->kind, r - ac->rec0);
					difo(p, p->recs[r].difo, what, out);
				}
		}
	}
	if (p->nvars) {
		fprintf(out, "\nNAME                 ID     KND SCP FLAG TYPE\n");
		for (uint32_t v = 0; v < p->nvars; v++)
			fprintf(out, "%-20s %-6x %-3s %-3s %-4x %u bytes\n",
				p->var_names ? p->var_names[v] : "?", p->vars[v].id,
				p->vars[v].kind ? "arr" : "scl",
				p->vars[v].scope == 0 ? "glb" : p->vars[v].scope == 1 ? "tls" : "loc",
				p->vars[v].flags, p->vars[v].size);
	}
}
