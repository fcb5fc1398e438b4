/*
 * Between the local target (local.c) and its mt_plat_* hooks (plat.c).
 */
#ifndef MT_TARGETS_LOCAL_H
#define MT_TARGETS_LOCAL_H

/* Set up the hooks' state at attach, so probe context never does I/O. */
void mt_local_plat_init(void);

#endif
