#include "CPseudoTerminal.h"
#include <pty.h>
#include <unistd.h>
#include <string.h>
#include <stdlib.h>

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
        // Child: only async-signal-safe calls between fork and exec.
        execve(path, argv, envp);
        _exit(127);
    }
    *master_fd = master;
    return pid;
}
