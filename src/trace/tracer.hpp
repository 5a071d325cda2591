// The trace in progress: the graph being built, parameter handles, and call-site interning.
// One Tracer is active per thread while a spec's forward runs; ops find it through active().
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "nndna/ir.hpp"
#include "nndna/trace.hpp"

namespace nndna::tracing {

// Tensor handles with this bit set name a parameter slot (valid across traces of one model);
// others are tensor ids of the active trace's graph.
inline constexpr std::uint32_t kParamTag = 0x80000000u;

// A new serial for a trace or a built model (never 0): the owner a Tensor's handle records.
std::uint32_t nextSerial();

// Collects the parameters a model registers while it is built (see Module::param).
class ModelBuilder {
 public:
  ModelBuilder();
  ~ModelBuilder();
  ModelBuilder(const ModelBuilder&) = delete;
  ModelBuilder& operator=(const ModelBuilder&) = delete;

  static ModelBuilder* active();
  // Registers a parameter; returns its handle. Throws a TraceError at the spec line on a
  // duplicate name.
  Tensor add(ParamDecl decl);
  // Frames above this address belong to the host program (the caller of loadSpec).
  void setBoundary(std::uintptr_t frameAddress) { boundary_ = frameAddress; }
  std::uintptr_t boundary() const { return boundary_; }
  // The serial of this model's parameter handles (see Tensor).
  std::uint32_t serial() const { return serial_; }
  std::vector<ParamDecl> take() { return std::move(params_); }
  const std::vector<ParamDecl>& params() const { return params_; }

 private:
  ModelBuilder* previous_;
  std::uintptr_t boundary_ = 0;
  std::uint32_t serial_;
  std::vector<ParamDecl> params_;
  std::unordered_set<std::string> names_;
};

class Tracer {
 public:
  // `paramSerial`: the serial of the built model whose parameters `params` are (0: none).
  Tracer(ir::Graph& graph, const std::vector<ParamDecl>& params, std::uint32_t paramSerial,
         bool training);
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  static Tracer* active();

  ir::Graph& graph() { return graph_; }
  bool training() const { return training_; }
  ir::Phase phase() const { return phase_; }
  void setPhase(ir::Phase phase) { phase_ = phase; }

  // The graph tensor a handle names; throws TraceError (at `site`) for an undefined handle or
  // one that belongs to another trace or model.
  ir::TensorId tensorOf(Tensor handle, std::string_view op, ir::SiteId site) const;
  // The handle of a tensor of this trace.
  Tensor handleOf(ir::TensorId id) const;

  // Frames above this address belong to the host program, not the spec.
  void setBoundary(std::uintptr_t frameAddress) { boundary_ = frameAddress; }
  // The user frames that are issuing the current op (walks the stack; interned).
  ir::SiteId captureSite();

  // Appends an op and its output tensor; returns the tensor's id. The op is moved into the graph
  // once. `names`: per axis, or empty (ir::DimNames).
  ir::TensorId emit(ir::Op&& op, Shape shape, DType dtype, ir::DimNames names = {});

  // Adds a leaf (param/state/tensor input) with no call site.
  ir::TensorId addLeaf(ir::OpKind kind, std::string name, Shape shape, DType dtype,
                       ir::DimNames names = {});

  // Reads the text of every source file a site names (bounded), for the IR and the diagram.
  void attachSourceText();

 private:
  ir::FrameId internFrame(std::uintptr_t address);

  ir::Graph& graph_;
  bool training_;
  ir::Phase phase_ = ir::Phase::forward;
  Tracer* previous_;
  std::uint32_t serial_;
  std::uint32_t paramSerial_;
  std::uintptr_t boundary_ = 0;
  std::vector<ir::TensorId> paramTensors_;  // by parameter slot
  std::unordered_map<std::string, ir::SiteId> siteByAddresses_;
  std::map<std::vector<ir::FrameId>, ir::SiteId> siteByChain_;
  std::unordered_map<std::uintptr_t, ir::FrameId> frameByAddress_;
  std::unordered_map<std::string, std::int32_t> fileByPath_;
};

// "file:line" of a site's innermost user frame, or empty when it has none; with the user lines
// that called it, nearest first ("line 11", or "other.hpp:20" in another file).
struct SiteLocation {
  std::string file;
  int line = 0;
  std::vector<std::string> callers;  // the nearest three
  bool moreCallers = false;          // the chain goes on past them ("…")

  // An error's detail with where the innermost line was called from: a helper called from two
  // lines fails at its own line, and this says which call it was ("… (called from line 11)").
  std::string withCallers(std::string detail) const;
};
SiteLocation innermostLocation(const ir::Graph& graph, ir::SiteId site);

// The spec line that is running now: the op's call site while tracing, the innermost user frame
// while a model is built (a layer's declaration, a `param` call), empty otherwise.
SiteLocation currentUserLocation();
// Throws a TraceError at currentUserLocation(): a misuse of the model API ("op" names what was
// called: "param", "Linear", "child").
[[noreturn]] void failAtUserLine(std::string_view op, std::string detail);

// A path as the user should read it: relative to the working directory when below it.
std::string displayPath(std::string_view path);

}  // namespace nndna::tracing
