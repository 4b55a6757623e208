#ifndef RECEPTION_READLINE_SHIM_H
#define RECEPTION_READLINE_SHIM_H

// GNU readline's globals are mutable C state that Swift 6 rejects as "not
// concurrency-safe". The REPL's single terminal-owning thread reaches them only through
// these small accessors.
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <readline/readline.h>
#include <readline/history.h>

typedef char **(*reception_completion_fn)(const char *text, int start, int end);

static inline void reception_rl_configure(const char *app_name, reception_completion_fn completer) {
    rl_readline_name = app_name;
    rl_catch_signals = 0;      // SIGINT and SIGWINCH are handled by the REPL itself
    rl_catch_sigwinch = 0;
    rl_attempted_completion_function = completer;
    rl_completer_word_break_characters = " \t\n";
}

static inline void reception_rl_no_default_completion(void) { rl_attempted_completion_over = 1; }
static inline const char *reception_rl_line_buffer(void) { return rl_line_buffer; }

/// Forgets the partly typed line, as bash does on ^C.
static inline void reception_rl_discard_line(void) {
    rl_free_line_state();
    rl_callback_sigcleanup();
    rl_replace_line("", 0);
    rl_point = 0;
    rl_end = 0;
    rl_mark = 0;
}

/// Width of the terminal on `fd` in columns, or 0 when it is not a terminal.
static inline int reception_terminal_columns(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    return 0;
}

#endif
