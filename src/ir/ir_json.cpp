// Writing and reading the IR's JSON form, with validation of everything read.
#include "nndna/ir_json.hpp"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace nndna::ir {

using nlohmann::json;

namespace {

// ----- enums as strings ------------------------------------------------------------------------

DType dtypeFromName(std::string_view s) {
  if (s == "f32") return DType::f32;
  if (s == "i32") return DType::i32;
  if (s == "bool") return DType::boolean;
  throw IrFormatError(fmt::format("unknown dtype '{}'", s));
}

Phase phaseFromName(std::string_view s) {
  if (s == "forward") return Phase::forward;
  if (s == "backward") return Phase::backward;
  if (s == "optimizer") return Phase::optimizer;
  throw IrFormatError(fmt::format("unknown phase '{}'", s));
}

constexpr std::array<std::string_view, 3> kReductionNames = {"mean", "sum", "none"};
constexpr std::array<std::string_view, 5> kInitNames = {"automatic", "zeros", "ones", "normal",
                                                         "uniform"};
constexpr std::array<std::string_view, 5> kLrNames = {"constant", "linear", "cosine_annealing",
                                                       "staircase", "multi_step"};

template <class Enum, std::size_t N>
Enum enumFromName(const std::array<std::string_view, N>& names, std::string_view s,
                  std::string_view what) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == s) return static_cast<Enum>(i);
  }
  throw IrFormatError(fmt::format("unknown {} '{}'", what, s));
}

// ----- writing ---------------------------------------------------------------------------------

json initJson(const Init& init) {
  json j{{"kind", kInitNames.at(static_cast<std::size_t>(init.kind))}};
  if (init.kind == Init::Kind::normal || init.kind == Init::Kind::uniform) j["a"] = init.a;
  if (init.kind == Init::Kind::uniform) j["b"] = init.b;
  return j;
}

json lrJson(const LearningRate& lr) {
  json j{{"kind", kLrNames.at(static_cast<std::size_t>(lr.kind))}, {"value", lr.value}};
  switch (lr.kind) {
    case LearningRate::Kind::constant: break;
    case LearningRate::Kind::linear:
    case LearningRate::Kind::cosineAnnealing:
      j["end"] = lr.end;
      j["steps"] = lr.steps;
      break;
    case LearningRate::Kind::staircase:
      j["steps"] = lr.steps;
      j["gamma"] = lr.gamma;
      break;
    case LearningRate::Kind::multiStep:
      j["milestones"] = lr.milestones;
      j["gamma"] = lr.gamma;
      break;
  }
  return j;
}

json optimizerJson(const Optimizer& optimizer) {
  return std::visit(
      [](const auto& o) -> json {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, Adam>) {
          return {{"kind", "adam"}, {"lr", lrJson(o.lr)}, {"beta1", o.beta1},
                  {"beta2", o.beta2}, {"eps", o.eps}};
        } else if constexpr (std::is_same_v<T, AdamW>) {
          return {{"kind", "adamw"}, {"lr", lrJson(o.lr)}, {"beta1", o.beta1},
                  {"beta2", o.beta2}, {"eps", o.eps}, {"weight_decay", o.weightDecay}};
        } else {
          return {{"kind", "sgd"}, {"lr", lrJson(o.lr)}, {"momentum", o.momentum},
                  {"nesterov", o.nesterov}};
        }
      },
      optimizer);
}

json declsJson(const std::vector<InputDecl>& decls) {
  json out = json::array();
  for (const InputDecl& d : decls) {
    out.push_back({{"name", d.name}, {"shape", d.shape}, {"dtype", dtypeName(d.dtype)}});
  }
  return out;
}

// Only the attributes that differ from their defaults are written.
json attrsJson(const OpAttrs& a) {
  const OpAttrs d;
  json j = json::object();
  if (a.name != d.name) j["name"] = a.name;
  if (a.dims != d.dims) j["dims"] = a.dims;
  if (a.axis != d.axis) j["axis"] = a.axis;
  if (a.allAxes != d.allAxes) j["all_axes"] = a.allAxes;
  if (a.keepDims != d.keepDims) j["keep_dims"] = a.keepDims;
  if (a.start != d.start) j["start"] = a.start;
  if (a.count != d.count) j["count"] = a.count;
  if (a.scalar != d.scalar) j["scalar"] = a.scalar;
  if (a.scalar2 != d.scalar2) j["scalar2"] = a.scalar2;
  if (a.scalarOperand != d.scalarOperand) j["scalar_operand"] = a.scalarOperand;
  if (a.scalarLeft != d.scalarLeft) j["scalar_left"] = a.scalarLeft;
  if (a.approximate != d.approximate) j["approximate"] = a.approximate;
  if (a.dtype != d.dtype) j["dtype"] = dtypeName(a.dtype);
  if (a.reduction != d.reduction) {
    j["reduction"] = kReductionNames.at(static_cast<std::size_t>(a.reduction));
  }
  if (a.kernel != d.kernel) j["kernel"] = a.kernel;
  if (a.stride != d.stride) j["stride"] = a.stride;
  if (a.padding != d.padding) j["padding"] = a.padding;
  if (a.groups != d.groups) j["groups"] = a.groups;
  if (a.seed != d.seed) j["seed"] = a.seed;
  return j;
}

json paramsJson(const std::vector<Param>& params) {
  json out = json::array();
  for (const Param& p : params) {
    out.push_back({{"name", p.name}, {"tensor", p.tensor}, {"init", initJson(p.init)},
                   {"decay", p.decay}});
  }
  return out;
}

json namedJson(const std::vector<NamedTensor>& named) {
  json out = json::array();
  for (const NamedTensor& n : named) out.push_back({{"name", n.name}, {"tensor", n.tensor}});
  return out;
}

json updatesJson(const std::vector<Update>& updates) {
  json out = json::array();
  for (const Update& u : updates) out.push_back({{"target", u.target}, {"value", u.value}});
  return out;
}

json graphJson(const Graph& g) {
  json tensors = json::array();
  for (const TensorInfo& t : g.tensors) {
    tensors.push_back({{"shape", t.shape}, {"dtype", dtypeName(t.dtype)}, {"source", t.source}});
  }
  json ops = json::array();
  for (const Op& op : g.ops) {
    json j{{"kind", opKindName(op.kind)}, {"inputs", op.inputs}, {"out", op.out},
           {"phase", phaseName(op.phase)}, {"site", op.site}};
    json attrs = attrsJson(op.attrs);
    if (!attrs.empty()) j["attrs"] = std::move(attrs);
    ops.push_back(std::move(j));
  }
  json files = json::array();
  for (const SourceFile& f : g.sites.files) files.push_back({{"path", f.path}});
  json frames = json::array();
  for (const Frame& f : g.sites.frames) {
    frames.push_back({{"file", f.file}, {"line", f.line}, {"column", f.column},
                      {"address", f.address}, {"function", f.function}});
  }
  return {{"tensors", std::move(tensors)},
          {"ops", std::move(ops)},
          {"params", paramsJson(g.params)},
          {"state", paramsJson(g.state)},
          {"inputs", namedJson(g.inputs)},
          {"captures", namedJson(g.captures)},
          {"outputs", g.outputs},
          {"updates", updatesJson(g.updates)},
          {"sites", {{"files", std::move(files)}, {"frames", std::move(frames)},
                     {"chains", g.sites.chains}}}};
}

// ----- reading ---------------------------------------------------------------------------------

// Reads with a JSON path in every error message: "train.ops[12].inputs[1]: ...".
class Reader {
 public:
  explicit Reader(const ReadLimits& limits) : limits_(limits) {}

  const json& field(const json& obj, std::string_view key, std::string_view path) const {
    if (!obj.is_object()) fail(path, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(path, fmt::format("missing field '{}'", key));
    return *it;
  }

  const json* optional(const json& obj, std::string_view key) const {
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }

  std::string str(const json& j, std::string_view path) const {
    if (!j.is_string()) fail(path, "expected a string");
    const auto& s = j.get_ref<const std::string&>();
    if (s.size() > limits_.maxStringBytes) fail(path, "string too long");
    return s;
  }

  std::int64_t integer(const json& j, std::string_view path, std::int64_t lo,
                       std::int64_t hi) const {
    if (!j.is_number_integer()) fail(path, "expected an integer");
    std::int64_t v = 0;
    if (j.is_number_unsigned()) {
      const auto u = j.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(hi)) {
        fail(path, fmt::format("{} is out of range ({}..{})", u, lo, hi));
      }
      v = static_cast<std::int64_t>(u);
    } else {
      v = j.get<std::int64_t>();
    }
    if (v < lo || v > hi) fail(path, fmt::format("{} is out of range ({}..{})", v, lo, hi));
    return v;
  }

  double number(const json& j, std::string_view path) const {
    if (!j.is_number()) fail(path, "expected a number");
    return j.get<double>();
  }

  bool boolean(const json& j, std::string_view path) const {
    if (!j.is_boolean()) fail(path, "expected true or false");
    return j.get<bool>();
  }

  const json& array(const json& j, std::string_view path, std::size_t maxSize) const {
    if (!j.is_array()) fail(path, "expected an array");
    if (j.size() > maxSize) fail(path, fmt::format("too many entries ({})", j.size()));
    return j;
  }

  Shape shape(const json& j, std::string_view path) const {
    array(j, path, limits_.maxRank);
    Shape s;
    for (std::size_t i = 0; i < j.size(); ++i) {
      s.push_back(integer(j[i], fmt::format("{}[{}]", path, i), 0,
                          std::numeric_limits<std::int64_t>::max()));
    }
    try {
      (void)numel(s);
    } catch (const std::overflow_error&) {
      fail(path, "element count overflows 64 bits");
    }
    return s;
  }

  [[noreturn]] void fail(std::string_view path, std::string_view message) const {
    throw IrFormatError(fmt::format("{}: {}", path, message));
  }

  const ReadLimits& limits() const { return limits_; }

 private:
  const ReadLimits& limits_;
};

Init readInit(const Reader& r, const json& j, const std::string& path) {
  Init init;
  init.kind = enumFromName<Init::Kind>(kInitNames, r.str(r.field(j, "kind", path), path + ".kind"),
                                        "init kind");
  if (const json* a = r.optional(j, "a")) init.a = r.number(*a, path + ".a");
  if (const json* b = r.optional(j, "b")) init.b = r.number(*b, path + ".b");
  return init;
}

LearningRate readLr(const Reader& r, const json& j, const std::string& path) {
  LearningRate lr;
  lr.kind = enumFromName<LearningRate::Kind>(
      kLrNames, r.str(r.field(j, "kind", path), path + ".kind"), "learning-rate kind");
  lr.value = r.number(r.field(j, "value", path), path + ".value");
  if (const json* v = r.optional(j, "end")) lr.end = r.number(*v, path + ".end");
  if (const json* v = r.optional(j, "steps")) {
    lr.steps = r.integer(*v, path + ".steps", 0, std::numeric_limits<std::int64_t>::max());
  }
  if (const json* v = r.optional(j, "gamma")) lr.gamma = r.number(*v, path + ".gamma");
  if (const json* v = r.optional(j, "milestones")) {
    r.array(*v, path + ".milestones", 1 << 20);
    for (std::size_t i = 0; i < v->size(); ++i) {
      lr.milestones.push_back(r.integer((*v)[i], fmt::format("{}.milestones[{}]", path, i), 0,
                                        std::numeric_limits<std::int64_t>::max()));
    }
  }
  if ((lr.kind == LearningRate::Kind::linear || lr.kind == LearningRate::Kind::cosineAnnealing ||
       lr.kind == LearningRate::Kind::staircase) &&
      lr.steps <= 0) {
    r.fail(path + ".steps", "must be positive for this schedule");
  }
  return lr;
}

Optimizer readOptimizer(const Reader& r, const json& j, const std::string& path) {
  const std::string kind = r.str(r.field(j, "kind", path), path + ".kind");
  const LearningRate lr = readLr(r, r.field(j, "lr", path), path + ".lr");
  auto num = [&](std::string_view key, double fallback) {
    const json* v = r.optional(j, key);
    return v ? r.number(*v, path + "." + std::string(key)) : fallback;
  };
  if (kind == "adam") return Adam{lr, num("beta1", 0.9), num("beta2", 0.999), num("eps", 1e-8)};
  if (kind == "adamw") {
    return AdamW{lr, num("weight_decay", 0.01), num("beta1", 0.9), num("beta2", 0.999),
                 num("eps", 1e-8)};
  }
  if (kind == "sgd") {
    const json* nesterov = r.optional(j, "nesterov");
    return SGD{lr, num("momentum", 0.0), nesterov ? r.boolean(*nesterov, path + ".nesterov") : false};
  }
  r.fail(path + ".kind", fmt::format("unknown optimizer '{}'", kind));
}

std::vector<InputDecl> readDecls(const Reader& r, const json& j, const std::string& path) {
  std::vector<InputDecl> out;
  r.array(j, path, 1 << 16);
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string p = fmt::format("{}[{}]", path, i);
    out.push_back({r.str(r.field(j[i], "name", p), p + ".name"),
                   r.shape(r.field(j[i], "shape", p), p + ".shape"),
                   dtypeFromName(r.str(r.field(j[i], "dtype", p), p + ".dtype"))});
  }
  return out;
}

OpAttrs readAttrs(const Reader& r, const json& j, const std::string& path) {
  OpAttrs a;
  if (!j.is_object()) r.fail(path, "expected an object");
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  auto pair = [&](const json& v, const std::string& p) {
    r.array(v, p, 2);
    if (v.size() != 2) r.fail(p, "expected two integers");
    return std::array<std::int64_t, 2>{r.integer(v[0], p + "[0]", 0, kMax),
                                       r.integer(v[1], p + "[1]", 0, kMax)};
  };
  for (const auto& [key, v] : j.items()) {
    const std::string p = path + "." + key;
    if (key == "name") a.name = r.str(v, p);
    else if (key == "dims") {
      r.array(v, p, r.limits().maxRank);
      for (std::size_t i = 0; i < v.size(); ++i) {
        a.dims.push_back(r.integer(v[i], fmt::format("{}[{}]", p, i), -1, kMax));
      }
    } else if (key == "axis") a.axis = r.integer(v, p, kMin, kMax);
    else if (key == "all_axes") a.allAxes = r.boolean(v, p);
    else if (key == "keep_dims") a.keepDims = r.boolean(v, p);
    else if (key == "start") a.start = r.integer(v, p, 0, kMax);
    else if (key == "count") a.count = r.integer(v, p, 0, kMax);
    else if (key == "scalar") a.scalar = r.number(v, p);
    else if (key == "scalar2") a.scalar2 = r.number(v, p);
    else if (key == "scalar_operand") a.scalarOperand = r.boolean(v, p);
    else if (key == "scalar_left") a.scalarLeft = r.boolean(v, p);
    else if (key == "approximate") a.approximate = r.boolean(v, p);
    else if (key == "dtype") a.dtype = dtypeFromName(r.str(v, p));
    else if (key == "reduction") {
      a.reduction = enumFromName<Reduction>(kReductionNames, r.str(v, p), "reduction");
    } else if (key == "kernel") a.kernel = pair(v, p);
    else if (key == "stride") a.stride = pair(v, p);
    else if (key == "padding") a.padding = pair(v, p);
    else if (key == "groups") a.groups = r.integer(v, p, 1, kMax);
    else if (key == "seed") {
      if (!v.is_number_unsigned() && !v.is_number_integer()) r.fail(p, "expected an integer");
      a.seed = v.get<std::uint64_t>();
    } else {
      r.fail(p, "unknown attribute");
    }
  }
  return a;
}

std::vector<Param> readParams(const Reader& r, const json& j, const std::string& path,
                              std::int64_t tensorCount) {
  std::vector<Param> out;
  r.array(j, path, r.limits().maxTensors);
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string p = fmt::format("{}[{}]", path, i);
    Param param;
    param.name = r.str(r.field(j[i], "name", p), p + ".name");
    param.tensor = static_cast<TensorId>(
        r.integer(r.field(j[i], "tensor", p), p + ".tensor", 0, tensorCount - 1));
    param.init = readInit(r, r.field(j[i], "init", p), p + ".init");
    param.decay = r.boolean(r.field(j[i], "decay", p), p + ".decay");
    out.push_back(std::move(param));
  }
  return out;
}

std::vector<NamedTensor> readNamed(const Reader& r, const json& j, const std::string& path,
                                   std::int64_t tensorCount) {
  std::vector<NamedTensor> out;
  r.array(j, path, r.limits().maxTensors);
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string p = fmt::format("{}[{}]", path, i);
    out.push_back({r.str(r.field(j[i], "name", p), p + ".name"),
                   static_cast<TensorId>(r.integer(r.field(j[i], "tensor", p), p + ".tensor", 0,
                                                   tensorCount - 1))});
  }
  return out;
}

// Expected input count of a kind; -1: variable (at least one).
int arity(OpKind kind, const OpAttrs& attrs) {
  if (isLeafKind(kind)) return 0;
  if (isElementwiseUnary(kind)) return 1;
  if (isElementwiseBinary(kind)) return attrs.scalarOperand ? 1 : 2;
  switch (kind) {
    case OpKind::zeros: case OpKind::ones: case OpKind::arange: case OpKind::randn:
      return 0;
    case OpKind::where: return 3;
    case OpKind::matmul: case OpKind::embedding: case OpKind::take_along_axis:
    case OpKind::conv2d: case OpKind::cross_entropy: case OpKind::nll_loss: case OpKind::rms_norm:
      return 2;
    case OpKind::concat: case OpKind::stack: return -1;
    case OpKind::layer_norm: return -1;  // 2 or 3
    case OpKind::batch_norm2d: return 3;
    case OpKind::batch_norm2d_inference: return 5;
    // Internal kinds (autodiff and optimizer lowering).
    case OpKind::relu_grad: case OpKind::gelu_grad: case OpKind::silu_grad:
    case OpKind::leaky_relu_grad: case OpKind::softplus_grad: case OpKind::clamp_grad:
    case OpKind::abs_grad: case OpKind::tanh_grad: case OpKind::sigmoid_grad:
    case OpKind::softmax_grad: case OpKind::log_softmax_grad: case OpKind::nll_loss_grad:
    case OpKind::embedding_grad: case OpKind::take_along_axis_grad:
    case OpKind::conv2d_input_grad: case OpKind::conv2d_weight_grad:
    case OpKind::max_pool2d_grad: case OpKind::layer_norm_weight_grad:
    case OpKind::rms_norm_weight_grad: case OpKind::batch_norm2d_weight_grad:
    case OpKind::batch_norm2d_running_mean: case OpKind::batch_norm2d_running_var:
    case OpKind::adam_moment1: case OpKind::adam_moment2: case OpKind::sgd_momentum:
      return 2;
    case OpKind::cross_entropy_grad: case OpKind::layer_norm_input_grad:
    case OpKind::rms_norm_input_grad: case OpKind::batch_norm2d_input_grad:
    case OpKind::sgd_update:
      return 3;
    case OpKind::adam_update: return 6;
    default: return 1;
  }
}

// Checks the graph's structure: ids in range, each tensor made by the op that names it, inputs
// defined before use, arities, and the shapes that follow from the inputs alone.
void validateGraph(const Reader& r, const Graph& g, const std::string& path) {
  const auto tensorCount = static_cast<std::int64_t>(g.tensors.size());
  std::vector<bool> made(g.tensors.size(), false);
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const std::string p = fmt::format("{}.ops[{}]", path, i);
    const TensorInfo& out = g.tensors[static_cast<std::size_t>(op.out)];
    if (made[static_cast<std::size_t>(op.out)] || out.source != static_cast<OpId>(i)) {
      r.fail(p + ".out", fmt::format("tensor {} is not produced by exactly this op", op.out));
    }
    made[static_cast<std::size_t>(op.out)] = true;
    const int expected = arity(op.kind, op.attrs);
    const auto n = static_cast<int>(op.inputs.size());
    if ((expected >= 0 && n != expected) || (expected < 0 && n < 1) ||
        (op.kind == OpKind::layer_norm && n != 2 && n != 3)) {
      r.fail(p + ".inputs", fmt::format("{} takes {} inputs, got {}", opKindName(op.kind),
                                        expected < 0 ? "a variable number of" : std::to_string(expected), n));
    }
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
      const TensorId in = op.inputs[k];
      if (in < 0 || in >= tensorCount || !made[static_cast<std::size_t>(in)] || in == op.out) {
        r.fail(fmt::format("{}.inputs[{}]", p, k),
               fmt::format("tensor {} is not defined before this op", in));
      }
    }
    if (isElementwiseUnary(op.kind)) {
      if (g.tensors[static_cast<std::size_t>(op.inputs[0])].shape != out.shape) {
        r.fail(p, "an elementwise op must keep its input's shape");
      }
    }
    if (isViewKind(op.kind) &&
        numel(g.tensors[static_cast<std::size_t>(op.inputs[0])].shape) != numel(out.shape)) {
      r.fail(p, "a reshape/permute must keep the element count");
    }
    if (op.site != kNone &&
        (op.site < 0 || static_cast<std::size_t>(op.site) >= g.sites.chains.size())) {
      r.fail(p + ".site", fmt::format("site {} is out of range", op.site));
    }
  }
  for (std::size_t t = 0; t < g.tensors.size(); ++t) {
    if (!made[t]) r.fail(fmt::format("{}.tensors[{}]", path, t), "no op produces this tensor");
  }
  auto checkLeaf = [&](TensorId id, OpKind kind, const std::string& p, const std::string& name) {
    const Op& op = g.ops[static_cast<std::size_t>(g.tensors[static_cast<std::size_t>(id)].source)];
    if (op.kind != kind || op.attrs.name != name) {
      r.fail(p, fmt::format("tensor {} is not the {} '{}'", id, opKindName(kind), name));
    }
  };
  for (std::size_t i = 0; i < g.params.size(); ++i) {
    checkLeaf(g.params[i].tensor, OpKind::param_input, fmt::format("{}.params[{}]", path, i),
              g.params[i].name);
  }
  for (std::size_t i = 0; i < g.state.size(); ++i) {
    checkLeaf(g.state[i].tensor, OpKind::state_input, fmt::format("{}.state[{}]", path, i),
              g.state[i].name);
  }
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    checkLeaf(g.inputs[i].tensor, OpKind::tensor_input, fmt::format("{}.inputs[{}]", path, i),
              g.inputs[i].name);
  }
  for (std::size_t i = 0; i < g.updates.size(); ++i) {
    const Update& u = g.updates[i];
    const OpKind target = g.ops[static_cast<std::size_t>(g.tensors[static_cast<std::size_t>(u.target)].source)].kind;
    if (target != OpKind::param_input && target != OpKind::state_input) {
      r.fail(fmt::format("{}.updates[{}].target", path, i), "must be a parameter or state leaf");
    }
    if (g.tensors[static_cast<std::size_t>(u.target)].shape != g.tensors[static_cast<std::size_t>(u.value)].shape) {
      r.fail(fmt::format("{}.updates[{}]", path, i), "target and value shapes differ");
    }
  }
  const auto frameCount = static_cast<std::int64_t>(g.sites.frames.size());
  for (std::size_t c = 0; c < g.sites.chains.size(); ++c) {
    for (FrameId f : g.sites.chains[c]) {
      if (f < 0 || f >= frameCount) {
        r.fail(fmt::format("{}.sites.chains[{}]", path, c), fmt::format("frame {} is out of range", f));
      }
    }
  }
}

Graph readGraph(const Reader& r, const json& j, const std::string& path) {
  Graph g;
  const json& tensors = r.array(r.field(j, "tensors", path), path + ".tensors",
                                r.limits().maxTensors);
  const auto tensorCount = static_cast<std::int64_t>(tensors.size());
  const json& ops = r.array(r.field(j, "ops", path), path + ".ops", r.limits().maxTensors);
  const auto opCount = static_cast<std::int64_t>(ops.size());
  g.tensors.reserve(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::string p = fmt::format("{}.tensors[{}]", path, i);
    TensorInfo t;
    t.shape = r.shape(r.field(tensors[i], "shape", p), p + ".shape");
    t.dtype = dtypeFromName(r.str(r.field(tensors[i], "dtype", p), p + ".dtype"));
    t.source = static_cast<OpId>(r.integer(r.field(tensors[i], "source", p), p + ".source", 0,
                                           std::max<std::int64_t>(opCount - 1, 0)));
    g.tensors.push_back(std::move(t));
  }

  // Sites first: ops point into them.
  const json& sites = r.field(j, "sites", path);
  const std::string sp = path + ".sites";
  const json& files = r.array(r.field(sites, "files", sp), sp + ".files", 1 << 16);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string p = fmt::format("{}.files[{}]", sp, i);
    g.sites.files.push_back({r.str(r.field(files[i], "path", p), p + ".path"), ""});
  }
  const json& frames = r.array(r.field(sites, "frames", sp), sp + ".frames", r.limits().maxTensors);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const std::string p = fmt::format("{}.frames[{}]", sp, i);
    Frame f;
    f.file = static_cast<std::int32_t>(r.integer(r.field(frames[i], "file", p), p + ".file", 0,
                                                 static_cast<std::int64_t>(files.size()) - 1));
    f.line = static_cast<std::int32_t>(r.integer(r.field(frames[i], "line", p), p + ".line", 0, 1 << 30));
    f.column = static_cast<std::int32_t>(r.integer(r.field(frames[i], "column", p), p + ".column", 0, 1 << 30));
    const json& address = r.field(frames[i], "address", p);
    if (!address.is_number_unsigned() && !address.is_number_integer()) {
      r.fail(p + ".address", "expected an integer");
    }
    f.address = address.get<std::uint64_t>();
    f.function = r.str(r.field(frames[i], "function", p), p + ".function");
    g.sites.frames.push_back(std::move(f));
  }
  const json& chains = r.array(r.field(sites, "chains", sp), sp + ".chains", r.limits().maxTensors);
  for (std::size_t i = 0; i < chains.size(); ++i) {
    const std::string p = fmt::format("{}.chains[{}]", sp, i);
    r.array(chains[i], p, 4096);
    std::vector<FrameId> chain;
    for (std::size_t k = 0; k < chains[i].size(); ++k) {
      chain.push_back(static_cast<FrameId>(r.integer(chains[i][k], fmt::format("{}[{}]", p, k), 0,
                                                     static_cast<std::int64_t>(frames.size()) - 1)));
    }
    g.sites.chains.push_back(std::move(chain));
  }

  g.ops.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::string p = fmt::format("{}.ops[{}]", path, i);
    const json& o = ops[i];
    Op op;
    const std::string kind = r.str(r.field(o, "kind", p), p + ".kind");
    const auto k = opKindFromName(kind);
    if (!k) r.fail(p + ".kind", fmt::format("unknown op kind '{}'", kind));
    op.kind = *k;
    const json& inputs = r.array(r.field(o, "inputs", p), p + ".inputs", 1 << 20);
    for (std::size_t n = 0; n < inputs.size(); ++n) {
      op.inputs.push_back(static_cast<TensorId>(
          r.integer(inputs[n], fmt::format("{}.inputs[{}]", p, n), 0, tensorCount - 1)));
    }
    op.out = static_cast<TensorId>(r.integer(r.field(o, "out", p), p + ".out", 0, tensorCount - 1));
    op.phase = phaseFromName(r.str(r.field(o, "phase", p), p + ".phase"));
    op.site = static_cast<SiteId>(r.integer(r.field(o, "site", p), p + ".site", -1,
                                            static_cast<std::int64_t>(chains.size()) - 1));
    if (const json* attrs = r.optional(o, "attrs")) op.attrs = readAttrs(r, *attrs, p + ".attrs");
    g.ops.push_back(std::move(op));
  }
  g.params = readParams(r, r.field(j, "params", path), path + ".params", tensorCount);
  g.state = readParams(r, r.field(j, "state", path), path + ".state", tensorCount);
  g.inputs = readNamed(r, r.field(j, "inputs", path), path + ".inputs", tensorCount);
  g.captures = readNamed(r, r.field(j, "captures", path), path + ".captures", tensorCount);
  const json& outputs = r.array(r.field(j, "outputs", path), path + ".outputs", r.limits().maxTensors);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    g.outputs.push_back(static_cast<TensorId>(
        r.integer(outputs[i], fmt::format("{}.outputs[{}]", path, i), 0, tensorCount - 1)));
  }
  if (const json* updates = r.optional(j, "updates")) {
    r.array(*updates, path + ".updates", r.limits().maxTensors);
    for (std::size_t i = 0; i < updates->size(); ++i) {
      const std::string p = fmt::format("{}.updates[{}]", path, i);
      const json& u = (*updates)[i];
      g.updates.push_back(
          {static_cast<TensorId>(r.integer(r.field(u, "target", p), p + ".target", 0, tensorCount - 1)),
           static_cast<TensorId>(r.integer(r.field(u, "value", p), p + ".value", 0, tensorCount - 1))});
    }
  }
  validateGraph(r, g, path);
  return g;
}

}  // namespace

std::string toJson(const TracedModel& model, int indent) {
  json sources = json::array();
  std::set<std::string> seen;
  auto addSources = [&](const Graph& g) {
    for (const SourceFile& f : g.sites.files) {
      if (!f.text.empty() && seen.insert(f.path).second) {
        sources.push_back({{"path", f.path}, {"text", f.text}});
      }
    }
  };
  addSources(model.train);
  if (model.hasInfer) addSources(model.infer);
  const SpecInfo& s = model.spec;
  json dims = json::array();
  for (const DimDecl& d : s.dims) {
    dims.push_back({{"size", d.size}, {"name", d.name}, {"desc", d.desc}, {"color", d.color}});
  }
  json doc{{"format", kIrFormat},
           {"version", kIrVersion},
           {"spec",
            {{"label", s.label},
             {"description", s.description},
             {"source_path", s.sourcePath},
             {"inputs", declsJson(s.inputs)},
             {"predict_inputs", declsJson(s.predictInputs)},
             {"optimizer", optimizerJson(s.optimizer)},
             {"dims", std::move(dims)}}},
           {"sources", std::move(sources)},
           {"train", graphJson(model.train)},
           {"infer", model.hasInfer ? graphJson(model.infer) : json(nullptr)}};
  // Replace rather than throw on invalid UTF-8 in user strings.
  return doc.dump(indent, ' ', false, json::error_handler_t::replace);
}

TracedModel tracedModelFromJson(std::string_view text, const ReadLimits& limits) {
  if (text.size() > limits.maxBytes) {
    throw IrFormatError(fmt::format("document too large ({} bytes, limit {})", text.size(),
                                    limits.maxBytes));
  }
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw IrFormatError(fmt::format("not valid JSON: {}", e.what()));
  }
  const Reader r(limits);
  if (!doc.is_object()) r.fail("$", "expected an object");
  const std::string format = r.str(r.field(doc, "format", "$"), "format");
  if (format != kIrFormat) {
    r.fail("format", fmt::format("expected '{}', got '{}'", kIrFormat, format));
  }
  const std::int64_t version = r.integer(r.field(doc, "version", "$"), "version", 0, 1 << 20);
  if (version != kIrVersion) {
    r.fail("version", fmt::format("this nndna reads version {}, the document is version {}",
                                  kIrVersion, version));
  }
  TracedModel model;
  const json& spec = r.field(doc, "spec", "$");
  model.spec.label = r.str(r.field(spec, "label", "spec"), "spec.label");
  model.spec.description = r.str(r.field(spec, "description", "spec"), "spec.description");
  model.spec.sourcePath = r.str(r.field(spec, "source_path", "spec"), "spec.source_path");
  model.spec.inputs = readDecls(r, r.field(spec, "inputs", "spec"), "spec.inputs");
  model.spec.predictInputs =
      readDecls(r, r.field(spec, "predict_inputs", "spec"), "spec.predict_inputs");
  model.spec.optimizer = readOptimizer(r, r.field(spec, "optimizer", "spec"), "spec.optimizer");
  const json& dims = r.array(r.field(spec, "dims", "spec"), "spec.dims", 1 << 16);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const std::string p = fmt::format("spec.dims[{}]", i);
    model.spec.dims.push_back({r.integer(r.field(dims[i], "size", p), p + ".size", 0,
                                         std::numeric_limits<std::int64_t>::max()),
                               r.str(r.field(dims[i], "name", p), p + ".name"),
                               r.str(r.field(dims[i], "desc", p), p + ".desc"),
                               r.str(r.field(dims[i], "color", p), p + ".color")});
  }
  std::map<std::string, std::string> sources;
  const json& sourceList = r.array(r.field(doc, "sources", "$"), "sources", 1 << 16);
  for (std::size_t i = 0; i < sourceList.size(); ++i) {
    const std::string p = fmt::format("sources[{}]", i);
    sources[r.str(r.field(sourceList[i], "path", p), p + ".path")] =
        r.str(r.field(sourceList[i], "text", p), p + ".text");
  }
  auto attachText = [&](Graph& g) {
    for (SourceFile& f : g.sites.files) {
      if (auto it = sources.find(f.path); it != sources.end()) f.text = it->second;
    }
  };
  model.train = readGraph(r, r.field(doc, "train", "$"), "train");
  attachText(model.train);
  if (const json* infer = r.optional(doc, "infer")) {
    model.infer = readGraph(r, *infer, "infer");
    attachText(model.infer);
    model.hasInfer = true;
  }
  return model;
}

}  // namespace nndna::ir
