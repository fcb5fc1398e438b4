/* The C types of machload.defs' own MIG types. */
#ifndef MACHLOAD_TYPES_H
#define MACHLOAD_TYPES_H

typedef char machload_text_t[32];
typedef const char *const_machload_text_t;	/* MIG's in-argument type */

#endif
