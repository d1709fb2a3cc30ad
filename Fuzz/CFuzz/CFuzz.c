// Header-only module: LLVMFuzzerRunDriver is defined by libclang_rt.fuzzer_no_main, linked into each target.
#include "CFuzz.h"
