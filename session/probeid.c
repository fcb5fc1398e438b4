/*
 * dtrace -i ID: the probe with that id in the catalog -l prints, the
 * kernel's when it can be read, else the local target's.
 */
#include <string.h>
#include "machtrace/session.h"

struct id_find {
	uint32_t id;
	char *desc;
	size_t len;
	int found;
};

static int
id_match(void *arg, const struct mt_probe_info *p)
{
	struct id_find *f = arg;

	if (p->id == f->id && !f->found) {
		snprintf(f->desc, f->len, "%s:%s:%s:%s", p->prov, p->mod, p->func,
			 p->name);
		f->found = 1;
	}
	return 0;
}

int
mt_session_probe_by_id(struct mt_session *s, uint32_t id, char *desc, size_t len)
{
	struct mt_pdesc all = { "", "", "", "", 0 };
	struct id_find f = { id, desc, len, 0 };
	struct mt_target *t;
	char err[512];

	if ((t = mt_session_catalog(s, err, sizeof(err))) != NULL) {
		t->ops->probes(t, &all, 0, id_match, &f);
		mt_target_free(t);
	}
	if (!f.found && (t = mt_local_target_new()) != NULL) {
		t->ops->probes(t, &all, 0, id_match, &f);
		mt_target_free(t);
	}
	return f.found ? 0 : -1;
}
