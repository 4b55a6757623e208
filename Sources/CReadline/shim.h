#ifndef RECEPTION_READLINE_SHIM_H
#define RECEPTION_READLINE_SHIM_H

// GNU readline's globals are mutable C state that Swift 6 rejects as "not
// concurrency-safe". The REPL's single terminal-owning thread reaches them only through
// these small accessors.
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <readline/readline.h>
#include <readline/history.h>

typedef char **(*reception_completion_fn)(const char *text, int start, int end);

/// readline measures the prompt and the line in the C library's character encoding. Left
/// at "C" it counts the prompt's "›" (three bytes) as three columns and redraws a line in the
/// wrong place after ^U or a wrap. The person's LC_CTYPE, or UTF-8 when theirs is not (the
/// REPL writes UTF-8 whatever it is).
static inline void reception_rl_use_utf8_locale(void) {
    setlocale(LC_CTYPE, "");
    const char *codeset = nl_langinfo(CODESET);
    if (codeset == NULL || (strcmp(codeset, "UTF-8") != 0 && strcmp(codeset, "utf8") != 0)) {
        if (setlocale(LC_CTYPE, "C.UTF-8") == NULL) setlocale(LC_CTYPE, "en_US.UTF-8");
    }
}

static inline void reception_rl_configure(const char *app_name, reception_completion_fn completer) {
    reception_rl_use_utf8_locale();
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

/// The C library's standard input stream (a global Swift 6 will not read directly): piped
/// lines are read from it, bounded (`BoundedLine`).
static inline FILE *reception_stdin(void) { return stdin; }

/// After Ctrl-Z and `fg`: the shell gave the terminal its own settings while the process was
/// stopped, and readline still believes it has its own in place (it prepares them only when
/// they are not). Put back and prepared again, then the prompt and the line redrawn.
static inline void reception_rl_resume_terminal(void) {
    if (rl_deprep_term_function) (*rl_deprep_term_function)();
    if (rl_prep_term_function) (*rl_prep_term_function)(1);
    rl_forced_update_display();
}

/// Width of the terminal on `fd` in columns, or 0 when it is not a terminal.
static inline int reception_terminal_columns(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    return 0;
}

#endif
