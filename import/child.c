/* child.c: running a program with its output captured (benchdb run's benchmark, a tool's
 * --version). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "import.h"

int import_execute(char *const *argv, struct buf *out, struct buf *err)
{
    FILE *fo = tmpfile(), *fe = tmpfile();
    int status = -1;
    pid_t pid = fo && fe ? fork() : -1;
    if (pid == 0) {
        dup2(fileno(fo), STDOUT_FILENO);
        dup2(fileno(fe), STDERR_FILENO);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int ws;
    if (pid > 0 && waitpid(pid, &ws, 0) == pid) {
        status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
        rewind(fo);
        rewind(fe);
        if (buf_read_file(out, fo) || buf_read_file(err, fe))
            status = -1;
    }
    if (fo)
        fclose(fo);
    if (fe)
        fclose(fe);
    return status;
}
