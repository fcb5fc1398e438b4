/* Serial console and the few libc-like helpers the freestanding shim needs. */
#include "shim.h"

#define COM1 0x3f8

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

void con_init(void)
{
	outb(COM1 + 1, 0);      /* no interrupts */
	outb(COM1 + 3, 0x80);   /* DLAB */
	outb(COM1 + 0, 1);      /* 115200 baud */
	outb(COM1 + 1, 0);
	outb(COM1 + 3, 3);      /* 8N1 */
}

static void con_putc(char c)
{
	if (c == '\n')
		con_putc('\r');
	while (!(inb(COM1 + 5) & 0x20))
		;
	outb(COM1, (uint8_t)c);
}

void con_puts(const char *s)
{
	while (*s)
		con_putc(*s++);
}

void con_hex(uint64_t v)
{
	int shift = 60;

	con_puts("0x");
	while (shift > 0 && !((v >> shift) & 15))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		con_putc("0123456789abcdef"[(v >> shift) & 15]);
}

void die(const char *why)
{
	con_puts("shim: error: ");
	con_puts(why);
	con_puts("\n");
	for (;;)
		__asm__ volatile("cli; hlt");
}

void *memcpy(void *d, const void *s, uint32_t n)
{
	char *dp = d;
	const char *sp = s;

	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memset(void *d, int c, uint32_t n)
{
	char *dp = d;

	while (n--)
		*dp++ = (char)c;
	return d;
}

uint32_t strlen(const char *s)
{
	uint32_t n = 0;

	while (s[n])
		n++;
	return n;
}

int strneq(const char *a, const char *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (a[i] != b[i])
			return 0;
		if (!a[i])
			return 1;
	}
	return 1;
}

/* The text following `prefix` where a blank-separated word of s starts with it. */
const char *find_word(const char *s, const char *prefix)
{
	uint32_t n = strlen(prefix);

	for (const char *p = s; p && *p; p++)
		if ((p == s || p[-1] == ' ') && strneq(p, prefix, n))
			return p + n;
	return 0;
}

/* Decimal or 0x-hex; returns the first unparsed character, 0 on no digits. */
const char *parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	int base = 10, digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (;; s++, digits++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		x = x * base + d;
	}
	*v = x;
	return digits ? s : 0;
}
