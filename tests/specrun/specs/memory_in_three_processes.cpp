// Issue 9.8: three processes of 200 MiB each, every one under a per-process limit of 256 MiB.
// Each child touches its memory and exits 0; the spec then succeeds if all three did.
#include <nndna/nndna.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) {
  constexpr std::size_t kBytes = std::size_t{200} << 20;
  pid_t children[3] = {};
  for (pid_t& child : children) {
    child = ::fork();
    if (child == 0) {
      char* block = static_cast<char*>(std::malloc(kBytes));
      if (block == nullptr) std::_Exit(2);
      std::memset(block, 1, kBytes);
      ::sleep(2);  // all three hold their memory at once
      std::_Exit(0);
    }
  }
  int finished = 0;
  for (pid_t child : children) {
    int status = 0;
    ::waitpid(child, &status, 0);
    finished += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  if (finished != 3) throw std::runtime_error(std::to_string(finished) + " of 3 children finished");
  return mean(m.l(in["x"]));
}

NNDNA_SPEC(Net) { return {.label = "600 MiB in three processes", .loss = lossFn, .inputs = {{"x", {8, 4}}}}; }
