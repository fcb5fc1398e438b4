/* placeholder replaced below */
#include "cli.h"
int cli_export_main(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "machtrace: export: not implemented yet\n"); return E_ERROR; }
