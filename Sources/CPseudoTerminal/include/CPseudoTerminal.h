#ifndef RECEPTION_CPSEUDOTERMINAL_H
#define RECEPTION_CPSEUDOTERMINAL_H
#include <sys/types.h>

/// Starts `path` with `argv`/`envp` on a new pseudo-terminal of `rows` x `cols`, as the
/// session leader with the terminal as its controlling tty (so ^C typed on the master
/// reaches it as SIGINT). Returns the child's pid and stores the master fd, or -1.
pid_t reception_spawn_on_pty(const char *path, char *const argv[], char *const envp[],
                             unsigned short rows, unsigned short cols, int *master_fd);

/// The path of the terminal's other end (the program's side, /dev/pts/N) into `name`:
/// 0, or an error number.
int reception_pty_slave_name(int master_fd, char *name, unsigned long length);

#endif
