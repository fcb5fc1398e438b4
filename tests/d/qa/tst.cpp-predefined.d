/* With -C, scripts see the macros dtrace defines, and no compiler's. */
/* @@runtest-opts: -qC */
#if defined(__linux) && defined(__unix) && defined(__SVR4) && \
    defined(__amd64) && defined(__SUNW_D_64) && __SUNW_D == 1 && \
    !defined(__GNUC__)
BEGIN
{
	exit(0);
}
#else
BEGIN
{
	exit(1);
}
#endif
