// Writing the IR's JSON form (docs/ir.md), streamed: no document tree is built, so writing a
// graph costs time and memory linear in its size and little beyond the text itself. The same
// functions write its CBOR form (the spec program's), token for token, through a CborWriter.
#include <cmath>
#include <set>

#include "ir/cbor_writer.hpp"
#include "ir/json_names.hpp"
#include "ir/json_writer.hpp"
#include "nndna/ir_json.hpp"

namespace nndna::ir {

namespace {

template <class Enum, std::size_t N>
std::string_view nameOf(const std::array<std::string_view, N>& names, Enum value) {
  return names.at(static_cast<std::size_t>(value));
}

// JSON has no infinities: a non-finite scalar attribute (whereCausal's -inf fill, a clamp bound)
// is written as the string "inf", "-inf" or "nan".
template <class Writer>
void writeScalar(Writer& w, double v) {
  if (std::isfinite(v)) {
    w.value(v);
  } else {
    w.value(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
  }
}

template <class Writer>
void writeInit(Writer& w, const Init& init) {
  w.beginObject();
  w.member("kind", nameOf(json_names::kInits, init.kind));
  if (init.kind == Init::Kind::normal || init.kind == Init::Kind::uniform) w.member("a", init.a);
  if (init.kind == Init::Kind::uniform) w.member("b", init.b);
  w.endObject();
}

template <class Writer>
void writeLr(Writer& w, const LearningRate& lr) {
  w.beginObject();
  w.member("kind", nameOf(json_names::kLearningRates, lr.kind));
  w.member("value", lr.value);
  switch (lr.kind) {
    case LearningRate::Kind::constant: break;
    case LearningRate::Kind::linear:
    case LearningRate::Kind::cosineAnnealing:
      w.member("end", lr.end);
      w.member("steps", lr.steps);
      break;
    case LearningRate::Kind::staircase:
      w.member("steps", lr.steps);
      w.member("gamma", lr.gamma);
      break;
    case LearningRate::Kind::multiStep:
      w.key("milestones");
      w.value(std::span<const std::int64_t>(lr.milestones));
      w.member("gamma", lr.gamma);
      break;
  }
  w.endObject();
}

template <class Writer>
void writeOptimizer(Writer& w, const Optimizer& optimizer) {
  w.beginObject();
  std::visit(
      [&](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, SGD>) {
          w.member("kind", "sgd");
          w.key("lr");
          writeLr(w, o.lr);
          w.member("momentum", o.momentum);
          w.member("nesterov", o.nesterov);
          w.member("weight_decay", o.weightDecay);
        } else {
          w.member("kind", std::is_same_v<T, Adam> ? "adam" : "adamw");
          w.key("lr");
          writeLr(w, o.lr);
          w.member("beta1", o.beta1);
          w.member("beta2", o.beta2);
          w.member("eps", o.eps);
          if constexpr (std::is_same_v<T, AdamW>) w.member("weight_decay", o.weightDecay);
        }
        w.member("clip_grad_norm", o.clipGradNorm);
      },
      optimizer);
  w.endObject();
}

template <class Writer>
void writeDecls(Writer& w, const std::vector<InputDecl>& decls) {
  w.beginArray();
  for (const InputDecl& d : decls) {
    w.beginObject();
    w.member("name", d.name);
    w.key("shape");
    w.value(std::span<const std::int64_t>(d.shape));
    w.member("dtype", dtypeName(d.dtype));
    w.endObject();
  }
  w.endArray();
}

// Only the attributes that differ from their defaults are written; none: no "attrs" at all.
template <class Writer>
void writeAttrs(Writer& w, const OpAttrs& a) {
  static const OpAttrs d;  // the defaults, made once: this runs for every op
  bool open = false;
  auto key = [&](std::string_view k) {
    if (!open) {
      w.key("attrs");
      w.beginObject();
      open = true;
    }
    w.key(k);
  };
  if (a.name != d.name) { key("name"); w.value(a.name); }
  if (a.dims != d.dims) { key("dims"); w.value(std::span<const std::int64_t>(a.dims)); }
  if (a.names != d.names) { key("names"); w.value(std::span<const std::string>(a.names)); }
  if (a.axis != d.axis) { key("axis"); w.value(a.axis); }
  if (a.allAxes != d.allAxes) { key("all_axes"); w.value(a.allAxes); }
  if (a.keepDims != d.keepDims) { key("keep_dims"); w.value(a.keepDims); }
  if (a.start != d.start) { key("start"); w.value(a.start); }
  if (a.count != d.count) { key("count"); w.value(a.count); }
  // -0.0 == 0.0, but its sign is kept (`div(x, -0.0)` is -inf, not inf).
  auto differs = [](double v, double dv) { return !(v == dv) || std::signbit(v) != std::signbit(dv); };
  if (differs(a.scalar, d.scalar)) { key("scalar"); writeScalar(w, a.scalar); }
  if (differs(a.scalar2, d.scalar2)) { key("scalar2"); writeScalar(w, a.scalar2); }
  if (a.scalarOperand != d.scalarOperand) { key("scalar_operand"); w.value(a.scalarOperand); }
  if (a.scalarLeft != d.scalarLeft) { key("scalar_left"); w.value(a.scalarLeft); }
  if (a.approximate != d.approximate) { key("approximate"); w.value(a.approximate); }
  if (a.alignCorners != d.alignCorners) { key("align_corners"); w.value(a.alignCorners); }
  if (a.ceilMode != d.ceilMode) { key("ceil_mode"); w.value(a.ceilMode); }
  if (a.paddingIdx != d.paddingIdx) { key("padding_idx"); w.value(a.paddingIdx); }
  if (a.dtype != d.dtype) { key("dtype"); w.value(dtypeName(a.dtype)); }
  if (a.reduction != d.reduction) { key("reduction"); w.value(nameOf(json_names::kReductions, a.reduction)); }
  if (a.kernel != d.kernel) { key("kernel"); w.value(std::span<const std::int64_t>(a.kernel)); }
  if (a.stride != d.stride) { key("stride"); w.value(std::span<const std::int64_t>(a.stride)); }
  if (a.padding != d.padding) { key("padding"); w.value(std::span<const std::int64_t>(a.padding)); }
  if (a.dilation != d.dilation) { key("dilation"); w.value(std::span<const std::int64_t>(a.dilation)); }
  if (a.groups != d.groups) { key("groups"); w.value(a.groups); }
  if (a.seed != d.seed) { key("seed"); w.value(a.seed); }
  if (open) w.endObject();
}

template <class Writer>
void writeParams(Writer& w, const std::vector<Param>& params) {
  w.beginArray();
  for (const Param& p : params) {
    w.beginObject();
    w.member("name", p.name);
    w.member("tensor", p.tensor);
    w.key("init");
    writeInit(w, p.init);
    w.member("decay", p.decay);
    w.endObject();
  }
  w.endArray();
}

template <class Writer>
void writeNamed(Writer& w, const std::vector<NamedTensor>& named) {
  w.beginArray();
  for (const NamedTensor& n : named) {
    w.beginObject();
    w.member("name", n.name);
    w.member("tensor", n.tensor);
    w.endObject();
  }
  w.endArray();
}

template <class Writer>
void writeGraph(Writer& w, const Graph& g) {
  w.beginObject();
  w.key("tensors");
  w.beginArray();
  // Defaults are left out (docs/ir.md): f32, a tensor's source where the reader finds it (the
  // first op that names the tensor as its out), an op's forward phase and its missing site. A
  // million-op IR is a third smaller.
  std::vector<OpId> firstProducer(g.tensors.size(), kNone);
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const TensorId out = g.ops[i].out;
    if (out >= 0 && static_cast<std::size_t>(out) < g.tensors.size() &&
        firstProducer[static_cast<std::size_t>(out)] == kNone) {
      firstProducer[static_cast<std::size_t>(out)] = static_cast<OpId>(i);
    }
  }
  for (std::size_t i = 0; i < g.tensors.size(); ++i) {
    const TensorInfo& t = g.tensors[i];
    w.beginObject();
    w.key("shape");
    w.value(std::span<const std::int64_t>(t.shape));
    if (t.dtype != DType::f32) w.member("dtype", dtypeName(t.dtype));
    if (t.source == kNone || t.source != firstProducer[i]) w.member("source", t.source);
    if (!t.names.empty()) {  // written only when an axis is named: no cost for specs without names
      w.key("names");
      w.value(std::span<const std::string>(t.names));
    }
    w.endObject();
  }
  w.endArray();
  w.key("ops");
  w.beginArray();
  for (const Op& op : g.ops) {
    w.beginObject();
    w.member("kind", opKindName(op.kind));
    w.key("inputs");
    w.value(std::span<const TensorId>(op.inputs));
    w.member("out", op.out);
    if (op.phase != Phase::forward) w.member("phase", phaseName(op.phase));
    if (op.site != kNone) w.member("site", op.site);
    if (op.attrs.any()) writeAttrs(w, op.attrs);  // none: all defaults, nothing to write
    w.endObject();
  }
  w.endArray();
  w.key("params");
  writeParams(w, g.params);
  w.key("state");
  writeParams(w, g.state);
  w.key("inputs");
  writeNamed(w, g.inputs);
  w.key("captures");
  writeNamed(w, g.captures);
  w.key("outputs");
  w.value(std::span<const TensorId>(g.outputs));
  w.key("updates");
  w.beginArray();
  for (const Update& u : g.updates) {
    w.beginObject();
    w.member("target", u.target);
    w.member("value", u.value);
    w.endObject();
  }
  w.endArray();
  w.key("sites");
  w.beginObject();
  w.key("files");
  w.beginArray();
  for (const SourceFile& f : g.sites.files) {
    w.beginObject();
    w.member("path", f.path);
    w.endObject();
  }
  w.endArray();
  w.key("frames");
  w.beginArray();
  for (const Frame& f : g.sites.frames) {
    w.beginObject();
    w.member("file", f.file);
    w.member("line", f.line);
    w.member("column", f.column);
    w.member("address", f.address);
    w.member("function", f.function);
    w.endObject();
  }
  w.endArray();
  w.key("chains");
  w.beginArray();
  for (const std::vector<FrameId>& chain : g.sites.chains) w.value(std::span<const FrameId>(chain));
  w.endArray();
  w.endObject();
  w.endObject();
}

template <class Writer>
void writeModel(Writer& w, const TracedModel& model) {
  const SpecInfo& s = model.spec;
  w.beginObject();
  w.member("format", kIrFormat);
  w.member("version", kIrVersion);
  w.key("spec");
  w.beginObject();
  w.member("label", s.label);
  w.member("description", s.description);
  w.member("source_path", s.sourcePath);
  w.key("inputs");
  writeDecls(w, s.inputs);
  w.key("predict_inputs");
  writeDecls(w, s.predictInputs);
  w.key("optimizer");
  writeOptimizer(w, s.optimizer);
  w.key("dims");
  w.beginArray();
  for (const DimDecl& d : s.dims) {
    w.beginObject();
    w.member("size", d.size);
    w.member("name", d.name);
    w.member("desc", d.desc);
    w.member("color", d.color);
    if (!d.definition.empty()) w.member("definition", d.definition);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  // Each source text once, though both graphs name it.
  w.key("sources");
  w.beginArray();
  std::set<std::string_view> seen;
  for (const Graph* g : {&model.train, model.hasInfer ? &model.infer : nullptr}) {
    if (g == nullptr) continue;
    for (const SourceFile& f : g->sites.files) {
      if (f.text.empty() || !seen.insert(f.path).second) continue;
      w.beginObject();
      w.member("path", f.path);
      w.member("text", f.text);
      w.endObject();
    }
  }
  w.endArray();
  w.key("train");
  writeGraph(w, model.train);
  w.key("infer");
  if (model.hasInfer) {
    writeGraph(w, model.infer);
  } else {
    w.null();
  }
  w.endObject();
}

}  // namespace

std::string toJson(const TracedModel& model, int indent) {
  JsonWriter w(indent);
  // An IR takes 98-172 bytes per op and tensor pair (docs/ir.md), plus the source texts.
  std::size_t estimate = 4096;
  for (const Graph* g : {&model.train, model.hasInfer ? &model.infer : nullptr}) {
    if (g == nullptr) continue;
    estimate += 120 * g->ops.size();
    for (const SourceFile& f : g->sites.files) estimate += f.text.size() + f.path.size();
  }
  w.reserve(estimate);
  writeModel(w, model);
  return w.take();
}

void writeJson(const TracedModel& model, const std::function<void(std::string_view)>& sink, int indent) {
  JsonWriter w(indent, sink);
  writeModel(w, model);
  w.finish();
}

void writeCbor(const TracedModel& model, const std::function<void(std::string_view)>& sink) {
  CborWriter w(sink);
  writeModel(w, model);
  w.finish();
}

}  // namespace nndna::ir
