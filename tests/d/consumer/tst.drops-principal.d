/*
 * A principal buffer too small for every record of BEGIN: drops are
 * reported with their tag under -xdroptags.
 */
/* @@runtest-opts: -xdroptags -xbufsize=100 */
/* @@stderr-match: ^dtrace: \[DTRACEDROP_PRINCIPAL\] [0-9]* drops* on CPU 0$ */
#pragma D option quiet

BEGIN { printf("%d %d %d\n", 1, 2, 3); }
BEGIN { printf("%d %d %d\n", 4, 5, 6); }
BEGIN { printf("%d %d %d\n", 7, 8, 9); }
BEGIN { printf("%d %d %d\n", 1, 2, 3); }
BEGIN { printf("%d %d %d\n", 4, 5, 6); }
BEGIN { printf("%d %d %d\n", 7, 8, 9); }
BEGIN { exit(0); }
