#ifndef RECEPTION_CFUZZERDRIVER_H
#define RECEPTION_CFUZZERDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs that keep their own `main`
/// (compiler-rt/lib/fuzzer/FuzzerInterface.h). It is only linked when the program is built
/// with `-sanitize=fuzzer`; `reception-fuzz` calls it only when compiled with
/// `-DRECEPTION_LIBFUZZER` (see scripts/fuzz.sh), so a plain build never references it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
