// 500 iterations of a loop that cannot fold: 1500 boxes (see unfoldable_loop.hpp).
#include "unfoldable_loop.hpp"

NNDNA_SPEC(unfoldable::Net) { return unfoldable::spec<500>(); }
