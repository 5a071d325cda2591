// validateGraph: a graph against every rule of the IR (docs/ir.md "Reading is validation"). The
// JSON reader runs it on every graph it reads; consumers that take a graph from outside
// (buildTrainingStep, buildDiagram) run it on theirs.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "ir/dim_names.hpp"
#include "ir/shape_rules.hpp"
#include "nndna/ir_json.hpp"

namespace nndna::ir {

namespace {

// ["B", "", "D"], or [] when no axis is named.
std::string describeNames(const DimNames& names) {
  std::string out = "[";
  for (std::size_t k = 0; k < names.size(); ++k) out += fmt::format("{}\"{}\"", k == 0 ? "" : ", ", names[k]);
  return out + "]";
}

// A place in the graph (".ops[12].inputs[1]"), spelled out only when an error is reported:
// validating a million ops must not format millions of paths nobody reads.
struct Where {
  static constexpr std::size_t kNoIndex = std::numeric_limits<std::size_t>::max();
  std::string_view array;           // "ops"
  std::size_t index = 0;            // [12]
  std::string_view field = {};      // ".inputs"
  std::size_t entry = kNoIndex;     // [1]

  std::string str() const {
    std::string out = fmt::format(".{}[{}]{}", array, index, field);
    return entry == kNoIndex ? out : fmt::format("{}[{}]", out, entry);
  }
};

class Checker {
 public:
  Checker(const Graph& g, std::string_view name) : g_(g), name_(name) {}

  void run() {
    checkTensors();
    checkSites();
    checkOps();
    checkInterface();
  }

 private:
  [[noreturn]] void fail(const std::string& path, std::string_view message) const {
    throw IrFormatError(fmt::format("{}{}: {}", name_, path, message));
  }
  [[noreturn]] void fail(const Where& where, std::string_view message) const { fail(where.str(), message); }
  // An id in [lo, hi]; the message the reader has always given.
  template <class Path>
  void inRange(std::int64_t v, std::int64_t lo, std::int64_t hi, const Path& path) const {
    if (v < lo || v > hi) fail(path, fmt::format("{} is out of range ({}..{})", v, lo, hi));
  }
  std::int64_t tensorCount() const { return static_cast<std::int64_t>(g_.tensors.size()); }
  const TensorInfo& tensor(TensorId id) const { return g_.tensors[static_cast<std::size_t>(id)]; }
  const Op& producer(TensorId id) const {
    return g_.ops[static_cast<std::size_t>(tensor(id).source)];
  }

  void checkTensors() const {
    const auto opCount = static_cast<std::int64_t>(g_.ops.size());
    for (std::size_t t = 0; t < g_.tensors.size(); ++t) {
      const TensorInfo& info = g_.tensors[t];
      const Where shape{"tensors", t, ".shape"};
      if (info.shape.size() > kMaxRank) fail(shape, fmt::format("too many entries ({})", info.shape.size()));
      for (std::size_t k = 0; k < info.shape.size(); ++k) {
        inRange(info.shape[k], 1, std::numeric_limits<std::int64_t>::max(), Where{"tensors", t, ".shape", k});
      }
      if (!checkedNumel(info.shape)) fail(shape, "element count overflows 64 bits");
      if (!info.names.empty()) checkNames(info, t);
      inRange(info.source, 0, std::max<std::int64_t>(opCount - 1, 0), Where{"tensors", t, ".source"});
    }
  }

  // Tensor `t`'s axis names: none, or one per axis, each "" or an axis name (dim_names.hpp), not
  // all "" (stored normalized, so that comparing names is exact).
  void checkNames(const TensorInfo& info, std::size_t t) const {
    if (info.names.empty()) return;
    const Where p{"tensors", t, ".names"};
    if (info.names.size() != info.shape.size()) {
      fail(p, fmt::format("expected one name per axis of {} ({}), got {}", formatShape(info.shape),
                          info.shape.size(), info.names.size()));
    }
    for (std::size_t k = 0; k < info.names.size(); ++k) {
      if (!info.names[k].empty() && !isDimName(info.names[k])) {
        fail(Where{"tensors", t, ".names", k},
             fmt::format("'{}' is not an axis name (a dim's name or a product such as H·Dh or D/H)", info.names[k]));
      }
    }
    if (std::all_of(info.names.begin(), info.names.end(), [](const std::string& n) { return n.empty(); })) {
      fail(p, "every name is \"\": leave the names out");
    }
  }

  void checkSites() const {
    const auto files = static_cast<std::int64_t>(g_.sites.files.size());
    const auto frames = static_cast<std::int64_t>(g_.sites.frames.size());
    for (std::size_t f = 0; f < g_.sites.frames.size(); ++f) {
      inRange(g_.sites.frames[f].file, 0, files - 1, Where{"sites.frames", f, ".file"});
    }
    for (std::size_t c = 0; c < g_.sites.chains.size(); ++c) {
      const std::vector<FrameId>& chain = g_.sites.chains[c];
      for (std::size_t k = 0; k < chain.size(); ++k) {
        inRange(chain[k], 0, frames - 1, Where{"sites.chains", c, "", k});
      }
    }
  }

  void checkOps() {
    made_.assign(g_.tensors.size(), false);
    const auto chains = static_cast<std::int64_t>(g_.sites.chains.size());
    std::vector<const TensorInfo*> inputs;
    for (std::size_t i = 0; i < g_.ops.size(); ++i) {
      const Op& op = g_.ops[i];
      const Where at{"ops", i};
      if (static_cast<std::size_t>(op.kind) >= kOpKindCount) fail(Where{"ops", i, ".kind"}, "unknown op kind");
      inRange(op.out, 0, tensorCount() - 1, Where{"ops", i, ".out"});
      if (made_[static_cast<std::size_t>(op.out)] || tensor(op.out).source != static_cast<OpId>(i)) {
        fail(Where{"ops", i, ".out"}, fmt::format("tensor {} is not produced by exactly this op", op.out));
      }
      made_[static_cast<std::size_t>(op.out)] = true;
      if (const std::string problem = arityProblem(op.kind, op.inputs.size()); !problem.empty()) {
        fail(Where{"ops", i, ".inputs"}, fmt::format("{} {}", opKindName(op.kind), problem));
      }
      inputs.clear();
      for (std::size_t k = 0; k < op.inputs.size(); ++k) {
        const TensorId in = op.inputs[k];
        const Where input{"ops", i, ".inputs", k};
        inRange(in, 0, tensorCount() - 1, input);
        if (!made_[static_cast<std::size_t>(in)] || in == op.out) {
          fail(input, fmt::format("tensor {} is not defined before this op", in));
        }
        inputs.push_back(&tensor(in));
      }
      inRange(op.site, -1, chains - 1, Where{"ops", i, ".site"});
      if (isInternalKind(op.kind) && op.phase == Phase::forward) {
        fail(Where{"ops", i, ".phase"}, fmt::format("{} is made by autodiff or the optimizer, never in the forward",
                                       opKindName(op.kind)));
      }
      const TensorInfo& out = tensor(op.out);
      if (isLeafKind(op.kind)) {
        checkLeaf(op, at);
        continue;
      }
      TensorType expected;
      try {
        expected = inferOutput(op.kind, op.attrs, inputs);
      } catch (const ShapeRuleError& e) {
        fail(at, fmt::format("{}: {}", opKindName(op.kind), e.message()));
      }
      if (expected.shape != out.shape || expected.dtype != out.dtype) {
        fail(at, fmt::format("{}: the output is declared {}, its shape rule gives {} {}",
                            opKindName(op.kind), describe(out), formatShape(expected.shape),
                            dtypeName(expected.dtype)));
      }
      if (expected.names != out.names) {
        fail(at, fmt::format("{}: the output's axes are declared named {}, its shape rule names them {}",
                            opKindName(op.kind), describeNames(out.names), describeNames(expected.names)));
      }
    }
    for (std::size_t t = 0; t < g_.tensors.size(); ++t) {
      if (!made_[t]) fail(Where{"tensors", t}, "no op produces this tensor");
    }
  }

  void checkLeaf(const Op& op, const Where& at) const {
    if (const std::string_view a = unusedAttribute(op.kind, op.attrs); !a.empty()) {
      fail(at.str() + ".attrs." + std::string(a), fmt::format("{} does not use it", opKindName(op.kind)));
    }
    if (op.attrs->name.empty()) fail(at.str() + ".attrs.name", "a leaf needs a name");
    if (op.kind != OpKind::tensor_input && tensor(op.out).dtype != DType::f32) {
      fail(at, fmt::format("{} '{}' must be f32, got {}", opKindName(op.kind), op.attrs->name,
                          dtypeName(tensor(op.out).dtype)));
    }
  }

  // params, state, inputs, captures, outputs and updates point where they say.
  void checkInterface() const {
    const std::int64_t last = tensorCount() - 1;
    auto checkNamed = [&](TensorId id, OpKind kind, const std::string& name, std::string_view array, std::size_t i,
                          std::unordered_set<std::string_view>& names) {
      inRange(id, 0, last, Where{array, i, ".tensor"});
      const Op& op = producer(id);
      if (op.kind != kind || op.attrs->name != name) {
        fail(Where{array, i}, fmt::format("tensor {} is not the {} '{}'", id, opKindName(kind), name));
      }
      if (!names.insert(name).second) fail(Where{array, i}, fmt::format("'{}' is listed twice", name));
    };
    std::unordered_set<std::string_view> leafNames;
    for (std::size_t i = 0; i < g_.params.size(); ++i) {
      checkNamed(g_.params[i].tensor, OpKind::param_input, g_.params[i].name, "params", i, leafNames);
    }
    for (std::size_t i = 0; i < g_.state.size(); ++i) {
      checkNamed(g_.state[i].tensor, OpKind::state_input, g_.state[i].name, "state", i, leafNames);
    }
    std::unordered_set<std::string_view> inputNames;
    for (std::size_t i = 0; i < g_.inputs.size(); ++i) {
      checkNamed(g_.inputs[i].tensor, OpKind::tensor_input, g_.inputs[i].name, "inputs", i, inputNames);
    }
    std::unordered_set<std::string_view> captureNames;
    for (std::size_t i = 0; i < g_.captures.size(); ++i) {
      checkNamed(g_.captures[i].tensor, OpKind::capture, g_.captures[i].name, "captures", i, captureNames);
    }
    for (std::size_t i = 0; i < g_.outputs.size(); ++i) inRange(g_.outputs[i], 0, last, Where{"outputs", i});
    for (std::size_t i = 0; i < g_.updates.size(); ++i) {
      const Update& u = g_.updates[i];
      inRange(u.target, 0, last, Where{"updates", i, ".target"});
      inRange(u.value, 0, last, Where{"updates", i, ".value"});
      const OpKind target = producer(u.target).kind;
      if (target != OpKind::param_input && target != OpKind::state_input) {
        fail(Where{"updates", i, ".target"}, "must be a parameter or state leaf");
      }
      if (tensor(u.target).shape != tensor(u.value).shape || tensor(u.target).dtype != tensor(u.value).dtype) {
        fail(Where{"updates", i}, "target and value shapes differ");
      }
    }
  }

  const Graph& g_;
  std::string_view name_;
  std::vector<bool> made_;
};

}  // namespace

void validateGraph(const Graph& graph, std::string_view name) { Checker(graph, name).run(); }

}  // namespace nndna::ir
