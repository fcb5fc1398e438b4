/*
 * Guest memory writes through QEMU's gdbstub (the VM's gdb.sock).
 * Unlike writes through the shared RAM file, these make TCG drop the
 * translated code of the bytes written.  Connecting stops the VM; the
 * writes use physical addresses (qemu.PhyMemMode); "D" (detach) resumes
 * it.  A session that dies in between leaves the VM paused: the next one
 * resumes it (QMP cont, live/vmattach.c).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "machtrace/vm.h"
#include "targets/mach/mach_int.h"
#include "targets/mach/vm/vm_int.h"

#define GDB_MS		3000
#define GDB_CHUNK	512	/* bytes per M packet (QEMU's packet limit is 4096) */

static int gdb_getc(int fd)
{
	unsigned char c;

	return vm_sock_read(fd, &c, 1, GDB_MS) == 1 ? c : -1;
}

/* The next packet's data into ans (acked); -1 on timeout. */
static int gdb_packet(int fd, char *ans, size_t len)
{
	size_t used = 0;
	int c;

	while ((c = gdb_getc(fd)) != '$')	/* '+' acks */
		if (c < 0)
			return -1;
	while ((c = gdb_getc(fd)) != '#') {
		if (c < 0)
			return -1;
		if (used < len - 1)
			ans[used++] = (char)c;
	}
	ans[used] = 0;
	if (gdb_getc(fd) < 0 || gdb_getc(fd) < 0)
		return -1;
	return mt_write_all(fd, "+", 1);
}

/*
 * Send $pkt#cs and read its reply into ans.  The stop reply QEMU sends
 * when a client connects (the VM stopped: "T02thread:01;") comes first
 * and is skipped: no reply of the packets used here starts with 'T'.
 */
static int gdb_cmd(int fd, const char *pkt, char *ans, size_t len)
{
	char buf[2 * GDB_CHUNK + 64];
	unsigned cs = 0;

	for (const char *p = pkt; *p; p++)
		cs += (unsigned char)*p;
	snprintf(buf, sizeof buf, "$%s#%02x", pkt, cs & 0xff);
	if (mt_write_all(fd, buf, strlen(buf)) < 0)
		return -1;
	do
		if (gdb_packet(fd, ans, len) < 0)
			return -1;
	while (ans[0] == 'T' || ans[0] == 'S');
	return 0;
}

static int gdb_poke(int fd, const struct mt_vm_poke *p, uint64_t va_base)
{
	char pkt[2 * GDB_CHUNK + 64], ans[64];

	for (uint32_t off = 0; off < p->len; off += GDB_CHUNK) {
		uint32_t n = p->len - off < GDB_CHUNK ? p->len - off : GDB_CHUNK;
		int k = snprintf(pkt, sizeof pkt, "M%llx,%x:",
				 (unsigned long long)(p->pa + va_base + off), n);
		for (uint32_t i = 0; i < n; i++)
			k += snprintf(pkt + k, sizeof pkt - k, "%02x", p->bytes[off + i]);
		if (gdb_cmd(fd, pkt, ans, sizeof ans) < 0 || strcmp(ans, "OK") != 0)
			return -1;
	}
	return 0;
}

int mt_vm_gdb_write(const struct mt_vm *vm, const struct mt_vm_poke *p, int n,
		    uint64_t kva_base, char *err, size_t errlen)
{
	char path[PATH_MAX], ans[64];
	uint64_t base = 0;
	int fd, rc = 0;

	if (mt_vm_path(vm, "gdb.sock", path, sizeof path) < 0 ||
	    (fd = vm_sock_connect(path, err, errlen)) < 0)
		return -1;
	/* physical addresses when the stub has them, else kernel VAs
	   (mapped in every address space) */
	if (gdb_cmd(fd, "Qqemu.PhyMemMode:1", ans, sizeof ans) < 0) {
		rc = -1;
	} else {
		if (strcmp(ans, "OK") != 0)
			base = kva_base;
		for (int i = 0; i < n && rc == 0; i++)
			rc = gdb_poke(fd, &p[i], base);
		if (base == 0)
			gdb_cmd(fd, "Qqemu.PhyMemMode:0", ans, sizeof ans);
	}
	if (gdb_cmd(fd, "D", ans, sizeof ans) < 0 && rc == 0)
		rc = -2;
	close(fd);
	if (rc == -1)
		mt_seterr(err, errlen, "vm %s: writing guest memory through the gdbstub failed",
			  vm->name);
	else if (rc == -2)
		mt_seterr(err, errlen, "vm %s: the gdbstub did not detach", vm->name);
	return rc < 0 ? -1 : 0;
}
