// 1,000,000 forward ops: the 5-op body of loop_ops.hpp run 200,000 times.
#define LOOP_ITERATIONS 200000
#include "loop_ops.hpp"
