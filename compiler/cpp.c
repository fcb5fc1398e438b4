/*
 * -C: run the script through /usr/bin/cpp with the -D/-U/-I arguments, as
 * dtrace does, and return its output (with "# N file" line markers that
 * the lexer understands).  Errors become D_PREPROC with cpp's messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>
#include "cc.h"

char *cpp_run(const struct mt_cc_input *in, const char *text,
	      const char *name, struct mt_diag *diag)
{
	char inpath[] = "/tmp/mtcppXXXXXX";
	int fd = mkstemp(inpath);
	if (fd < 0)
		goto fail;
	/*
	 * As dtrace: an interpreter line "#!..." is not C; cpp gets an empty
	 * line in its place so that line numbers stay the script's.
	 */
	if (text[0] == '#' && text[1] == '!')
		text += strcspn(text, "\n");
	size_t len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		unlink(inpath);
		goto fail;
	}
	close(fd);
	char errpath[] = "/tmp/mtcpperrXXXXXX";
	int efd = mkstemp(errpath);
	int pfd[2];
	if (efd < 0 || pipe(pfd) != 0)
		goto fail_unlink;
	pid_t pid = fork();
	if (pid == 0) {
		const char *argv[64 + 16];
		int n = 0;
		argv[n++] = "cpp";
		argv[n++] = "-undef";
		argv[n++] = "-fno-show-column";
		argv[n++] = "-fno-diagnostics-show-caret";
		argv[n++] = "-D__sun";
		argv[n++] = "-D__linux";
		argv[n++] = "-D__Linux";	/* __`uname -s` */
		argv[n++] = "-D__unix";
		argv[n++] = "-D__SVR4";
		argv[n++] = "-D__SUNW_D=1";
		argv[n++] = "-D__SUNW_D_VERSION=0x02000000";
		argv[n++] = "-D__SUNW_D_64";
		argv[n++] = "-D__amd64";
		argv[n++] = "-D__x86_64";
		if (in->opts && in->opts->cpphdrs)
			argv[n++] = "-H";	/* -H: list the included headers */
		if (in->opts && in->opts->stdc && in->opts->stdc[0] == 's')
			argv[n++] = "-traditional-cpp";	/* __STDC__ undefined */
		for (int i = 0; i < in->ncpp_args && n < 72; i++)
			argv[n++] = in->cpp_args[i];
		argv[n++] = "/dev/stdin";	/* as dtrace: errors name /dev/stdin */
		argv[n] = NULL;
		int ifd = open(inpath, O_RDONLY);
		if (ifd < 0)
			_exit(127);
		dup2(ifd, 0);
		dup2(pfd[1], 1);
		close(pfd[0]);
		execv("/usr/bin/cpp", (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	size_t cap = 65536, n = 0;
	char *out = malloc(cap);
	ssize_t r;
	while (out && (r = read(pfd[0], out + n, cap - n - 1)) > 0) {
		n += (size_t)r;
		if (n + 1 >= cap) {
			cap *= 2;
			out = realloc(out, cap);
		}
	}
	close(pfd[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	unlink(inpath);
	if (!out)
		goto fail;
	out[n] = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		/* cpp's message, with the temp file named as dtrace shows it */
		char buf[900] = "";
		FILE *ef = fdopen(efd, "r");
		if (ef) {
			rewind(ef);
			size_t k = fread(buf, 1, sizeof(buf) - 1, ef);
			buf[k] = 0;
			fclose(ef);
		}
		unlink(errpath);
		free(out);
		diag->tag = NULL;	/* dtrace prints no tag here */
		diag->line = 0;
		snprintf(diag->msg, sizeof(diag->msg),
			 "Preprocessor failed to process input program");
		(void)buf;
		(void)name;
		return NULL;
	}
	close(efd);
	unlink(errpath);
	return out;
fail_unlink:
	unlink(inpath);
fail:
	diag->tag = mt_dtag_name(D_PREPROC);
	diag->line = 0;
	snprintf(diag->msg, sizeof(diag->msg), "failed to run cpp");
	return NULL;
}
