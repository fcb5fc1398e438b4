/*
 * The one growable array of the host code (common/vec.c): an array the
 * caller owns as a pointer, a count and a capacity in elements, whose
 * capacity doubles, from first, until it holds what is needed.
 */
#ifndef MACHTRACE_VEC_H
#define MACHTRACE_VEC_H

#include <stddef.h>

/* Make *arrp (elements of sz bytes, *cap of them) hold at least need
   elements; 0, or -1 when memory runs out or the size overflows (the
   array and *cap unchanged). */
int mt_vec_reserve(void *arrp, size_t *cap, size_t need, size_t sz,
		   size_t first);

/* Room for one more element after the n in arr (capacity cap, a size_t). */
#define MT_VEC_ROOM(arr, n, cap, first) \
	mt_vec_reserve(&(arr), &(cap), (size_t)(n) + 1, sizeof(*(arr)), (first))

#endif
