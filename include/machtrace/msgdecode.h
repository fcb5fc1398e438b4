/*
 * GNU Mach message bodies decoded from their type descriptors, as rpctrace
 * decodes them, and the hex dumps tracemem() prints read back into bytes
 * (output/msg/msgdecode.c; rpcsnoop's `machtrace msgdecode` filter).
 */
#ifndef MACHTRACE_MSGDECODE_H
#define MACHTRACE_MSGDECODE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The items of a message body (the bytes after mach_msg_header_t, in an
 * x86_64 kernel's ipc_kmsg: ports are copied in, so a port item holds
 * the kernel's port address) as text, space-separated, into out (len
 * bytes, NUL-terminated), the first skip items left out (a reply's
 * RetCode).  Integers in decimal, arrays as [1 2 3], strings quoted,
 * port rights as RIGHT:0xADDR, out-of-line data as ool(BYTES), a body
 * cut short by tracemem's bound as "...".  Returns the number of items
 * shown, or -1 when the bytes are not typed items (then out holds
 * "N bytes").
 */
int mt_msg_decode(const uint8_t *body, size_t n, int skip, char *out, size_t len);

/*
 * One line of tracemem()'s hex dump (consumer/print.c's
 * mt_print_rawbytes): its bytes stored at their offset in buf (cap
 * bytes), *end raised to the offset past the last.  Returns 1 for a line
 * of bytes, 0 for the dump's column header or its blank first line, -1
 * for any other line.
 */
int mt_msg_hexline(const char *line, uint8_t *buf, size_t cap, size_t *end);

#endif
