/* The growable array of include/machtrace/vec.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "machtrace/vec.h"

int
mt_vec_reserve(void *arrp, size_t *cap, size_t need, size_t sz, size_t first)
{
	size_t ncap = *cap ? *cap : (first ? first : 1);
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			goto nomem;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / sz)
		goto nomem;
	memcpy(&p, arrp, sizeof(p));	/* arrp: the address of any T * */
	if ((p = realloc(p, ncap * sz)) == NULL)
		return -1;
	memcpy(arrp, &p, sizeof(p));
	*cap = ncap;
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}
