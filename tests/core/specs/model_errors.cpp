// Test models that are built wrongly: each error must name the spec line that built the culprit
// and its path. Built with the spec flags (like a spec file), without NNDNA_SPEC:
// tests/core/module_test.cpp builds them with loadSpec through cases().
//
// g++ (like clang) attributes the code of default member initialisers to the class head: the
// implicit constructor runs them there. So an error in `Linear l{"a.b", 4, 4};` names the line
// of `struct ... : Module {` (and the layer's path); a constructor written out names its own line.
#include <nndna/nndna.hpp>
#include <nndna/trace.hpp>

#include "model_errors.hpp"

namespace model_errors {
namespace {

using namespace nndna;

struct Dotted : Module { static constexpr int line = __LINE__;
  Linear l{"encoder.layer", 4, 4};
};

struct Twice : Module { static constexpr int line = __LINE__;
  Tensor a = param("w", {2});
  Tensor b = param("w", {2});
};

struct Block : Module { static constexpr int line = __LINE__;
  Linear fc{"fc", 4, 0};
};
struct Outer : Module {
  std::vector<Block> blocks = list<Block>("blocks", 2);
};

struct Groups : Module { static constexpr int line = __LINE__;
  Conv2d conv{"conv", 3, 4, 3, {.groups = 3}};
};

struct Huge : Module { static constexpr int line = __LINE__;
  Tensor w = param("w", {std::int64_t{1} << 32, std::int64_t{1} << 32});
};

// PyTorch's `self.b1 = Block()` written as plain members: both blocks take the parent's path, so
// their layers collide. The error explains why (the line is Block's, where the layer is declared).
struct Part : Module { static constexpr int line = __LINE__;
  Linear fc{"fc", 4, 4};
};
struct PlainMembers : Module {
  Part b1;
  Part b2;
};

struct NegativeList : Module { static constexpr int line = __LINE__;
  std::vector<Linear> layers = list<Linear>("layers", -1, 4, 4);
};

// The empty name makes a layer a factory's list entry; anywhere else it is an error.
struct Unnamed : Module { static constexpr int line = __LINE__;
  Linear l{"", 4, 4};
};

struct BadDropout : Module { static constexpr int line = __LINE__;
  Dropout drop{"drop", 1.5};
};

struct BadOutputPadding : Module { static constexpr int line = __LINE__;
  ConvTranspose2d up{"up", 8, 4, 4, {.stride = 2, .padding = 1, .outputPadding = 2}};
};

struct Explicit : Module {
  Linear l;
  Explicit() : l("bad.name", 4, 4) {} static constexpr int line = __LINE__;
};

template <class M>
RegisteredSpec registered(const char* name) {
  return {__FILE__, name, [](std::unique_ptr<Module>& model) {
            model = std::make_unique<M>();
            return detail::ErasedSpec{};
          }};
}

}  // namespace

std::vector<Case> cases() {
  const std::string kOwnName =
      " needs its own name (a module held as a plain member, `Block b;`, takes its parent's path; "
      "build it with child<Block>(\"b\"))";
  return {{registered<Dotted>("dotted"), Dotted::line, "module",
           "name 'encoder.layer' must not contain '.'"},
          {registered<Twice>("twice"), Twice::line, "param",
           "parameter 'w' is registered twice: each" + kOwnName},
          {registered<PlainMembers>("plain_members"), Part::line, "param",
           "parameter 'fc.weight' is registered twice: each" + kOwnName},
          {registered<NegativeList>("negative_list"), NegativeList::line, "list",
           "list 'layers' must have a count >= 0, got -1"},
          {registered<Unnamed>("unnamed"), Unnamed::line, "module",
           "module and parameter names must not be empty"},
          {registered<Outer>("outer"), Block::line, "Linear",
           "layer 'blocks.0.fc': out must be positive, got 0"},
          {registered<Groups>("groups"), Groups::line, "Conv2d",
           "layer 'conv': channels 3 -> 4 must be divisible by groups = 3"},
          {registered<Huge>("huge"), Huge::line, "param",
           "parameter 'w' has shape [4294967296, 4294967296]: its element count overflows 64 bits"},
          {registered<BadDropout>("bad_dropout"), BadDropout::line, "Dropout", "layer 'drop': p must be in [0, 1), got 1.5"},
          {registered<BadOutputPadding>("bad_output_padding"), BadOutputPadding::line, "ConvTranspose2d",
           "layer 'up': outputPadding (2, 2) must be >= 0 and smaller than the stride (2, 2)"},
          {registered<Explicit>("explicit"), Explicit::line, "module", "name 'bad.name' must not contain '.'"}};
}

}  // namespace model_errors
