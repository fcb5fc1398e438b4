/*
 * Between the local target (local.c) and its mt_plat_* hooks (plat.c).
 */
#ifndef MT_TARGETS_LOCAL_H
#define MT_TARGETS_LOCAL_H

#include <stdint.h>

struct mt_cb;
struct mt_image;

/* Set up the hooks' state at attach, so probe context never does I/O. */
void mt_local_plat_init(void);
/* A firing starts / ends (vtimestamp leaves out the time between). */
void mt_local_plat_fire_start(void);
void mt_local_plat_fire_end(void);

/* The runtime's state area: below 2 GiB when the system can (jit.c). */
void *mt_local_area_alloc(uint64_t size);
void mt_local_area_free(void *area, uint64_t size);

/* The probes of the runtime at cb (its area of size bytes), compiled
   (jit.c); NULL: none is. */
struct local_jit;
struct local_jit *mt_local_jit_new(struct mt_cb *cb, const struct mt_image *img, uint64_t size);
/* Fire probe pi through its code: 0 if it ran, else the interpreter must. */
int mt_local_jit_fire(const struct local_jit *lj, uint32_t pi, const uint64_t *args);
void mt_local_jit_free(struct local_jit *lj);

#endif
