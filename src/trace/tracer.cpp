#include "trace/tracer.hpp"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "trace/callsite.hpp"
#include "trace/tensor_access.hpp"

namespace nndna::tracing {

namespace {
thread_local ModelBuilder* activeBuilder = nullptr;
thread_local Tracer* activeTracer = nullptr;

// Frames deeper than this are not attributed (a runaway recursion in a spec still traces).
constexpr std::size_t kMaxFrames = 256;
// Source files larger than this are not embedded in the IR.
constexpr std::uintmax_t kMaxSourceBytes = 4u << 20;
}  // namespace

std::uint32_t nextSerial() {
  static std::atomic<std::uint32_t> counter{0};
  std::uint32_t serial = ++counter;
  if (serial == 0) serial = ++counter;  // after 2^32 serials: skip the "none" value
  return serial;
}

ModelBuilder::ModelBuilder() : previous_(activeBuilder), serial_(nextSerial()) {
  activeBuilder = this;
}
ModelBuilder::~ModelBuilder() { activeBuilder = previous_; }
ModelBuilder* ModelBuilder::active() { return activeBuilder; }

Tensor ModelBuilder::add(ParamDecl decl) {
  if (params_.size() >= kParamTag - 1) failAtUserLine("param", "too many parameters");
  if (!names_.insert(decl.name).second) {
    // Besides a name used twice, the cause is a module held without one (a plain member
    // `Block b1;`, or one pushed into a std::vector), which takes its parent's path.
    failAtUserLine("param", "parameter '" + decl.name +
                                "' is registered twice: each needs its own name (a module held as a plain "
                                "member, `Block b;`, takes its parent's path; build it with child<Block>(\"b\"))");
  }
  params_.push_back(std::move(decl));
  return detail::TensorAccess::make(kParamTag | static_cast<std::uint32_t>(params_.size() - 1),
                                    serial_);
}

Tracer::Tracer(ir::Graph& graph, const std::vector<ParamDecl>& params, std::uint32_t paramSerial,
               bool training)
    : graph_(graph),
      training_(training),
      previous_(activeTracer),
      serial_(nextSerial()),
      paramSerial_(paramSerial) {
  activeTracer = this;
  paramTensors_.reserve(params.size());
  for (const ParamDecl& p : params) {
    const ir::TensorId id = addLeaf(p.isState ? ir::OpKind::state_input : ir::OpKind::param_input,
                                    p.name, p.shape, DType::f32, p.names);
    paramTensors_.push_back(id);
    ir::Param entry{p.name, id, p.init, p.decay};
    (p.isState ? graph_.state : graph_.params).push_back(std::move(entry));
  }
}

Tracer::~Tracer() { activeTracer = previous_; }

Tracer* Tracer::active() { return activeTracer; }

ir::TensorId Tracer::tensorOf(Tensor handle, std::string_view op, ir::SiteId site) const {
  auto fail = [&](std::string detail) {
    const SiteLocation at = innermostLocation(graph_, site);
    throw TraceError(at.file, at.line, std::string(op), at.withCallers(std::move(detail)));
  };
  if (!handle.defined()) fail("input tensor is undefined (never assigned)");
  const std::uint32_t id = detail::TensorAccess::id(handle);
  const std::uint32_t owner = detail::TensorAccess::owner(handle);
  if ((id & kParamTag) != 0) {
    const std::uint32_t slot = id & ~kParamTag;
    if (owner != paramSerial_ || slot >= paramTensors_.size()) {
      fail("input parameter belongs to another model than the one being traced");
    }
    return paramTensors_[slot];
  }
  if (owner != serial_ || id >= graph_.tensors.size()) {
    fail("input tensor belongs to another trace (a tensor kept from an earlier trace, e.g. in a "
         "module member or a static variable, cannot be used in this one)");
  }
  return static_cast<ir::TensorId>(id);
}

Tensor Tracer::handleOf(ir::TensorId id) const {
  return detail::TensorAccess::make(static_cast<std::uint32_t>(id), serial_);
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

ir::TensorId Tracer::emit(ir::Op&& op, Shape shape, DType dtype, ir::DimNames names) {
  const auto tensorId = static_cast<ir::TensorId>(graph_.tensors.size());
  const auto opId = static_cast<ir::OpId>(graph_.ops.size());
  if (graph_.tensors.size() >= kParamTag - 1) {
    const SiteLocation at = innermostLocation(graph_, op.site);
    throw TraceError(at.file, at.line, std::string(ir::opKindName(op.kind)),
                     at.withCallers("the traced graph has too many tensors (2^31)"));
  }
  graph_.tensors.push_back({std::move(shape), dtype, opId, std::move(names)});
  op.out = tensorId;
  op.phase = phase_;
  graph_.ops.emplace_back(std::move(op));
  return tensorId;
}

ir::TensorId Tracer::addLeaf(ir::OpKind kind, std::string name, Shape shape, DType dtype,
                             ir::DimNames names) {
  ir::Op op;
  op.kind = kind;
  op.attrs.edit().name = std::move(name);
  return emit(std::move(op), std::move(shape), dtype, std::move(names));
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
  SiteLocation at{graph.sites.files[static_cast<std::size_t>(frame.file)].path, frame.line, {}};
  constexpr std::size_t kCallersShown = 3;
  at.moreCallers = chain.size() - 1 > kCallersShown;
  for (std::size_t i = chain.size() - 1; i-- > 0 && at.callers.size() < kCallersShown;) {
    const ir::Frame& caller = graph.sites.frames[static_cast<std::size_t>(chain[i])];
    at.callers.push_back(caller.file == frame.file
                             ? fmt::format("line {}", caller.line)
                             : fmt::format("{}:{}", displayPath(graph.sites.files[static_cast<std::size_t>(caller.file)].path),
                                           caller.line));
  }
  return at;
}

std::string SiteLocation::withCallers(std::string detail) const {
  if (callers.empty()) return detail;
  detail += " (called from ";
  for (std::size_t i = 0; i < callers.size(); ++i) detail += (i == 0 ? "" : ", from ") + callers[i];
  return detail + (moreCallers ? ", …)" : ")");
}

SiteLocation currentUserLocation() {
  if (Tracer* tracer = Tracer::active()) return innermostLocation(tracer->graph(), tracer->captureSite());
  const ModelBuilder* builder = ModelBuilder::active();
  if (builder == nullptr || builder->boundary() == 0) return {};
  std::array<std::uintptr_t, kMaxFrames> addresses{};
  const std::size_t n = walkReturnAddresses(addresses, builder->boundary());
  for (std::size_t i = 0; i < n; ++i) {
    const ResolvedFrame& frame = resolveReturnAddress(addresses[i]);
    if (frame.user) return {frame.file, frame.line};
  }
  return {};
}

void failAtUserLine(std::string_view op, std::string detail) {
  const SiteLocation at = currentUserLocation();
  throw TraceError(at.file, at.line, std::string(op), at.withCallers(std::move(detail)));
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
