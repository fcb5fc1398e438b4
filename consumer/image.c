/*
 * The enabling image as the consumer reads it: its strings and the probe
 * behind an enabled probe id.  Used by record.c (record headers, flow
 * indent, errors) and actions.c (action output); in a file of its own so
 * that the calls go one way only, record.c -> actions.c (do_action).
 */
#include "impl.h"

/* The image's string at strtab offset off; "" past the table. */
const char *
img_str(const struct mt_consumer *c, uint32_t off)
{
	const char *tab = (const char *)c->img + c->img->strtab_off;

	return off < c->img->strtab_size ? tab + off : "";
}

/* The probe of enabled probe id epid and its ECB; NULL if none. */
const struct mt_probe *
probe_of_epid(const struct mt_consumer *c, uint32_t epid,
	      const struct mt_ecb **ecbp)
{
	const struct mt_ecb *ecbs;
	const struct mt_probe *probes;

	if (epid == 0 || epid > c->img->necbs)
		return NULL;
	ecbs = (const void *)((const char *)c->img + c->img->ecbs_off);
	probes = (const void *)((const char *)c->img + c->img->probes_off);
	*ecbp = &ecbs[epid - 1];
	if ((*ecbp)->probe >= c->img->nprobes)
		return NULL;
	return &probes[(*ecbp)->probe];
}
