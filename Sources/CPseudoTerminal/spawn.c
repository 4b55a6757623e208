#define _GNU_SOURCE
#include "CPseudoTerminal.h"
#include <pty.h>
#include <unistd.h>
#include <fcntl.h>
#include <string.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>

// The child must not keep the parent's other descriptors: a test that runs a piped process
// beside a terminal session would otherwise lose its end-of-file, because the terminal
// child holds a copy of the pipe's write end for as long as it lives (seen as a hang of the
// whole test run). Only async-signal-safe calls: this runs between fork and exec.
static void close_inherited_descriptors(void) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
    int limit = 1024;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536) {
        limit = (int)rl.rlim_cur;
    }
    for (int fd = 3; fd < limit; fd++) close(fd);
}

pid_t reception_spawn_on_pty(const char *path, char *const argv[], char *const envp[],
                             unsigned short rows, unsigned short cols, int *master_fd) {
    struct winsize size;
    memset(&size, 0, sizeof(size));
    size.ws_row = rows;
    size.ws_col = cols;
    int master = -1;
    pid_t pid = forkpty(&master, NULL, NULL, &size);
    if (pid < 0) return -1;
    if (pid == 0) {
        close_inherited_descriptors();
        execve(path, argv, envp);
        _exit(127);
    }
    // Not inherited by processes other threads start later (a test's server, an engine):
    // a copy in one of them would keep the terminal open after the session hangs up.
    fcntl(master, F_SETFD, FD_CLOEXEC);
    *master_fd = master;
    return pid;
}

int reception_pty_slave_name(int master_fd, char *name, unsigned long length) {
    return ptsname_r(master_fd, name, length);
}
