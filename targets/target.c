/*
 * What every target shares (include/machtrace/program.h, struct
 * mt_target): freeing one and reading its last error.  The targets
 * themselves are targets/local/ (the runtime hosted in this process) and
 * targets/mach/ (GNU Mach in QEMU).
 */
#include <stdlib.h>
#include "machtrace/program.h"

/*
 * Free a target: detach (every target's detach is idempotent), then its
 * private state, by its own free op or, without one, as one malloc'd
 * block.
 */
void mt_target_free(struct mt_target *t)
{
	if (!t)
		return;
	if (t->ops && t->ops->detach && t->priv)
		t->ops->detach(t);
	if (t->ops && t->ops->free && t->priv)
		t->ops->free(t);
	else
		free(t->priv);
	free(t);
}

const char *mt_target_error(struct mt_target *t)
{
	return t ? t->err : "no target";
}
