/*
 * The kernel image reader on the stock kernel (build/kernel/gnumach-dbg,
 * fetched by scripts/setup.sh): functions, patchability, returns, argument
 * types and struct layouts as the DWARF of gnumach 2:1.8+git20250702-1
 * has them, and the errors for files that are not such a kernel.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machtrace/kimg.h"
#include "machtrace/mach.h"
#include "targets/mach/image/kimg_int.h"
#include "tests/unit/mach/stock_kernel.h"
#include "tests/unit/mt_test.h"

static const char *argtype(const char *func, int i)
{
	const struct mt_kfunc *f = mt_kimg_lookup(kernel(), func);

	return f && i < f->nargs ? f->args[i].type : NULL;
}

TEST(kimg_opens_stock_kernel)
{
	CHECK(kernel() != NULL);
	CHECK(mt_kimg_nfuncs(kernel()) > 1800);
}

TEST(kimg_key_functions_take_jmp)
{
	static const char *const names[] = { "thread_invoke", "mach_msg_trap", "vm_fault" };

	CHECK(kernel());
	for (int i = 0; i < 3; i++) {
		const struct mt_kfunc *f = mt_kimg_lookup(kernel(), names[i]);
		CHECK(f != NULL);
		CHECK_EQ_INT(f->patch, MT_PATCH_JMP);
		CHECK(f->displaced >= 5 && f->displaced <= 16);
		CHECK(f->nrets >= 1);
	}
}

TEST(kimg_returns_are_ret_instructions)
{
	size_t checked = 0;

	CHECK(kernel());
	for (size_t i = 0; i < mt_kimg_nfuncs(kernel()); i++) {
		const struct mt_kfunc *f = mt_kimg_func(kernel(), i);
		for (unsigned r = 0; r < f->nrets; r++) {
			const uint8_t *b = mt_kimg_bytes(kernel(), f->addr + f->rets[r], 1);
			CHECK(b != NULL);
			CHECK(b[0] == 0xc3 || b[0] == 0xc2 || (b[0] == 0xf3 && b[1] == 0xc3));
			checked++;
		}
	}
	CHECK(checked > 1500);
}

TEST(kimg_entry_probes_at_least_1500)
{
	size_t n = 0;

	CHECK(kernel());
	for (size_t i = 0; i < mt_kimg_nfuncs(kernel()); i++)
		n += mt_kimg_func(kernel(), i)->patch != MT_PATCH_REFUSED;
	CHECK(n >= 1500);
}

TEST(kimg_argument_types_match_dwarf)
{
	CHECK(kernel());
	CHECK_EQ_STR(argtype("vm_fault", 0), "vm_map_t");
	CHECK_EQ_STR(argtype("vm_fault", 1), "vm_offset_t");
	CHECK_EQ_STR(argtype("vm_fault", 5), "vm_fault_continuation_t");
	CHECK_EQ_STR(argtype("mach_msg_trap", 0), "mach_msg_user_header_t *");
	CHECK_EQ_STR(argtype("thread_invoke", 1), "continuation_t");
	CHECK_EQ_STR(argtype("ipc_mqueue_send", 0), "ipc_kmsg_t");
	CHECK_EQ_STR(argtype("biosmem_bootstrap", 0), "const struct multiboot_raw_info *");
	CHECK_EQ_STR(mt_kimg_lookup(kernel(), "thread_invoke")->rettype, "boolean_t");
	CHECK_EQ_INT(mt_kimg_lookup(kernel(), "mach_msg_trap")->nargs, 7);
	CHECK_EQ_STR(mt_kimg_lookup(kernel(), "mach_msg_trap")->args[4].name, "rcv_name");
	CHECK(mt_kimg_lookup(kernel(), "printf")->varargs);
}

TEST(kimg_struct_layouts)
{
	uint64_t off, size;
	char type[128];

	CHECK(kernel());
	CHECK(mt_kimg_member(kernel(), "thread", "state", &off, type, sizeof type) == 0);
	CHECK_EQ_INT(off, 48);
	CHECK(mt_kimg_struct_size(kernel(), "ipc_port", &size) == 0);
	CHECK_EQ_INT(size, 136);
	CHECK(mt_kimg_member(kernel(), "struct ipc_port", "ip_srights", &off, type, sizeof type) == 0);
	CHECK_EQ_INT(off, 60);
	CHECK_EQ_STR(type, "mach_port_rights_t");
	CHECK(mt_kimg_member(kernel(), "ipc_port", "no_such_member", &off, NULL, 0) < 0);
}

TEST(kimg_refuses_unsafe_functions)
{
	const struct mt_kfunc *f;

	CHECK(kernel());
	f = mt_kimg_lookup(kernel(), "t_int3");          /* assembly trap entry */
	CHECK(f && f->patch == MT_PATCH_REFUSED && f->why);
	f = mt_kimg_lookup(kernel(), "db_command_loop"); /* kernel debugger */
	CHECK(f && f->patch == MT_PATCH_REFUSED && f->why);
	f = mt_kimg_lookup(kernel(), "kernel_trap");
	CHECK(f && f->patch == MT_PATCH_REFUSED);
}

TEST(kimg_inline_instances)
{
	const struct mt_kinline *in;
	size_t n, only = 0;

	CHECK(kernel());
	for (size_t i = 0; i < mt_kimg_nfuncs(kernel()); i++) {
		const struct mt_kfunc *f = mt_kimg_func(kernel(), i);
		if (!f->inline_only)
			continue;
		only++;
		n = mt_kimg_inlines(kernel(), f->name, &in);
		CHECK_EQ_INT(n, f->ninstances);
		CHECK(n > 0 && in[0].entry && mt_kimg_func_at(kernel(), in[0].entry));
	}
	CHECK(only > 100);
}

/* Each inlined copy's address ranges (kinst :return's exits) hold its
   entry pc, for all 29 copies of ipc_entry_lookup. */
TEST(kimg_inline_ranges)
{
	const struct mt_kinline *in;
	uint64_t lo[16], hi[16];
	size_t n, nr, held = 0;

	CHECK(kernel());
	n = mt_kimg_inlines(kernel(), "ipc_entry_lookup", &in);
	CHECK(n >= 29);
	for (size_t i = 0; i < n; i++) {
		nr = mt_kimg_inline_ranges(kernel(), &in[i], lo, hi, 16);
		CHECK(nr > 0);
		for (size_t r = 0; r < nr; r++)
			if (in[i].entry >= lo[r] && in[i].entry < hi[r]) {
				held++;
				break;
			}
	}
	CHECK_EQ_INT(held, n);
}

TEST(kimg_func_at_and_symbols)
{
	const struct mt_kfunc *f;
	uint64_t v;

	CHECK(kernel());
	f = mt_kimg_lookup(kernel(), "vm_fault");
	CHECK(mt_kimg_func_at(kernel(), f->addr + 10) == f);
	CHECK(mt_kimg_symbol(kernel(), "idt", &v) == 0 && v > 0xffffffff80000000ull);
	CHECK(mt_kimg_symbol(kernel(), "no_such_symbol_xyz", &v) < 0);
}

/* Data addresses go by their objects, as dtrace's: a sized one's bytes
   (kernel_map_store, the kernel map whose lock lockstat shows), an
   unsized global's own address (a uniprocessor kernel's empty simple
   lock); past an object's end is not that object. */
TEST(kimg_sym_at_names_data_objects)
{
	uint64_t v, size, off = 99;
	const char *s;

	CHECK(kernel());
	CHECK(mt_kimg_symbol_size(kernel(), "kernel_map_store", &v, &size) == 0 && size > 0x10);
	s = mt_kimg_sym_at(kernel(), v + 0x10, &off);
	CHECK(s && strcmp(s, "kernel_map_store") == 0 && off == 0x10);
	s = mt_kimg_sym_at(kernel(), v + size, &off);
	CHECK(!s || strcmp(s, "kernel_map_store") != 0);
	CHECK(mt_kimg_in_image(kernel(), v + size - 1));
	CHECK(mt_kimg_symbol_size(kernel(), "kernel_map", &v, &size) == 0);
	s = mt_kimg_sym_at(kernel(), v, &off);
	CHECK(s && strcmp(s, "kernel_map") == 0 && off == 0);
	CHECK(mt_kimg_symbol_size(kernel(), "vm_page_queue_lock", &v, &size) == 0);
	s = mt_kimg_sym_at(kernel(), v, &off);
	CHECK(s && strcmp(s, "vm_page_queue_lock") == 0 && off == 0);
	CHECK(!mt_kimg_in_image(kernel(), 0xffff800000001000ull));
	CHECK(mt_kimg_symbol(kernel(), "spl0", &v) == 0);
	s = mt_kimg_sym_at(kernel(), v + 2, &off);
	CHECK(s && strcmp(s, "spl0") == 0 && off == 2);
}

TEST(kimg_rejects_non_elf)
{
	char err[512];

	CHECK(mt_kimg_check("tests/unit/mach/test_kimg.c", err, sizeof err) < 0);
	CHECK(strstr(err, "not an ELF file") != NULL);
	CHECK(mt_kimg_open("/nonexistent/kernel", err, sizeof err) == NULL);
	CHECK(strstr(err, "No such file") != NULL);
}

TEST(kimg_rejects_stripped_and_foreign)
{
	char kpath[PATH_MAX], cmd[PATH_MAX + 128], err[512], tmp[] = "/tmp/mt-stripped-XXXXXX";
	int fd = mkstemp(tmp);

	CHECK(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof cmd, "objcopy --strip-all %s %s", mt_stock_kernel(kpath, sizeof kpath), tmp);
	CHECK(system(cmd) == 0);
	CHECK(mt_kimg_open(tmp, err, sizeof err) == NULL);
	unlink(tmp);
	CHECK(strstr(err, "no symbol table") != NULL);
	CHECK(mt_kimg_check("/bin/sh", err, sizeof err) < 0);
	CHECK(strstr(err, "not an x86_64 ELF64 executable") != NULL);
}

static void *fail_realloc(void *p, size_t n)
{
	return NULL;
}

/* Two functions whose entries could take a 5-byte jmp. */
static void two_jmp_funcs(struct mt_kimg *k, struct mt_kfunc *fs)
{
	memset(k, 0, sizeof *k);
	memset(fs, 0, 2 * sizeof *fs);
	for (int i = 0; i < 2; i++) {
		fs[i].addr = 0x1000 * (i + 1);
		fs[i].size = 0x20;
		fs[i].patch = MT_PATCH_JMP;
		fs[i].displaced = 5;
	}
	k->funcs = fs;
	k->nfuncs = 2;
}

/* A branch into the displaced bytes turns that entry (only) into an int3. */
TEST(decode_branch_target_forbids_jmp)
{
	struct mt_kimg k;
	struct mt_kfunc fs[2];
	struct kimg_targets t = { 0 };

	two_jmp_funcs(&k, fs);
	kimg_targets_add(&t, 0x1002);
	kimg_targets_apply(&k, &t);
	free(t.v);
	CHECK_EQ_INT(fs[0].patch, MT_PATCH_INT3);
	CHECK_EQ_INT(fs[0].displaced, 0);
	CHECK_EQ_INT(fs[1].patch, MT_PATCH_JMP);
}

/*
 * A branch target that cannot be recorded (the allocation fails) must not
 * let a jmp cover it: with the set incomplete, no entry takes a jmp.
 */
TEST(decode_lost_branch_target_fails_closed)
{
	struct mt_kimg k;
	struct mt_kfunc fs[2];
	struct kimg_targets t = { .xrealloc = fail_realloc };

	two_jmp_funcs(&k, fs);
	kimg_targets_add(&t, 0x1002);
	CHECK(t.lost);
	CHECK_EQ_INT(t.n, 0);
	kimg_targets_apply(&k, &t);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ_INT(fs[i].patch, MT_PATCH_INT3);
		CHECK_EQ_INT(fs[i].displaced, 0);
		CHECK(strstr(fs[i].why, "out of memory") != NULL);
	}
}

MT_TEST_MAIN()
