#include "trace/tracer.hpp"

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "trace/callsite.hpp"

namespace nndna::tracing {

namespace {
thread_local ModelBuilder* activeBuilder = nullptr;
thread_local Tracer* activeTracer = nullptr;

// Frames deeper than this are not attributed (a runaway recursion in a spec still traces).
constexpr std::size_t kMaxFrames = 256;
// Source files larger than this are not embedded in the IR.
constexpr std::uintmax_t kMaxSourceBytes = 4u << 20;
}  // namespace

ModelBuilder::ModelBuilder() : previous_(activeBuilder) { activeBuilder = this; }
ModelBuilder::~ModelBuilder() { activeBuilder = previous_; }
ModelBuilder* ModelBuilder::active() { return activeBuilder; }

Tensor ModelBuilder::add(ParamDecl decl) {
  if (params_.size() >= kParamTag) throw std::length_error("too many parameters");
  if (!names_.insert(decl.name).second) {
    throw std::invalid_argument("parameter '" + decl.name + "' is registered twice");
  }
  params_.push_back(std::move(decl));
  return Tensor::fromHandle(kParamTag | static_cast<std::uint32_t>(params_.size() - 1));
}

Tracer::Tracer(ir::Graph& graph, const std::vector<ParamDecl>& params, bool training)
    : graph_(graph), training_(training), previous_(activeTracer) {
  activeTracer = this;
  paramTensors_.reserve(params.size());
  for (const ParamDecl& p : params) {
    const ir::TensorId id = addLeaf(p.isState ? ir::OpKind::state_input : ir::OpKind::param_input,
                                    p.name, p.shape, DType::f32);
    paramTensors_.push_back(id);
    ir::Param entry{p.name, id, p.init, p.decay};
    (p.isState ? graph_.state : graph_.params).push_back(std::move(entry));
  }
}

Tracer::~Tracer() { activeTracer = previous_; }

Tracer* Tracer::active() { return activeTracer; }

ir::TensorId Tracer::tensorOf(Tensor handle, std::string_view op, ir::SiteId site) const {
  const std::uint32_t h = handle.handle();
  if (!handle.defined()) {
    const SiteLocation at = innermostLocation(graph_, site);
    throw TraceError(at.file, at.line, std::string(op), "input tensor is undefined (never assigned)");
  }
  if ((h & kParamTag) != 0) {
    const std::uint32_t slot = h & ~kParamTag;
    if (slot < paramTensors_.size()) return paramTensors_[slot];
  } else if (h < graph_.tensors.size()) {
    return static_cast<ir::TensorId>(h);
  }
  const SiteLocation at = innermostLocation(graph_, site);
  throw TraceError(at.file, at.line, std::string(op),
                   "input tensor does not belong to this trace (kept from another one?)");
}

ir::SiteId Tracer::captureSite() {
  std::array<std::uintptr_t, kMaxFrames> addresses{};
  const std::size_t n = walkReturnAddresses(addresses, boundary_);
  std::string key(reinterpret_cast<const char*>(addresses.data()), n * sizeof(std::uintptr_t));
  if (auto it = siteByAddresses_.find(key); it != siteByAddresses_.end()) return it->second;

  // New stack shape: keep its user frames, outermost first.
  std::vector<ir::FrameId> chain;
  for (std::size_t i = n; i-- > 0;) {
    if (resolveReturnAddress(addresses[i]).user) chain.push_back(internFrame(addresses[i]));
  }
  ir::SiteId site = ir::kNone;
  if (!chain.empty()) {
    // Different stacks (a layer called directly or through a helper of nndna's) can share a
    // chain of user frames: intern the chain too.
    auto [it, inserted] =
        siteByChain_.try_emplace(chain, static_cast<ir::SiteId>(graph_.sites.chains.size()));
    if (inserted) graph_.sites.chains.push_back(std::move(chain));
    site = it->second;
  }
  siteByAddresses_.emplace(std::move(key), site);
  return site;
}

ir::FrameId Tracer::internFrame(std::uintptr_t address) {
  if (auto it = frameByAddress_.find(address); it != frameByAddress_.end()) return it->second;
  const ResolvedFrame& resolved = resolveReturnAddress(address);
  auto [fileIt, newFile] =
      fileByPath_.try_emplace(resolved.file, static_cast<std::int32_t>(graph_.sites.files.size()));
  if (newFile) graph_.sites.files.push_back({resolved.file, ""});
  ir::Frame frame{fileIt->second, resolved.line, resolved.column, resolved.relativeAddress,
                  resolved.function};
  const auto id = static_cast<ir::FrameId>(graph_.sites.frames.size());
  graph_.sites.frames.push_back(std::move(frame));
  frameByAddress_.emplace(address, id);
  return id;
}

ir::TensorId Tracer::emit(ir::Op op, Shape shape, DType dtype) {
  const auto tensorId = static_cast<ir::TensorId>(graph_.tensors.size());
  const auto opId = static_cast<ir::OpId>(graph_.ops.size());
  if (graph_.tensors.size() >= kParamTag) throw std::length_error("graph too large");
  graph_.tensors.push_back({std::move(shape), dtype, opId});
  op.out = tensorId;
  op.phase = phase_;
  graph_.ops.push_back(std::move(op));
  return tensorId;
}

ir::TensorId Tracer::addLeaf(ir::OpKind kind, std::string name, Shape shape, DType dtype) {
  ir::Op op;
  op.kind = kind;
  op.attrs.name = std::move(name);
  return emit(std::move(op), std::move(shape), dtype);
}

void Tracer::attachSourceText() {
  for (ir::SourceFile& file : graph_.sites.files) {
    if (!file.text.empty()) continue;
    std::error_code ec;
    const auto size = std::filesystem::file_size(file.path, ec);
    if (ec || size > kMaxSourceBytes) continue;
    std::ifstream in(file.path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    file.text = text.str();
  }
}

SiteLocation innermostLocation(const ir::Graph& graph, ir::SiteId site) {
  if (site < 0 || static_cast<std::size_t>(site) >= graph.sites.chains.size()) return {};
  const auto& chain = graph.sites.chains[static_cast<std::size_t>(site)];
  if (chain.empty()) return {};
  const ir::Frame& frame = graph.sites.frames[static_cast<std::size_t>(chain.back())];
  return {graph.sites.files[static_cast<std::size_t>(frame.file)].path, frame.line};
}

std::string displayPath(std::string_view path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  const fs::path p(path);
  if (!ec && p.is_absolute()) {
    const fs::path rel = p.lexically_relative(cwd);
    if (!rel.empty() && *rel.begin() != "..") return rel.string();
  }
  return std::string(path);
}

}  // namespace nndna::tracing
