#!/usr/sbin/dtrace -Cqs
/*
 * @@runtest-opts: -C -q
 * -C with an interpreter line: cpp gets an empty line in its place (as
 * dtrace does), so the script compiles and __LINE__ is the script's line.
 */
#define X 42
BEGIN
{
	printf("%d %d\n", X, __LINE__);
	exit(0);
}
