/* child.c: running a program with its output captured (benchdb run's benchmark, a tool's
 * --version): read through pipes, each stream up to its limit, and SIGTERM, SIGINT and SIGHUP
 * sent to benchdb while it runs passed on to it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/array.h"
#include "import.h"

/* The most import_execute holds of each stream of a tool's --version. */
enum { VERSION_MAX = 1 << 20 };

static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP};

static volatile sig_atomic_t child_pid, received;

/* A signal sent by a process (kill: si_code <= 0) reached benchdb only, and is passed on; one
 * the kernel sends for a terminal (^C, hangup) reached the child too, in benchdb's process
 * group, and is not sent twice (iperf3 reports and stops on the first). */
static void on_signal(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    int saved = errno;
    received = sig;
    if (child_pid > 0 && info->si_code <= 0)
        kill((pid_t)child_pid, sig);
    errno = saved;
}

struct stream {
    int fd;
    struct buf *b;
    size_t max;
};

/* Reads what is there of s: 0, or 1 at its end (or when it went over its max: its pipe is
 * closed, and what the child writes after fails). */
static int read_some(struct stream *s, int *over)
{
    char chunk[64 << 10];
    ssize_t n = read(s->fd, chunk, sizeof(chunk));
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n > 0 && (size_t)n <= s->max - s->b->len) {
        buf_add(s->b, chunk, (size_t)n);
        return 0;
    }
    if (n > 0)
        *over = 1;
    close(s->fd);
    s->fd = -1;
    return 1;
}

/* Reads both streams to their ends; stops the child (SIGTERM) when one goes over its max. */
static void capture(pid_t pid, struct stream *s, struct child_run *x)
{
    while (s[0].fd >= 0 || s[1].fd >= 0) {
        struct pollfd p[2] = {{s[0].fd, POLLIN, 0}, {s[1].fd, POLLIN, 0}};
        if (poll(p, 2, -1) < 0)
            continue; /* EINTR: a signal, passed on by on_signal */
        for (int i = 0; i < 2; i++) {
            int over = 0;
            if (s[i].fd < 0 || !p[i].revents || !read_some(&s[i], &over) || !over)
                continue;
            if (!x->overflow)
                kill(pid, SIGTERM);
            x->overflow = i == 0 ? STDOUT_FILENO : STDERR_FILENO;
        }
    }
}

/* A pipe whose ends the child's program does not inherit (dup2 gives it its copies). */
static int pipe_cloexec(int fds[2])
{
    if (pipe(fds))
        return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

int import_run(char *const *argv, struct buf *out, struct buf *err, struct child_run *x)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, status = -1;
    x->overflow = x->signal = 0;
    if (pipe_cloexec(po) || pipe_cloexec(pe)) {
        int saved = errno;
        for (int i = 0; i < 2; i++)
            if (po[i] >= 0)
                close(po[i]);
        errno = saved;
        return -1;
    }
    /* the signals are blocked until the child's pid is known: none is lost in between */
    struct sigaction act = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO},
                     old[ARRAY_SIZE(forwarded)];
    sigset_t block, mask;
    sigemptyset(&block);
    for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
        sigaddset(&block, forwarded[i]);
    sigprocmask(SIG_BLOCK, &block, &mask);
    received = 0;
    child_pid = 0;
    /* one benchdb was told to ignore stays so */
    for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++) {
        sigaction(forwarded[i], NULL, &old[i]);
        if (old[i].sa_handler != SIG_IGN)
            sigaction(forwarded[i], &act, NULL);
    }
    pid_t pid = fork();
    if (pid == 0) {
        for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++) /* a pending one acts as it would have */
            sigaction(forwarded[i], &old[i], NULL);
        sigprocmask(SIG_SETMASK, &mask, NULL);
        signal(SIGPIPE, SIG_DFL); /* benchdb ignores it; the program runs as from a shell */
        dup2(po[1], STDOUT_FILENO);
        dup2(pe[1], STDERR_FILENO);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int saved = errno;
    close(po[1]);
    close(pe[1]);
    if (pid > 0) {
        child_pid = pid;
        sigprocmask(SIG_SETMASK, &mask, NULL);
        struct stream s[2] = {{po[0], out, x->max[0]}, {pe[0], err, x->max[1]}};
        capture(pid, s, x);
        int ws;
        pid_t w;
        while ((w = waitpid(pid, &ws, 0)) < 0 && errno == EINTR)
            ;
        if (w == pid)
            status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
        saved = errno;
    } else {
        close(po[0]);
        close(pe[0]);
    }
    sigprocmask(SIG_BLOCK, &block, NULL);
    child_pid = 0;
    x->signal = received;
    for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
        sigaction(forwarded[i], &old[i], NULL);
    sigprocmask(SIG_SETMASK, &mask, NULL);
    errno = saved;
    return status;
}

int import_execute(char *const *argv, struct buf *out, struct buf *err)
{
    struct child_run x = {.max = {VERSION_MAX, VERSION_MAX}};
    return import_run(argv, out, err, &x);
}
