// Reading the IR's JSON form, with validation of everything read.
//
// The reader streams: nlohmann's SAX parser drives a small state machine over the document's
// fixed layout (root → spec / sources / train / infer → graph arrays → sites arrays). Tensors and
// ops, nearly all of a large document, are read field by field from the parser's events; any other
// array element (a frame, a param) or small root field is held as a JSON tree, converted at once
// into the Graph and dropped. Every allocation it makes is charged to a budget of
// ReadLimits::maxMemoryPerByte per byte of the document, and nesting is bounded, so a hostile
// document fails fast with a message instead of taking the parent process's memory or stack.
#include "nndna/ir_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "ir/attrs_interner.hpp"
#include "ir/dim_names.hpp"
#include "ir/huge_pages.hpp"
#include "ir/json_names.hpp"
#include "ir/utf8.hpp"
#include "nndna/training.hpp"

namespace nndna::ir {

using nlohmann::json;
using json_names::kDtypes;
using json_names::kInits;
using json_names::kLearningRates;
using json_names::kPhases;
using json_names::kReductions;

namespace {

// ----- reading one JSON value ------------------------------------------------------------------

// Where a value sits in the document ("train.ops[12].inputs[1]"), spelled out only when an error
// is reported: reading a million ops must not format ten million paths nobody reads. A level
// refers to its parent and to its key's text, so a Path must not outlive them: pass
// `p.field("x").at(i)` straight to a call, and name every level you keep in a variable
// (`const Path spec("spec"); const Path dims = spec.field("dims");`), never a temporary's child.
class Path {
 public:
  Path(const char* root) : text_(root) {}         // NOLINT: implicit, a literal root ("spec")
  Path(const std::string& root) : text_(root) {}  // NOLINT: implicit, a frame's path

  Path field(std::string_view key) const { return Path(this, key, kNoIndex); }
  Path at(std::size_t index) const { return Path(this, {}, index); }

  std::string str() const {
    if (parent_ == nullptr) return std::string(text_);
    std::string out = parent_->str();
    if (index_ != kNoIndex) return out + "[" + std::to_string(index_) + "]";
    return (out.empty() ? out : out + ".") + std::string(text_);
  }

 private:
  static constexpr std::size_t kNoIndex = std::numeric_limits<std::size_t>::max();
  Path(const Path* parent, std::string_view key, std::size_t index) : parent_(parent), text_(key), index_(index) {}

  const Path* parent_ = nullptr;
  std::string_view text_;  // the root's text, or this level's key
  std::size_t index_ = kNoIndex;
};

// Typed access to a JSON value with its path in every error: "train.ops[12].inputs[1]: ...".
class Reader {
 public:
  Reader(const ReadLimits& limits, std::string_view file) : limits_(limits), file_(file) {}

  [[noreturn]] void fail(const Path& path, std::string_view message) const {
    throw IrFormatError(fmt::format("{}: {}", path.str(), message), std::string(file_));
  }

  const json& field(const json& obj, std::string_view key, const Path& path) const {
    if (!obj.is_object()) fail(path, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(path, fmt::format("missing field '{}'", key));
    return *it;
  }

  const json* optional(const json& obj, std::string_view key) const {
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }

  // Rejects fields other than `known`: the reader knows every field the writer writes.
  void onlyFields(const json& obj, std::initializer_list<std::string_view> known, const Path& path) const {
    if (!obj.is_object()) fail(path, "expected an object");
    for (const auto& [key, value] : obj.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        fail(path.field(key), "unknown field");
      }
    }
  }

  std::string str(const json& j, const Path& path) const {
    if (!j.is_string()) fail(path, "expected a string");
    const auto& s = j.get_ref<const std::string&>();
    if (s.size() > limits_.maxStringBytes) fail(path, "string too long");
    return s;
  }

  std::int64_t integer(const json& j, const Path& path, std::int64_t lo, std::int64_t hi) const {
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

  std::uint64_t unsignedInteger(const json& j, const Path& path) const {
    if (j.is_number_unsigned()) return j.get<std::uint64_t>();
    return static_cast<std::uint64_t>(integer(j, path, 0, std::numeric_limits<std::int64_t>::max()));
  }

  // An id of the graph (a tensor, an op, a site); its range is checked by validateGraph.
  std::int32_t id(const json& j, const Path& path, std::int32_t lo = 0) const {
    return static_cast<std::int32_t>(integer(j, path, lo, std::numeric_limits<std::int32_t>::max()));
  }

  // A finite number: JSON has no others (its writer writes them as null, and its lexer refuses a
  // number past the double's range), but CBOR does.
  double number(const json& j, const Path& path) const {
    if (!j.is_number()) fail(path, "expected a number");
    const auto v = j.get<double>();
    if (!std::isfinite(v)) fail(path, "expected a finite number");
    return v;
  }

  // A scalar attribute: a number, or "inf", "-inf", "nan" (scalarJson).
  double scalar(const json& j, const Path& path) const {
    if (j.is_string()) {
      const auto& s = j.get_ref<const std::string&>();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
      fail(path, "expected a number, \"inf\", \"-inf\" or \"nan\"");
    }
    return number(j, path);
  }

  bool boolean(const json& j, const Path& path) const {
    if (!j.is_boolean()) fail(path, "expected true or false");
    return j.get<bool>();
  }

  const json& array(const json& j, const Path& path, std::size_t maxSize) const {
    if (!j.is_array()) fail(path, "expected an array");
    if (j.size() > maxSize) fail(path, fmt::format("too many entries ({})", j.size()));
    return j;
  }

  Shape shape(const json& j, const Path& path) const {
    array(j, path, limits_.maxRank);
    Shape s;
    s.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
      s.push_back(integer(j[i], path.at(i), 1,
                          std::numeric_limits<std::int64_t>::max()));
    }
    if (!checkedNumel(s)) fail(path, "element count overflows 64 bits");
    return s;
  }

  // Axis names (a tensor's, or an op's attrs.names): at most a rank's worth, each "" or an axis
  // name of dim_names.hpp.
  DimNames dimNames(const json& j, const Path& path) const {
    array(j, path, limits_.maxRank);
    DimNames names;
    names.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) names.push_back(dimName(j[i], path.at(i)));
    return names;
  }

  // One axis name: "" or an axis name of dim_names.hpp.
  std::string dimName(const json& j, const Path& path) const {
    std::string name = str(j, path);
    if (name.size() > kMaxDimNameLength) {
      fail(path, fmt::format("an axis name has at most {} bytes, got {}", kMaxDimNameLength, name.size()));
    }
    if (!name.empty() && !isDimName(name)) {
      fail(path, fmt::format("'{}' is not an axis name (a dim's name or a product such as H·Dh or D/H)", name));
    }
    return name;
  }

  template <class Enum, std::size_t N>
  Enum named(const std::array<std::string_view, N>& names, const json& j, const Path& path,
             std::string_view what) const {
    return named<Enum>(names, std::string_view(str(j, path)), path, what);
  }
  template <class Enum, std::size_t N>
  Enum named(const std::array<std::string_view, N>& names, std::string_view s, const Path& path,
             std::string_view what) const {
    for (std::size_t i = 0; i < N; ++i) {
      if (names[i] == s) return static_cast<Enum>(i);
    }
    fail(path, fmt::format("unknown {} '{}'", what, s));
  }

  const ReadLimits& limits() const { return limits_; }

 private:
  const ReadLimits& limits_;
  std::string_view file_;
};

// ----- converting one element ------------------------------------------------------------------

Init readInit(const Reader& r, const json& j, const Path& path) {
  r.onlyFields(j, {"kind", "a", "b"}, path);
  Init init;
  init.kind = r.named<Init::Kind>(kInits, r.field(j, "kind", path), path.field("kind"), "init kind");
  if (const json* a = r.optional(j, "a")) init.a = r.number(*a, path.field("a"));
  if (const json* b = r.optional(j, "b")) init.b = r.number(*b, path.field("b"));
  return init;
}

LearningRate readLr(const Reader& r, const json& j, const Path& path) {
  r.onlyFields(j, {"kind", "value", "end", "steps", "gamma", "milestones"}, path);
  LearningRate lr;
  lr.kind = r.named<LearningRate::Kind>(kLearningRates, r.field(j, "kind", path), path.field("kind"),
                                        "learning-rate kind");
  lr.value = r.number(r.field(j, "value", path), path.field("value"));
  if (const json* v = r.optional(j, "end")) lr.end = r.number(*v, path.field("end"));
  if (const json* v = r.optional(j, "steps")) {
    lr.steps = r.integer(*v, path.field("steps"), 0, std::numeric_limits<std::int64_t>::max());
  }
  if (const json* v = r.optional(j, "gamma")) lr.gamma = r.number(*v, path.field("gamma"));
  if (const json* v = r.optional(j, "milestones")) {
    r.array(*v, path.field("milestones"), 1 << 20);
    for (std::size_t i = 0; i < v->size(); ++i) {
      lr.milestones.push_back(r.integer((*v)[i], path.field("milestones").at(i), 0,
                                        std::numeric_limits<std::int64_t>::max()));
    }
  }
  return lr;
}

Optimizer readOptimizer(const Reader& r, const json& j, const Path& path) {
  r.onlyFields(j, {"kind", "lr", "beta1", "beta2", "eps", "weight_decay", "momentum", "nesterov",
                  "clip_grad_norm"}, path);
  const std::string kind = r.str(r.field(j, "kind", path), path.field("kind"));
  // A setting the kind has not (Adam's weight_decay, SGD's betas) would be dropped without a word:
  // it is an error, as the writer never writes one.
  auto notFor = [&](std::initializer_list<std::string_view> keys, std::string_view hint) {
    for (std::string_view key : keys) {
      if (r.optional(j, key) != nullptr) {  // null reads as left out, as for every optional field
        r.fail(path.field(key), fmt::format("{} has no setting '{}'{}", kind, key, hint));
      }
    }
  };
  if (kind == "adam") notFor({"weight_decay"}, " (AdamW has: \"kind\": \"adamw\")");
  if (kind == "adam" || kind == "adamw") notFor({"momentum", "nesterov"}, "");
  if (kind == "sgd") notFor({"beta1", "beta2", "eps"}, "");
  const LearningRate lr = readLr(r, r.field(j, "lr", path), path.field("lr"));
  auto num = [&](std::string_view key, double fallback) {
    const json* v = r.optional(j, key);
    return v ? r.number(*v, path.field(key)) : fallback;
  };
  Optimizer optimizer;
  if (kind == "adam") {
    optimizer = Adam{lr, num("beta1", 0.9), num("beta2", 0.999), num("eps", 1e-8),
                     num("clip_grad_norm", 0.0)};
  } else if (kind == "adamw") {
    optimizer = AdamW{lr, num("weight_decay", 0.01), num("beta1", 0.9), num("beta2", 0.999),
                      num("eps", 1e-8), num("clip_grad_norm", 0.0)};
  } else if (kind == "sgd") {
    const json* nesterov = r.optional(j, "nesterov");
    optimizer = SGD{lr, num("momentum", 0.0),
                    nesterov ? r.boolean(*nesterov, path.field("nesterov")) : false,
                    num("weight_decay", 0.0), num("clip_grad_norm", 0.0)};
  } else {
    r.fail(path.field("kind"), fmt::format("unknown optimizer '{}'", kind));
  }
  // The same check the tracer makes: a step is built from what this returns.
  if (const std::string problem = training::optimizerProblem(optimizer); !problem.empty()) {
    r.fail(path, problem);
  }
  return optimizer;
}

std::vector<InputDecl> readDecls(const Reader& r, const json& j, const Path& path) {
  std::vector<InputDecl> out;
  r.array(j, path, 1 << 16);
  for (std::size_t i = 0; i < j.size(); ++i) {
    const Path p = path.at(i);
    r.onlyFields(j[i], {"name", "shape", "dtype"}, p);
    out.push_back({r.str(r.field(j[i], "name", p), p.field("name")),
                   r.shape(r.field(j[i], "shape", p), p.field("shape")),
                   r.named<DType>(kDtypes, r.field(j[i], "dtype", p), p.field("dtype"), "dtype")});
  }
  return out;
}

SpecInfo readSpec(const Reader& r, const json& spec) {
  r.onlyFields(spec, {"label", "description", "source_path", "inputs", "predict_inputs",
                      "optimizer", "dims"}, "spec");
  SpecInfo s;
  s.label = r.str(r.field(spec, "label", "spec"), "spec.label");
  s.description = r.str(r.field(spec, "description", "spec"), "spec.description");
  s.sourcePath = r.str(r.field(spec, "source_path", "spec"), "spec.source_path");
  s.inputs = readDecls(r, r.field(spec, "inputs", "spec"), "spec.inputs");
  s.predictInputs = readDecls(r, r.field(spec, "predict_inputs", "spec"), "spec.predict_inputs");
  s.optimizer = readOptimizer(r, r.field(spec, "optimizer", "spec"), "spec.optimizer");
  const json& dims = r.array(r.field(spec, "dims", "spec"), "spec.dims", 1 << 16);
  const Path specPath("spec");
  const Path dimsPath = specPath.field("dims");
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const Path p = dimsPath.at(i);
    r.onlyFields(dims[i], {"size", "name", "desc", "color", "definition"}, p);
    s.dims.push_back({r.integer(r.field(dims[i], "size", p), p.field("size"), 0,
                                std::numeric_limits<std::int64_t>::max()),
                      r.str(r.field(dims[i], "name", p), p.field("name")),
                      r.str(r.field(dims[i], "desc", p), p.field("desc")),
                      r.str(r.field(dims[i], "color", p), p.field("color"))});
    // A named dim's definition ("D/H"): optional, and a product of dims when present.
    if (const json* def = r.optional(dims[i], "definition")) {
      std::string text = r.str(*def, p.field("definition"));
      if (!isDimName(text)) {
        r.fail(p.field("definition"), fmt::format("'{}' is not a product of dims (\"H·Dh\", \"D/H\")", text));
      }
      s.dims.back().definition = std::move(text);
    }
  }
  return s;
}

OpAttrs readAttrs(const Reader& r, const json& j, const Path& path) {
  OpAttrs a;
  if (!j.is_object()) r.fail(path, "expected an object");
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  auto pair = [&](const json& v, const Path& p) {
    r.array(v, p, 2);
    if (v.size() != 2) r.fail(p, "expected two integers");
    return std::array<std::int64_t, 2>{r.integer(v[0], p.at(0), 0, kMax),
                                       r.integer(v[1], p.at(1), 0, kMax)};
  };
  for (const auto& [key, v] : j.items()) {
    const Path p = path.field(key);
    if (key == "name") a.name = r.str(v, p);
    else if (key == "dims") {
      r.array(v, p, 2 * r.limits().maxRank);  // pad holds two amounts per axis
      for (std::size_t i = 0; i < v.size(); ++i) {
        a.dims.push_back(r.integer(v[i], p.at(i), kMin, kMax));
      }
    } else if (key == "names") a.names = r.dimNames(v, p);
    else if (key == "axis") a.axis = r.integer(v, p, kMin, kMax);
    else if (key == "all_axes") a.allAxes = r.boolean(v, p);
    else if (key == "keep_dims") a.keepDims = r.boolean(v, p);
    else if (key == "start") a.start = r.integer(v, p, kMin, kMax);
    else if (key == "count") a.count = r.integer(v, p, kMin, kMax);
    else if (key == "scalar") a.scalar = r.scalar(v, p);
    else if (key == "scalar2") a.scalar2 = r.scalar(v, p);
    else if (key == "scalar_operand") a.scalarOperand = r.boolean(v, p);
    else if (key == "scalar_left") a.scalarLeft = r.boolean(v, p);
    else if (key == "approximate") a.approximate = r.boolean(v, p);
    else if (key == "align_corners") a.alignCorners = r.boolean(v, p);
    else if (key == "ceil_mode") a.ceilMode = r.boolean(v, p);
    else if (key == "padding_idx") a.paddingIdx = r.integer(v, p, kMin, kMax);
    else if (key == "dtype") a.dtype = r.named<DType>(kDtypes, v, p, "dtype");
    else if (key == "reduction") a.reduction = r.named<Reduction>(kReductions, v, p, "reduction");
    else if (key == "kernel") a.kernel = pair(v, p);
    else if (key == "stride") a.stride = pair(v, p);
    else if (key == "padding") a.padding = pair(v, p);
    else if (key == "dilation") a.dilation = pair(v, p);
    else if (key == "groups") a.groups = r.integer(v, p, kMin, kMax);
    else if (key == "seed") a.seed = r.unsignedInteger(v, p);
    else r.fail(p, "unknown attribute");
  }
  return a;
}

Param readParam(const Reader& r, const json& j, const Path& p) {
  r.onlyFields(j, {"name", "tensor", "init", "decay"}, p);
  return {r.str(r.field(j, "name", p), p.field("name")), r.id(r.field(j, "tensor", p), p.field("tensor")),
          readInit(r, r.field(j, "init", p), p.field("init")),
          r.boolean(r.field(j, "decay", p), p.field("decay"))};
}

NamedTensor readNamed(const Reader& r, const json& j, const Path& p) {
  r.onlyFields(j, {"name", "tensor"}, p);
  return {r.str(r.field(j, "name", p), p.field("name")), r.id(r.field(j, "tensor", p), p.field("tensor"))};
}

Update readUpdate(const Reader& r, const json& j, const Path& p) {
  r.onlyFields(j, {"target", "value"}, p);
  return {r.id(r.field(j, "target", p), p.field("target")), r.id(r.field(j, "value", p), p.field("value"))};
}

Frame readFrame(const Reader& r, const json& j, const Path& p) {
  r.onlyFields(j, {"file", "line", "column", "address", "function"}, p);
  Frame f;
  f.file = r.id(r.field(j, "file", p), p.field("file"));
  f.line = static_cast<std::int32_t>(r.integer(r.field(j, "line", p), p.field("line"), 0, 1 << 30));
  f.column = static_cast<std::int32_t>(r.integer(r.field(j, "column", p), p.field("column"), 0, 1 << 30));
  f.address = r.unsignedInteger(r.field(j, "address", p), p.field("address"));
  f.function = r.str(r.field(j, "function", p), p.field("function"));
  return f;
}

std::vector<FrameId> readChain(const Reader& r, const json& j, const Path& p) {
  r.array(j, p, 4096);
  std::vector<FrameId> chain;
  chain.reserve(j.size());
  for (std::size_t k = 0; k < j.size(); ++k) chain.push_back(r.id(j[k], p.at(k)));
  return chain;
}

std::string describeType(const TensorInfo& t) {
  return formatShape(t.shape) + " " + std::string(dtypeName(t.dtype));
}

// What the budget charges for a heap block of `bytes` (malloc's header and rounding).
std::size_t heap(std::size_t bytes) { return bytes == 0 ? 0 : (bytes + 31) & ~std::size_t{15}; }
std::size_t heapOf(const std::string& s) { return s.size() < 16 ? 0 : heap(s.size() + 1); }
std::size_t namesHeap(const DimNames& names) {
  std::size_t bytes = heap(names.size() * sizeof(std::string));
  for (const std::string& n : names) bytes += heapOf(n);
  return bytes;
}

// ----- the streaming reader ----------------------------------------------------------------------

// Where a value of the document goes.
enum class Slot : std::uint8_t {
  format, version, spec, sources, graph,                 // root fields
  tensors, ops, params, state, inputs, captures, outputs, updates,  // graph arrays
  files, frames, chains,                                  // sites arrays
  attrs,                                                  // an op's attrs (inside a direct element)
};

// ----- direct elements: a tensor or an op, read field by field -----------------------------------
// The two arrays that hold nearly all of a large document are read without a JSON tree: each
// field's value is checked as it arrives (the same checks, with the same messages, as the
// Reader's), and an op's attrs, rare and varied, are captured as a tree.

constexpr std::array<std::string_view, 6> kOpFields = {"kind", "inputs", "out", "phase", "site", "attrs"};
constexpr std::array<std::string_view, 4> kTensorFields = {"shape", "dtype", "source", "names"};
enum OpField : std::uint8_t { kKind, kInputs, kOut, kPhase, kSite, kAttrs };
enum TensorField : std::uint8_t { kShape, kDtype, kSource, kNames };

// The element being read and the field its value belongs to.
struct DirectElement {
  Slot slot = Slot::ops;
  std::string key;                // the field being read
  std::uint8_t field = 0;         // its index in kOpFields / kTensorFields
  std::size_t depth = 1;          // 1: in the element's object; 2: in a field's array
  std::size_t count = 0;          // entries of that array so far
  std::uint8_t seen = 0;          // a bit per field read
  bool hasNames = false;
  std::size_t charged = 0;        // what the element's arrays were charged while read
  Op op;
  TensorInfo tensor;
  DimNames names;
};

// A tensor read without "source" is made by the op that names it as its "out" (a given source is
// never kNone: ids are checked >= 0; validateGraph checks given ones). A second op naming such a
// tensor, or none, is an error here, at its path.
void fillLeftOutSources(const Reader& r, Graph& g, const std::string& path) {
  std::vector<char> filled(g.tensors.size(), 0);
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const TensorId out = g.ops[i].out;
    const bool inRange = out >= 0 && static_cast<std::size_t>(out) < g.tensors.size();
    if (!inRange || filled[static_cast<std::size_t>(out)]) {
      const Path graph(path);
      const Path ops = graph.field("ops");
      const Path op = ops.at(i);
      r.fail(op.field("out"), inRange ? fmt::format("tensor {} is not produced by exactly this op", out)
                                      : fmt::format("{} is out of range (0..{})", out,
                                                    std::max<std::int64_t>(static_cast<std::int64_t>(g.tensors.size()) - 1, 0)));
    }
    const auto t = static_cast<std::size_t>(out);
    if (g.tensors[t].source == kNone) {
      g.tensors[t].source = static_cast<OpId>(i);
      filled[t] = 1;
    }
  }
  for (std::size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].source == kNone) {
      const Path graph(path);
      const Path tensors = graph.field("tensors");
      r.fail(tensors.at(t), "no op makes this tensor (its \"source\" is left out and no op's \"out\" names it)");
    }
  }
}

// The two spellings of one document: JSON's text, and CBOR (the spec program's), which nlohmann
// reads into the same events.
enum class Syntax : std::uint8_t { json, cbor };

// CBOR spells the writer's documents in 0.6-0.8 times the bytes of their JSON (bench/ir): its
// bytes are charged as twice as many, so that the same documents fit the same budget.
constexpr std::size_t kCborBytesAsJson = 2;

class StreamingReader : public nlohmann::json_sax<json> {
 public:
  StreamingReader(const Reader& r, std::size_t documentBytes, Syntax syntax)
      : r_(r),
        syntax_(syntax),
        budget_(r.limits().maxMemoryPerByte * documentBytes * (syntax == Syntax::cbor ? kCborBytesAsJson : 1) +
                (std::size_t{1} << 20)) {}

  TracedModel finish() {
    if (!sawRoot_) r_.fail("$", "expected an object");
    const std::array<std::pair<bool, std::string_view>, 5> required = {
        {{sawFormat_, "format"}, {sawVersion_, "version"}, {sawSpec_, "spec"},
         {sawSources_, "sources"}, {sawTrain_, "train"}}};
    for (const auto& [seen, name] : required) {
      if (!seen) r_.fail("$", fmt::format("missing field '{}'", name));
    }
    auto attachText = [&](Graph& g) {
      for (SourceFile& f : g.sites.files) {
        if (auto it = sources_.find(f.path); it != sources_.end()) f.text = it->second;
      }
    };
    attachText(model_.train);
    if (model_.hasInfer) attachText(model_.infer);
    return std::move(model_);
  }

  // ----- json_sax events ---------------------------------------------------------------------
  bool null() override { return scalar(json(nullptr)); }
  bool boolean(bool v) override { return scalar(json(v)); }
  bool number_integer(number_integer_t v) override { return scalar(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(json(v)); }
  bool string(string_t& v) override {
    if (v.size() > r_.limits().maxStringBytes) r_.fail(path(), "string too long");
    requireUtf8(v);
    if (direct_ && !capturing() && directString(v)) return true;
    return scalar(json(std::move(v)));
  }
  bool binary(binary_t&) override { r_.fail(path(), "unexpected binary value"); }

  bool start_object(std::size_t) override { return start(true); }
  bool start_array(std::size_t) override { return start(false); }
  bool key(string_t& k) override {
    requireUtf8(k);
    if (capturing()) {
      captureKey_ = std::move(k);
      return true;
    }
    if (direct_) {
      direct_->key = std::move(k);
      return true;
    }
    Frame& f = frames_.back();
    f.key = std::move(k);
    return true;
  }
  bool end_object() override { return end(); }
  bool end_array() override { return end(); }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    throw IrFormatError(fmt::format("not valid {} (byte {}): {}", syntax_ == Syntax::cbor ? "CBOR" : "JSON",
                                    position, e.what()));
  }

 private:
  // A container of the document's fixed layout being read (outside any captured value).
  enum class Layout : std::uint8_t { root, graph, sites, stream };
  struct Frame {
    Layout layout;
    Slot slot;                 // stream: what its elements are
    std::string path;          // "train.ops"
    std::string key;           // the current key of an object
    std::size_t index = 0;     // the next element of a stream
    std::vector<bool> seen;    // the fields of an object already read
  };

  bool capturing() const { return !capture_.empty() || captureActive_; }

  // JSON's lexer rejects text that is not UTF-8; CBOR's reader takes a text string's bytes as
  // they are, and everything after the reader (nlohmann's dump, the pages) expects UTF-8.
  void requireUtf8(std::string_view text) const {
    if (syntax_ == Syntax::cbor && !isValidUtf8(text)) r_.fail(path(), "a text string that is not UTF-8");
  }

  std::string path() const {
    if (frames_.empty()) return "$";
    const Frame& f = frames_.back();
    if (f.layout == Layout::stream) return fmt::format("{}[{}]", f.path, f.index);
    return f.path.empty() ? f.key : f.path + "." + f.key;
  }

  void charge(std::size_t bytes) {
    used_ += bytes;
    if (used_ > budget_) {
      r_.fail(path(), fmt::format("the document needs more than {} bytes of memory ({} per byte of "
                                  "JSON): it is not an IR a model produces",
                                  budget_, r_.limits().maxMemoryPerByte));
    }
  }

  void checkDepth() const {
    const std::size_t directDepth = direct_ ? direct_->depth : 0;
    if (frames_.size() + directDepth + capture_.size() >= r_.limits().maxDepth) {
      r_.fail(path(), fmt::format("nested deeper than {} levels", r_.limits().maxDepth));
    }
  }

  // ----- captured values: one element (or one small root field) as a JSON tree ---------------

  // A capture at `path`, or at element `index` of the stream at `path`.
  void beginCapture(Slot slot, const std::string& path, std::size_t index = kNotAnElement) {
    captureActive_ = true;
    captureSlot_ = slot;
    capturePath_ = path;
    captureIndex_ = index;
    captureCharge_ = 0;
  }

  // Adds a value to the captured tree; returns the container to descend into (if it is one).
  json* add(json&& value) {
    // A json value and its place in its container, and a string's own block.
    constexpr std::size_t kNodeBytes = 64;
    const std::size_t bytes = kNodeBytes + (value.is_string() ? heapOf(value.get_ref<const std::string&>()) : 0);
    captureCharge_ += bytes;
    charge(bytes);
    if (capture_.empty()) {
      captureRoot_ = std::move(value);
      return &captureRoot_;
    }
    json& parent = *capture_.back();
    if (parent.is_object()) {
      json& slot = parent[captureKey_];
      slot = std::move(value);
      return &slot;
    }
    parent.push_back(std::move(value));
    return &parent.back();
  }

  bool scalar(json&& value) {
    if (capturing()) {
      add(std::move(value));
      if (capture_.empty()) completeCapture();
      return true;
    }
    if (direct_) {
      directScalar(std::move(value));
      return true;
    }
    routeValue(false, false);  // a scalar where the layout wants one: captured
    add(std::move(value));
    completeCapture();
    return true;
  }

  bool start(bool object) {
    checkDepth();
    if (capturing()) {
      capture_.push_back(add(object ? json::object() : json::array()));
      return true;
    }
    if (direct_) {
      directStart(object);
      return true;
    }
    if (routeValue(true, object)) return true;  // a layout container was pushed, or an element begun
    capture_.push_back(add(object ? json::object() : json::array()));
    return true;
  }

  bool end() {
    if (!capture_.empty()) {
      capture_.pop_back();
      if (capture_.empty()) completeCapture();
      return true;
    }
    if (direct_) {
      directEnd();
      return true;
    }
    finishFrame();
    return true;
  }

  // A value starts outside any captured tree: decides where it goes. Pushes a layout frame (and
  // returns true) for the containers of the fixed layout; otherwise starts a capture.
  bool routeValue(bool container, bool object) {
    if (frames_.empty()) {
      if (!container || !object) r_.fail("$", "expected an object");
      sawRoot_ = true;
      frames_.push_back({Layout::root, Slot::format, "", "", 0, std::vector<bool>(6, false)});
      return true;
    }
    Frame& f = frames_.back();
    if (f.layout == Layout::stream) {  // an element: its path is spelled out only for an error
      if (f.index >= r_.limits().maxTensors) r_.fail(f.path, fmt::format("too many entries ({})", f.index + 1));
      if (f.slot == Slot::tensors || f.slot == Slot::ops) {
        if (!container || !object) r_.fail(Path(f.path).at(f.index), "expected an object");
        direct_.emplace();
        direct_->slot = f.slot;
        return true;
      }
      beginCapture(f.slot, f.path, f.index);
      return false;
    }
    const std::string p = path();
    switch (f.layout) {
      case Layout::root: return routeRoot(f, p, container, object);
      case Layout::graph: return routeGraph(f, p, container, object);
      case Layout::sites: return routeSites(f, p, container, object);
      case Layout::stream: break;
    }
    return false;
  }

  // Marks field `i` of object frame `f` read; a second one is an error.
  void once(Frame& f, std::size_t i, const std::string& p) {
    if (f.seen[i]) r_.fail(p, "duplicate field");
    f.seen[i] = true;
  }

  void pushStream(Slot slot, const std::string& p, bool container, bool object) {
    if (!container || object) r_.fail(p, "expected an array");
    frames_.push_back({Layout::stream, slot, p, "", 0, {}});
  }

  bool routeRoot(Frame& f, const std::string& p, bool container, bool object) {
    static constexpr std::array<std::string_view, 6> kFields = {"format", "version", "spec", "sources", "train", "infer"};
    const auto at = std::find(kFields.begin(), kFields.end(), f.key);
    if (at == kFields.end()) {
      // Fields are read as they come: another kind of document (a diagram's JSON, whose "format"
      // comes late) fails on its first field, before its format could say what it is.
      r_.fail(p, sawFormat_ ? "unknown field"
                            : "unknown field: this is not an nndna IR document (one starts with \"format\": "
                              "\"nndna-ir\"; `nndna ir` and `nndna trace --json` write them)");
    }
    const auto i = static_cast<std::size_t>(at - kFields.begin());
    once(f, i, p);
    switch (i) {
      case 0: sawFormat_ = true; beginCapture(Slot::format, p); return false;
      case 1: sawVersion_ = true; beginCapture(Slot::version, p); return false;
      case 2: sawSpec_ = true; beginCapture(Slot::spec, p); return false;
      case 3: sawSources_ = true; pushStream(Slot::sources, p, container, object); return true;
      default: {
        const bool infer = i == 5;
        if (infer && !container) {  // "infer": null — a spec without predict
          beginCapture(Slot::graph, p);
          return false;
        }
        if (!container || !object) r_.fail(p, "expected an object");
        if (infer) {
          model_.hasInfer = true;
        } else {
          sawTrain_ = true;
        }
        graph_ = infer ? &model_.infer : &model_.train;
        frames_.push_back({Layout::graph, Slot::graph, p, "", 0, std::vector<bool>(9, false)});
        return true;
      }
    }
  }

  bool routeGraph(Frame& f, const std::string& p, bool container, bool object) {
    static constexpr std::array<std::string_view, 9> kFields = {
        "tensors", "ops", "params", "state", "inputs", "captures", "outputs", "updates", "sites"};
    static constexpr std::array<Slot, 8> kSlots = {Slot::tensors, Slot::ops, Slot::params, Slot::state,
                                                   Slot::inputs, Slot::captures, Slot::outputs, Slot::updates};
    const auto at = std::find(kFields.begin(), kFields.end(), f.key);
    if (at == kFields.end()) r_.fail(p, "unknown field");
    const auto i = static_cast<std::size_t>(at - kFields.begin());
    once(f, i, p);
    if (i < kSlots.size() && kSlots[i] == Slot::ops) {
      // A graph has one op per tensor, and the writer puts the tensors first: room for the ops at
      // once (no copies as the array grows), charged now rather than op by op.
      const std::size_t count = graph_->tensors.size();
      charge(count * sizeof(Op));
      graph_->ops.reserve(count);
      adviseHugePages(graph_->ops);
      opsPrepaid_ = count;
    }
    if (i < kSlots.size()) {
      pushStream(kSlots[i], p, container, object);
      return true;
    }
    if (!container || !object) r_.fail(p, "expected an object");
    frames_.push_back({Layout::sites, Slot::graph, p, "", 0, std::vector<bool>(3, false)});
    return true;
  }

  bool routeSites(Frame& f, const std::string& p, bool container, bool object) {
    static constexpr std::array<std::string_view, 3> kFields = {"files", "frames", "chains"};
    static constexpr std::array<Slot, 3> kSlots = {Slot::files, Slot::frames, Slot::chains};
    const auto at = std::find(kFields.begin(), kFields.end(), f.key);
    if (at == kFields.end()) r_.fail(p, "unknown field");
    const auto i = static_cast<std::size_t>(at - kFields.begin());
    once(f, i, p);
    pushStream(kSlots[i], p, container, object);
    return true;
  }

  // A layout container ends: required fields, and the graph's validation.
  void finishFrame() {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    switch (f.layout) {
      case Layout::root:
      case Layout::stream:
        return;
      case Layout::sites: {
        static constexpr std::array<std::string_view, 3> kFields = {"files", "frames", "chains"};
        for (std::size_t i = 0; i < kFields.size(); ++i) {
          if (!f.seen[i]) r_.fail(f.path, fmt::format("missing field '{}'", kFields[i]));
        }
        return;
      }
      case Layout::graph: {
        // "updates" (index 7) is optional: a traced graph has none.
        static constexpr std::array<std::string_view, 9> kFields = {
            "tensors", "ops", "params", "state", "inputs", "captures", "outputs", "updates", "sites"};
        for (std::size_t i = 0; i < kFields.size(); ++i) {
          if (!f.seen[i] && i != 7) r_.fail(f.path, fmt::format("missing field '{}'", kFields[i]));
        }
        fillLeftOutSources(r_, *graph_, f.path);
        validateGraph(*graph_, f.path);
        return;
      }
    }
  }

  // A captured value is complete: convert it where its slot says, then drop the tree.
  void completeCapture() {
    const json value = std::move(captureRoot_);
    captureRoot_ = nullptr;
    captureActive_ = false;
    used_ -= captureCharge_;
    const Path where(capturePath_);
    const Path p = captureIndex_ == kNotAnElement ? where : where.at(captureIndex_);
    Frame* stream = frames_.empty() || frames_.back().layout != Layout::stream ? nullptr : &frames_.back();
    switch (captureSlot_) {
      case Slot::format: {
        const std::string format = r_.str(value, p);
        if (format != kIrFormat) r_.fail(p, fmt::format("expected '{}', got '{}'", kIrFormat, format));
        break;
      }
      case Slot::version: {
        const std::int64_t version = r_.integer(value, p, 0, 1 << 20);
        if (version < 1 || version > kIrVersion) {
          r_.fail(p, fmt::format("this nndna reads versions 1 to {}, the document is version {}", kIrVersion, version));
        }
        break;
      }
      case Slot::spec: model_.spec = readSpec(r_, value); break;
      case Slot::graph:
        if (!value.is_null()) r_.fail(p, "expected an object or null");
        break;
      case Slot::sources: {
        r_.onlyFields(value, {"path", "text"}, p);
        std::string path = r_.str(r_.field(value, "path", p), p.field("path"));
        std::string text = r_.str(r_.field(value, "text", p), p.field("text"));
        charge(96 + heapOf(path) + heapOf(text));
        sources_[std::move(path)] = std::move(text);
        break;
      }
      case Slot::tensors:
      case Slot::ops:  // read directly, never captured
        break;
      case Slot::attrs:  // a field of the op being read directly: the stream's index stays
        direct_->op.attrs = readAttrs(r_, value, p.field("attrs"));
        return;
      case Slot::params:
      case Slot::state: {
        Param param = readParam(r_, value, p);
        charge(sizeof(Param) + heapOf(param.name));
        (captureSlot_ == Slot::params ? graph_->params : graph_->state).push_back(std::move(param));
        break;
      }
      case Slot::inputs:
      case Slot::captures: {
        NamedTensor named = readNamed(r_, value, p);
        charge(sizeof(NamedTensor) + heapOf(named.name));
        (captureSlot_ == Slot::inputs ? graph_->inputs : graph_->captures).push_back(std::move(named));
        break;
      }
      case Slot::outputs:
        charge(sizeof(TensorId));
        graph_->outputs.push_back(r_.id(value, p));
        break;
      case Slot::updates:
        charge(sizeof(Update));
        graph_->updates.push_back(readUpdate(r_, value, p));
        break;
      case Slot::files: {
        r_.onlyFields(value, {"path"}, p);
        std::string path = r_.str(r_.field(value, "path", p), p.field("path"));
        charge(sizeof(SourceFile) + heapOf(path));
        graph_->sites.files.push_back({std::move(path), ""});
        break;
      }
      case Slot::frames: {
        ir::Frame frame = readFrame(r_, value, p);
        charge(sizeof(ir::Frame) + heapOf(frame.function));
        graph_->sites.frames.push_back(std::move(frame));
        break;
      }
      case Slot::chains: {
        std::vector<FrameId> chain = readChain(r_, value, p);
        charge(sizeof(chain) + heap(chain.size() * sizeof(FrameId)));
        graph_->sites.chains.push_back(std::move(chain));
        break;
      }
    }
    if (stream != nullptr) ++stream->index;
  }

  // ----- direct elements ------------------------------------------------------------------------

  Path elementPath(const Path& stream) const { return stream.at(frames_.back().index); }

  // The index of the element's current key in kOpFields / kTensorFields (their size if unknown).
  std::size_t fieldIndex() const {
    const DirectElement& e = *direct_;
    const bool isOp = e.slot == Slot::ops;
    const auto* begin = isOp ? kOpFields.data() : kTensorFields.data();
    const auto* end = begin + (isOp ? kOpFields.size() : kTensorFields.size());
    return static_cast<std::size_t>(std::find(begin, end, e.key) - begin);
  }

  // A field of the element begins: which one (unknown and repeated fields are errors).
  void directField(const Path& p) {
    DirectElement& e = *direct_;
    const std::size_t at = fieldIndex();
    if (at == (e.slot == Slot::ops ? kOpFields.size() : kTensorFields.size())) r_.fail(p.field(e.key), "unknown field");
    e.field = static_cast<std::uint8_t>(at);
    const auto bit = static_cast<std::uint8_t>(1u << e.field);
    if (e.seen & bit) r_.fail(p.field(e.key), "duplicate field");
    e.seen |= bit;
  }

  // Whether the current field holds an array of values (an op's inputs, a tensor's shape, names).
  bool directFieldIsArray() const {
    const DirectElement& e = *direct_;
    return e.slot == Slot::ops ? e.field == kInputs : e.field == kShape || e.field == kNames;
  }

  void directScalar(json&& v) {
    DirectElement& e = *direct_;
    const Path stream(frames_.back().path);
    const Path p = elementPath(stream);
    if (e.depth == 2) {  // an entry of a field's array
      directEntry(p.field(e.key).at(e.count), v);
      ++e.count;
      return;
    }
    directField(p);
    const Path f = p.field(e.key);
    if (e.slot == Slot::ops) {
      switch (e.field) {
        case kKind: {
          const std::string kind = r_.str(v, f);
          const auto k = opKindFromName(kind);
          if (!k) r_.fail(f, fmt::format("unknown op kind '{}'", kind));
          e.op.kind = *k;
          return;
        }
        case kOut: e.op.out = r_.id(v, f); return;
        // The optional fields read null as absent (a tool's JSON may write its nulls).
        case kPhase:
          if (!v.is_null()) e.op.phase = r_.named<Phase>(kPhases, v, f, "phase");
          return;
        case kSite:
          if (!v.is_null()) e.op.site = r_.id(v, f, -1);
          return;
        case kAttrs:
          if (!v.is_null()) readAttrs(r_, v, f);  // not an object: says so
          return;
        default: r_.fail(f, "expected an array");  // inputs
      }
    }
    switch (e.field) {
      case kDtype:
        if (!v.is_null()) e.tensor.dtype = r_.named<DType>(kDtypes, v, f, "dtype");
        return;
      case kSource:
        if (!v.is_null()) e.tensor.source = r_.id(v, f);
        return;
      case kNames:
        if (v.is_null()) return;  // absent
        [[fallthrough]];
      default: r_.fail(f, "expected an array");  // shape, names
    }
  }

  // The strings nearly every element holds (an op's kind and phase, a tensor's dtype), read without
  // wrapping them in a JSON value. Returns false for any other string: directScalar takes it.
  bool directString(const std::string& v) {
    DirectElement& e = *direct_;
    if (e.depth != 1) return false;
    const Path stream(frames_.back().path);
    const Path p = elementPath(stream);
    const bool isOp = e.slot == Slot::ops;
    const std::size_t at = fieldIndex();
    const bool hot = isOp ? at == kKind || at == kPhase : at == kDtype;
    if (!hot) return false;
    directField(p);
    const Path f = p.field(e.key);
    if (!isOp) {
      e.tensor.dtype = r_.named<DType>(kDtypes, std::string_view(v), f, "dtype");
    } else if (e.field == kPhase) {
      e.op.phase = r_.named<Phase>(kPhases, std::string_view(v), f, "phase");
    } else {
      const auto k = opKindFromName(v);
      if (!k) r_.fail(f, fmt::format("unknown op kind '{}'", v));
      e.op.kind = *k;
    }
    return true;
  }

  // One entry of an op's inputs or a tensor's shape or names, at `p`.
  void directEntry(const Path& p, const json& v) {
    DirectElement& e = *direct_;
    const std::size_t most = e.slot == Slot::ops ? r_.limits().maxTensors : r_.limits().maxRank;
    if (e.count >= most) r_.fail(p, fmt::format("too many entries ({})", e.count + 1));
    std::size_t bytes = 0;
    // Room for the usual entries at the first (a vector growing 1, 2, 4 allocates three times),
    // within what the finished element is charged (heap() of its arrays): two inputs, four axes,
    // and a name per axis of the shape (which the writer puts first; a count that differs fails).
    if (e.slot == Slot::ops) {
      if (e.count == 0) e.op.inputs.reserve(2);
      e.op.inputs.push_back(r_.id(v, p));
      bytes = sizeof(TensorId);
    } else if (e.field == kShape) {
      if (e.count == 0) e.tensor.shape.reserve(4);
      e.tensor.shape.push_back(r_.integer(v, p, 1, std::numeric_limits<std::int64_t>::max()));
      bytes = sizeof(std::int64_t);
    } else {
      if (e.count == 0) e.names.reserve(std::clamp<std::size_t>(e.tensor.shape.size(), 1, 4));
      e.names.push_back(r_.dimName(v, p));
      bytes = sizeof(std::string) + heapOf(e.names.back());
    }
    e.charged += bytes;
    charge(bytes);
  }

  void directStart(bool object) {
    DirectElement& e = *direct_;
    const Path stream(frames_.back().path);
    const Path p = elementPath(stream);
    if (e.depth == 2) {  // a container where an entry belongs
      const bool wantsString = e.slot == Slot::tensors && e.field == kNames;
      r_.fail(p.field(e.key).at(e.count), wantsString ? "expected a string" : "expected an integer");
    }
    directField(p);
    if (e.slot == Slot::ops && e.field == kAttrs) {  // captured; readAttrs says if it is no object
      beginCapture(Slot::attrs, frames_.back().path, frames_.back().index);
      capture_.push_back(add(object ? json::object() : json::array()));
      return;
    }
    if (!directFieldIsArray()) {
      const bool wantsString = e.slot == Slot::ops ? e.field == kKind || e.field == kPhase : e.field == kDtype;
      r_.fail(p.field(e.key), wantsString ? "expected a string" : "expected an integer");
    }
    if (object) r_.fail(p.field(e.key), "expected an array");
    if (e.slot == Slot::tensors && e.field == kNames) e.hasNames = true;
    e.depth = 2;
    e.count = 0;
  }

  void directEnd() {
    DirectElement& e = *direct_;
    const Path stream(frames_.back().path);
    const Path p = elementPath(stream);
    if (e.depth == 2) {  // a field's array ends
      e.depth = 1;
      if (e.slot == Slot::tensors && e.field == kShape && !checkedNumel(e.tensor.shape)) {
        r_.fail(p.field("shape"), "element count overflows 64 bits");
      }
      return;
    }
    used_ -= e.charged;
    if (e.slot == Slot::ops) {
      // "phase" and "site" may be left out: forward, and no user frame (the writer leaves out
      // those defaults).
      for (std::uint8_t i : {kKind, kInputs, kOut}) {
        if (!(e.seen & (1u << i))) r_.fail(p, fmt::format("missing field '{}'", kOpFields[i]));
      }
      const std::size_t own = opsPrepaid_ > 0 ? 0 : sizeof(Op);
      if (opsPrepaid_ > 0) --opsPrepaid_;
      {
        // An attribute block (the attributes and the count of the boxes holding it) is charged as
        // the op's own even when it is then shared: the budget bounds memory from above.
        const OpAttrs& a = e.op.attrs;  // read before interning, which may let go of the block
        const std::size_t block =
            e.op.attrs.any() ? heap(sizeof(OpAttrs) + sizeof(std::uint64_t)) : 0;
        charge(own + heap(e.op.inputs.size() * sizeof(TensorId)) + block +
               heap(a.dims.size() * sizeof(std::int64_t)) + heapOf(a.name) + namesHeap(a.names));
      }
      // The kind is known now: ops of a loop with the same attributes share one block.
      e.op.attrs = attrsInterner_.intern(e.op.kind, std::move(e.op.attrs));
      graph_->ops.push_back(std::move(e.op));
    } else {
      // "dtype" may be left out (f32), and "source" (the op whose "out" the tensor is, filled in
      // at the graph's end).
      if (!(e.seen & (1u << kShape))) r_.fail(p, fmt::format("missing field '{}'", kTensorFields[kShape]));
      TensorInfo& t = e.tensor;
      if (e.hasNames) {
        t.names = normalizedDimNames(std::move(e.names));
        if (!t.names.empty() && t.names.size() != t.shape.size()) {
          r_.fail(p.field("names"), fmt::format("expected one name per axis of {} ({}), got {}", formatShape(t.shape),
                                                t.shape.size(), t.names.size()));
        }
      }
      charge(sizeof(TensorInfo) + heap(t.shape.size() * sizeof(std::int64_t)) + namesHeap(t.names));
      const std::size_t room = graph_->tensors.capacity();
      graph_->tensors.push_back(std::move(t));
      if (graph_->tensors.capacity() != room) adviseHugePages(graph_->tensors);
    }
    direct_.reset();
    ++frames_.back().index;
  }

  const Reader& r_;
  const Syntax syntax_;
  const std::size_t budget_;
  std::size_t used_ = 0;
  TracedModel model_;
  Graph* graph_ = nullptr;
  std::map<std::string, std::string> sources_;
  std::vector<Frame> frames_;
  std::optional<DirectElement> direct_;  // the tensor or op being read directly
  OpAttrsInterner attrsInterner_;        // ops with the same attributes share one block
  std::size_t opsPrepaid_ = 0;           // ops whose room was reserved and charged in advance
  bool sawRoot_ = false, sawFormat_ = false, sawVersion_ = false, sawSpec_ = false,
       sawSources_ = false, sawTrain_ = false;
  // The value being captured.
  bool captureActive_ = false;
  Slot captureSlot_ = Slot::format;
  std::string capturePath_;
  static constexpr std::size_t kNotAnElement = std::numeric_limits<std::size_t>::max();
  std::size_t captureIndex_ = kNotAnElement;
  std::size_t captureCharge_ = 0;
  json captureRoot_;
  std::vector<json*> capture_;  // open containers of the captured tree
  std::string captureKey_;
};

}  // namespace

namespace {

TracedModel readDocument(std::string_view text, const ReadLimits& limits, std::string_view file, Syntax syntax) {
  const Reader r(limits, file);
  if (text.size() > limits.maxBytes) {
    r.fail("$", fmt::format("document too large ({} bytes, limit {})", text.size(), limits.maxBytes));
  }
  StreamingReader reader(r, text.size(), syntax);
  try {
    if (syntax == Syntax::cbor) {
      // Strict: nothing may follow the document; a tag is an error (the default handler).
      json::sax_parse(text.begin(), text.end(), &reader, json::input_format_t::cbor);
    } else {
      json::sax_parse(text.begin(), text.end(), &reader);
    }
  } catch (const IrFormatError& e) {
    if (file.empty() || !e.file().empty()) throw;
    throw IrFormatError(e.message(), std::string(file));
  }
  TracedModel model = reader.finish();
  // What the stages after reading rely on: one loss to differentiate, one prediction to draw.
  if (model.train.outputs.size() != 1) {
    r.fail("train.outputs", fmt::format("expected one output (the loss), got {}", model.train.outputs.size()));
  }
  const TensorInfo& loss = model.train.tensor(model.train.outputs[0]);
  if (!loss.shape.empty() || loss.dtype != DType::f32) {
    r.fail("train.outputs[0]", fmt::format("the loss must be a rank-0 f32 tensor, got {}", describeType(loss)));
  }
  if (model.hasInfer && model.infer.outputs.size() != 1) {
    r.fail("infer.outputs", fmt::format("expected one output (the prediction), got {}", model.infer.outputs.size()));
  }
  return model;
}

}  // namespace

TracedModel tracedModelFromJson(std::string_view text, const ReadLimits& limits, std::string_view file) {
  return readDocument(text, limits, file, Syntax::json);
}

TracedModel tracedModelFromCbor(std::string_view bytes, const ReadLimits& limits, std::string_view file) {
  return readDocument(bytes, limits, file, Syntax::cbor);
}

TracedModel tracedModelFromFile(const std::filesystem::path& path, const ReadLimits& limits) {
  const std::string file = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw IrFormatError(ec ? fmt::format("cannot read it: {}", ec.message()) : "not a regular file", file);
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw IrFormatError(fmt::format("cannot read it: {}", ec.message()), file);
  if (size > limits.maxBytes) {
    throw IrFormatError(fmt::format("document too large ({} bytes, limit {})", size, limits.maxBytes), file);
  }
  std::ifstream in(path, std::ios::binary);
  std::string text;
  text.reserve(static_cast<std::size_t>(size));
  adviseHugePages(text.data(), text.capacity());
  text.resize(static_cast<std::size_t>(size));
  if (!in.read(text.data(), static_cast<std::streamsize>(size))) {
    throw IrFormatError("cannot read it", file);
  }
  return tracedModelFromJson(text, limits, file);
}

}  // namespace nndna::ir
