/*
 * GNU Mach message bodies decoded from their type descriptors (the
 * x86_64 layout of gnumach's <mach/message.h>), and tracemem()'s hex
 * dump read back into bytes.
 *
 * On x86_64 a descriptor is 8 bytes, the long form the same 8 bytes:
 *   bits 0-7 msgt_name, 8-23 msgt_size (bits per element), 29
 *   msgt_inline, 30 msgt_longform, 31 msgt_deallocate; then the 32-bit
 *   msgt_number.
 * Inline data follows it (number * size bits), an out-of-line item's
 * data is its 8-byte address; the next descriptor starts at the next
 * multiple of 8.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "machtrace/esc.h"
#include "machtrace/msgdecode.h"

#define MSG_ALIGN	8
#define MAX_ELEMS	16	/* array elements shown before "..." */

enum {
	T_STRING = 12, T_PORT_NAME = 15,
	T_MOVE_RECEIVE = 16, T_MAKE_SEND_ONCE = 21,
	T_CHAR = 8
};

static const char *const port_rights[] = {
	"receive", "send", "send-once", "copy-send", "make-send", "make-send-once"
};

struct out {
	char *p;
	size_t len, used;
};

static void
put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->used >= o->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n < o->len - o->used ? (size_t)n : o->len - o->used - 1;
}

static uint64_t
le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

/* A quoted string of at most n bytes, ending at its NUL. */
static void
put_string(struct out *o, const uint8_t *p, size_t n)
{
	char raw[256], esc[1024];
	size_t k = strnlen((const char *)p, n < sizeof(raw) - 1 ? n : sizeof(raw) - 1);

	memcpy(raw, p, k);
	raw[k] = '\0';
	put(o, "\"%s\"", mt_esc_str(esc, sizeof(esc), raw));
}

/* One element of an item: an integer of its size, or a port. */
static void
put_elem(struct out *o, unsigned name, unsigned bits, const uint8_t *p)
{
	unsigned bytes = bits / 8;
	uint64_t v = le(p, bytes);

	if (name >= T_MOVE_RECEIVE && name <= T_MAKE_SEND_ONCE) {
		if (v)
			put(o, "%s:%#llx", port_rights[name - T_MOVE_RECEIVE],
			    (unsigned long long)v);
		else
			put(o, "0");
	} else if (bytes < 8 && name != T_PORT_NAME) {	/* signed */
		put(o, "%lld", (long long)(v ^ 1ULL << (bits - 1)) -
		    (long long)(1ULL << (bits - 1)));
	} else {
		put(o, "%llu", (unsigned long long)v);
	}
}

/* Characters, shown as a string: a C string, or a char array. */
static int
is_text(unsigned name, unsigned bits, uint32_t number)
{
	return name == T_STRING || (name == T_CHAR && (uint64_t)number * bits > 8);
}

/* The inline data of one item, whose elements are all present. */
static void
put_inline(struct out *o, unsigned name, unsigned bits, uint32_t number,
	   const uint8_t *p)
{
	uint32_t i;

	if (is_text(name, bits, number)) {
		put_string(o, p, (size_t)number * bits / 8);
		return;
	}
	if (number != 1)
		put(o, "[");
	for (i = 0; i < number && i < MAX_ELEMS; i++) {
		put(o, i ? " " : "");
		put_elem(o, name, bits, p + (size_t)i * bits / 8);
	}
	if (number != 1)
		put(o, number > MAX_ELEMS ? " ...]" : "]");
}

int
mt_msg_decode(const uint8_t *body, size_t n, int skip, char *out, size_t len)
{
	struct out o = { out, len, 0 };
	size_t at = 0;
	int items = 0;

	if (len)
		out[0] = '\0';
	while (at + 8 <= n) {
		uint32_t w = (uint32_t)le(body + at, 4), number = (uint32_t)le(body + at + 4, 4);
		unsigned name = w & 0xff, bits = (w >> 8) & 0xffff, inl = (w >> 29) & 1;
		uint64_t bytes = inl ? ((uint64_t)number * bits + 7) / 8 : 8;

		if (bits == 0 || name > T_MAKE_SEND_ONCE ||
		    (!is_text(name, bits, number) && (bits > 64 || (bits % 8 && number > 1)))) {
			snprintf(out, len, "%zu bytes", n);
			return -1;
		}
		at += 8;
		if (items++ >= skip) {
			put(&o, o.used ? " " : "");
			if (!inl)
				put(&o, "ool(%llu)", (unsigned long long)number * bits / 8);
			else if (bytes > n - at)
				put(&o, "...");
			else
				put_inline(&o, name, bits < 8 ? 8 : bits, number, body + at);
		}
		if (bytes > n - at)
			return items - skip;
		at += (bytes + MSG_ALIGN - 1) & ~(uint64_t)(MSG_ALIGN - 1);
	}
	if (at < n && items >= skip)
		put(&o, o.used ? " ..." : "...");
	return items > skip ? items - skip : 0;
}

int
mt_msg_hexline(const char *line, uint8_t *buf, size_t cap, size_t *end)
{
	const char *p = line;
	unsigned long off;
	char *e;
	int k;

	while (*p == ' ')
		p++;
	if (*p == '\0' || *p == '\n' || strncmp(p, "0  1  2", 7) == 0)
		return 0;
	off = strtoul(p, &e, 16);
	if (e == p || *e != ':' || off % 16)
		return -1;
	for (p = e + 1, k = 0; k < 16 && p[0] == ' ' && isxdigit((unsigned char)p[1]) &&
	     isxdigit((unsigned char)p[2]); p += 3, k++) {
		if (off + k < cap)
			buf[off + k] = (uint8_t)strtoul((char[3]){ p[1], p[2], 0 }, NULL, 16);
	}
	if (k && off + k > *end)
		*end = off + k < cap ? off + k : cap;
	return 1;
}
