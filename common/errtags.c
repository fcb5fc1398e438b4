/* Names of the D error tags, from the one list in <machtrace/errtags.h>. */
#include <stddef.h>
#include "machtrace/errtags.h"

static const char *const dtag_names[MT_DTAG_COUNT] = {
#define MT_DTAG_NAME(t) [t] = #t,
	MT_DTAGS(MT_DTAG_NAME)
#undef MT_DTAG_NAME
};

const char *mt_dtag_name(enum mt_dtag tag)
{
	if ((unsigned)tag >= MT_DTAG_COUNT)
		return NULL;
	return dtag_names[tag];
}
