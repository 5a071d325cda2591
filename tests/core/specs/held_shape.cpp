// Test spec: holds a tensor's shape (and, while the model is built, a parameter's) across
// hundreds of new ops / parameters. With shape() returning a reference into the trace's growing
// tensor table this was a heap-use-after-free (ASan reports it: the unit tests run under ASan).
#include <nndna/nndna.hpp>

#include <string>

using namespace nndna;

namespace {

constexpr int B = 4, D = 8;

struct Held : Module {
  Tensor first = param("first", {D, D});
  // The first parameter's shape, held while 300 more parameters are registered.
  std::vector<Tensor> more = [this] {
    const auto& s = first.shape();
    std::vector<Tensor> out;
    for (int i = 0; i < 300; ++i) out.push_back(param("p" + std::to_string(i), {s[0]}));
    return out;
  }();
};

Tensor lossFn(Held& m, const Inputs& in) {
  Tensor x = in["x"];
  const auto& s = x.shape();  // held while the trace adds 600 ops
  Tensor y = matmul(x, m.first);
  for (const Tensor& p : m.more) y = mul(add(y, p), 0.5);
  return mean(reshape(y, {s[0] * s[1]}));
}

}  // namespace

NNDNA_SPEC(Held) {
  return {.label = "held shape", .loss = lossFn, .inputs = {{"x", {B, D}}}};
}
