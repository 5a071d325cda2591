// 1000 iterations of a loop that cannot fold: 3000 boxes (see unfoldable_loop.hpp).
#include "unfoldable_loop.hpp"

NNDNA_SPEC(unfoldable::Net) { return unfoldable::spec<1000>(); }
