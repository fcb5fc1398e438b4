/*
 * Console output of a task: lines are collected in a buffer and written
 * with device_write_inband (at most 128 bytes per message) on "\n" or when
 * full.  Only one thread may print.
 */
#include "mach.h"

#define INBAND_MAX 128

static mach_port_t con_dev;
static char buf[INBAND_MAX];
static u32 used;

void con_open(mach_port_t device_master)
{
	if (device_open(device_master, D_READ | D_WRITE, "console", &con_dev))
		con_dev = 0;
}

void con_flush(void)
{
	int written;

	if (con_dev && used)
		device_write_inband(con_dev, 0, 0, buf, used, &written);
	used = 0;
}

static void con_putc(char c)
{
	buf[used++] = c;
	if (c == '\n' || used == INBAND_MAX)
		con_flush();
}

void con_puts(const char *s)
{
	while (*s)
		con_putc(*s++);
}

void con_dec(long v)
{
	char b[24];
	int i = sizeof b - 1;
	u64 x = v < 0 ? -(u64)v : (u64)v;

	b[i] = 0;
	do {
		b[--i] = (char)('0' + x % 10);
		x /= 10;
	} while (x);
	if (v < 0)
		b[--i] = '-';
	con_puts(b + i);
}

void con_hex(u64 v)
{
	char b[19];

	b[0] = '0';
	b[1] = 'x';
	for (int i = 0; i < 16; i++)
		b[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
	b[18] = 0;
	con_puts(b);
}
