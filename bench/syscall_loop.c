/*
 * N getppid() system calls, timed: prints the mean ns per call.  The
 * event bench/bpftrace_bench.sh attaches bpftrace's programs to.
 *   syscall_loop N
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	struct timespec a, b;

	if (n <= 0) {
		fprintf(stderr, "usage: syscall_loop N\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		getppid();
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
