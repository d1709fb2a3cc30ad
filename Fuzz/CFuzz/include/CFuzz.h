// libFuzzer's driver entry point (compiler-rt/lib/fuzzer/FuzzerInterface.h), declared for Swift. Each fuzz
// target's main calls it with its harness, so the executable links libFuzzer's runtime without its `main`
// (libclang_rt.fuzzer_no_main) and SwiftPM's own `main` of an executable target stays the entry point.
#pragma once
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
