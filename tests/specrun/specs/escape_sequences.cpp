// Issue 9, small things: terminal escape sequences in what a spec prints and in its exception
// (a window title through OSC, colours, a cursor move, a C1 CSI).
#include <nndna/nndna.hpp>

#include <cstdio>
#include <stdexcept>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) {
  std::fputs("\x1b]0;pwned title\x07printed \x1b[31mred\x1b[0m\n", stderr);
  throw std::runtime_error("thrown \x1b[2J\x1b[Hcleared \xc2\x9b" "31m");
  return mean(m.l(in["x"]));
}

NNDNA_SPEC(Net) { return {.label = "escapes", .loss = lossFn, .inputs = {{"x", {8, 4}}}}; }
