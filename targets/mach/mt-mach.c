/*
 * mt-mach: a small driver of the GNU Mach target for the tests, for what
 * the CLI does not offer (reserve-check).
 *
 *   mt-mach boot ...           as `machtrace boot`
 *   mt-mach kernel-info ...    as `machtrace kernel-info`
 *   mt-mach reserve-check [--kernel FILE] PHYS:SIZE [WORD...]
 *           boots (the stock kernel or FILE) with the region reserved and
 *           filled by the shim, then checks in the shared guest RAM that
 *           the kernel left it alone
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machtrace/mach.h"

static int reserve_check(int argc, char **argv)
{
	struct mt_boot_opts o = { .timeout_ms = 30000, .reserve_fill = 1, .workload = "" };
	struct mt_boot_result r;
	struct mt_boot *b;
	char err[512], *end;
	size_t size, bad = 0;
	const uint32_t *ram;

	if (argc >= 3 && strcmp(argv[1], "--kernel") == 0) {
		o.kernel = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2)
		return fprintf(stderr, "usage: mt-mach reserve-check [--kernel FILE] PHYS:SIZE [WORD]\n"), 1;
	o.reserve_pa = strtoull(argv[1], &end, 0);
	o.reserve_size = *end == ':' ? strtoull(end + 1, NULL, 0) : 0;
	if (argc > 2)
		o.workload = argv[2];
	if (!(b = mt_boot_start(&o, err, sizeof err)))
		return fprintf(stderr, "mt-mach: %s\n", err), 2;
	mt_boot_poll(b, -1, &r);        /* QEMU has exited; its RAM file is still there */
	ram = mt_boot_ram(b, &size);
	if (r.status != MT_BOOT_REBOOTED || !ram || o.reserve_pa + o.reserve_size > size) {
		fprintf(stderr, "mt-mach: guest %s (%s)\n", mt_boot_status_name(r.status), r.reason);
		mt_boot_stop(b);
		return 3;
	}
	for (uint64_t pa = o.reserve_pa; pa < o.reserve_pa + o.reserve_size; pa += 4)
		bad += ram[pa / 4] != ((uint32_t)pa ^ 0xA5A5A5A5u);
	printf("reserved 0x%" PRIx64 "-0x%" PRIx64 ": %zu of %" PRIu64 " words changed\n",
	       o.reserve_pa, o.reserve_pa + o.reserve_size, bad, o.reserve_size / 4);
	mt_boot_stop(b);
	return bad ? 4 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "reserve-check") == 0)
		return reserve_check(argc - 1, argv + 1);
	if (argc >= 2)
		return mt_mach_main(argc - 1, argv + 1);
	fprintf(stderr, "usage: mt-mach boot|kernel-info|reserve-check ...\n");
	return 1;
}
