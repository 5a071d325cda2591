// 200,000 forward ops: the 5-op body of loop_ops.hpp run 40,000 times.
#define LOOP_ITERATIONS 40000
#include "loop_ops.hpp"
