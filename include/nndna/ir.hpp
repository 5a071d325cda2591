// nndna's IR: a traced graph as plain data. Tracing, shape rules, autodiff, optimizer lowering,
// dead-code elimination, kernels and the diagram all read or extend one `Graph`.
//
// Every op produces exactly one tensor (`op.out`), and every tensor names the op that made it
// (`tensor.source`). Leaves (parameters, inputs, state) are ops too, with no inputs.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nndna/export.hpp"
#include "nndna/nndna.hpp"
#include "nndna/op_kind.hpp"

NNDNA_API_BEGIN  // the whole header is libnndna's interface (export.hpp)

namespace nndna::ir {

// The most axes a tensor may have (the tracer and the JSON reader enforce it).
inline constexpr std::size_t kMaxRank = 16;

using TensorId = std::int32_t;
using OpId = std::int32_t;
using SiteId = std::int32_t;
using FrameId = std::int32_t;
inline constexpr std::int32_t kNone = -1;

// Which part of a training step an op belongs to. Diagrams draw the forward; FLOPs/step,
// dead-code elimination and kernels see all three.
enum class Phase : std::uint8_t { forward, backward, optimizer };

// ----- Call sites ------------------------------------------------------------------------------
// Thousands of ops share a few hundred frames, so frames and frame chains are interned tables and
// ops point into them.

struct SourceFile {
  std::string path;  // as the compiler recorded it (usually absolute)
  std::string text;  // the file's contents when known (always for the spec file), else empty
};

// One user frame: a call (or op) position in the spec's source.
struct Frame {
  std::int32_t file = kNone;  // index into SiteTable::files
  std::int32_t line = 0;
  std::int32_t column = 0;        // 0 when the compiler recorded none
  std::uint64_t address = 0;      // return address, relative to its module: tells calls apart
  std::string function;           // short name: "denoise", "Block::forward"
};

struct SiteTable {
  std::vector<SourceFile> files;
  std::vector<Frame> frames;
  // Chains of user frames, outermost first: chain[0] is the spec's entry function (lossFn),
  // the last is the line that issued the op.
  std::vector<std::vector<FrameId>> chains;
};

// ----- Tensors and ops -------------------------------------------------------------------------

// Per axis, the name of its size as the spec gave it through named dims: "" (unknown), "T",
// "H·Dh", "D/H" (the forms and their algebra: src/ir/dim_names.hpp). A tensor with no named
// axis has an empty list; otherwise one entry per axis.
using DimNames = std::vector<std::string>;

struct TensorInfo {
  Shape shape;
  DType dtype = DType::f32;
  OpId source = kNone;  // the op that produced it
  DimNames names;       // computed by the op's shape rule (leaves: declared)
};

// Attributes of an op. Which fields a kind uses is listed next to the kind in op_kind.hpp.
struct OpAttrs {
  std::string name;                 // input / param / state / capture name
  std::vector<std::int64_t> dims;   // reshape target, permute axes, constant shapes, pad amounts
  DimNames names;                   // names of `dims` (reshape, broadcast_to, zeros, ones, randn)
                                    // or of `count` (split_heads, one_hot, arange, narrow, topk):
                                    // empty, or one per entry
  std::int64_t axis = 0;            // the axis of axis ops
  bool allAxes = false;             // mean/sum over every axis
  bool keepDims = false;            // mean/sum
  std::int64_t start = 0;           // narrow
  std::int64_t count = 0;           // narrow length, one_hot depth, arange length, topk k, heads,
                                    // factor
  double scalar = 0.0;              // scalar operand, alpha, eps, p, base, fill (where_causal,
                                    // pad), clamp low, arange start
  double scalar2 = 0.0;             // clamp high, batch-norm momentum, arange step
  bool scalarOperand = false;       // binary op with a number instead of a second tensor
  bool scalarLeft = false;          // the number is the left operand (`sub(1, x)`)
  bool approximate = false;         // gelu tanh approximation
  DType dtype = DType::f32;         // constant and one_hot dtype
  Reduction reduction = Reduction::mean;  // losses
  std::array<std::int64_t, 2> kernel{0, 0};   // conv / pool
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 2> padding{0, 0};
  std::array<std::int64_t, 2> dilation{1, 1};  // conv: the spacing of the kernel's taps
  std::int64_t groups = 1;
  bool alignCorners = false;        // bilinear upsampling: corners on corners (PyTorch's align_corners)
  bool ceilMode = false;            // pools: a last, partial window (PyTorch's ceil_mode)
  std::int64_t paddingIdx = -1;     // embedding: the row read as zeros, with no gradient; -1: none
  std::uint64_t seed = 0;           // dropout / randn / categorical: which random stream

  bool operator==(const OpAttrs&) const = default;
};

// An op's attributes, held out of line. Most ops have none (a matmul, a relu), and held inline
// they were 200 of an op's 248 bytes: most of the memory a million-op graph touches. Read them
// with `op.attrs->axis` (all defaults when the op has none); change them with `op.attrs.edit()`.
// Copies share one block until either is edited (copy on write), so an op is still a value; the
// IR reader and autodiff give a loop's ops with the same attributes one block (the 200,000
// `mul(h, 0.5)`s of a graph read from a file hold one). Do not keep the reference `edit()`
// returns across a copy of the box (the copy would share what is then changed); a reference from
// `*box` is good only while the box holds the same block (not across its `edit()`, assignment,
// `dropIfDefaults()` or end).
class OpAttrsBox {
 public:
  OpAttrsBox() = default;
  // Implicit, so `op.attrs = attrs` and `Op{.attrs = attrs}` read as plain assignments. All
  // defaults are held as none.
  OpAttrsBox(OpAttrs attrs);  // NOLINT(google-explicit-constructor)
  OpAttrsBox(const OpAttrsBox& other) noexcept;
  OpAttrsBox& operator=(const OpAttrsBox& other) noexcept;
  OpAttrsBox(OpAttrsBox&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
  OpAttrsBox& operator=(OpAttrsBox&& other) noexcept {
    if (this != &other) {
      if (block_) release();
      block_ = std::exchange(other.block_, nullptr);
    }
    return *this;
  }
  ~OpAttrsBox() {
    if (block_) release();  // most ops hold none: no call
  }

  const OpAttrs& operator*() const { return block_ ? block_->attrs : defaults(); }
  const OpAttrs* operator->() const { return &**this; }
  operator const OpAttrs&() const { return **this; }  // NOLINT(google-explicit-constructor)
  // This op's own attributes, to change (made from the defaults when it had none, copied first
  // when another box shares them).
  OpAttrs& edit();
  // Whether the op holds a block of attributes (its own or shared): made from attributes off
  // their defaults, or by edit() (which keeps them even when set back to defaults, until
  // dropIfDefaults()).
  bool any() const { return block_ != nullptr; }
  // Whether this box and `other` hold one block (both none counts as not).
  bool shares(const OpAttrsBox& other) const { return block_ != nullptr && block_ == other.block_; }
  // Lets go of attributes that edit() left at their defaults, as if they had never been set.
  void dropIfDefaults();

 private:
  // Counted here rather than by a std::shared_ptr, which would make every op 8 bytes larger.
  struct Block {
    std::atomic<std::uint32_t> boxes{1};  // the boxes holding it
    OpAttrs attrs;
  };
  static const OpAttrs& defaults();
  void release() noexcept;  // lets go of the block, freeing it with its last box
  Block* block_ = nullptr;
};

struct Op {
  OpKind kind = OpKind::tensor_input;
  std::vector<TensorId> inputs;
  TensorId out = kNone;
  OpAttrsBox attrs;
  SiteId site = kNone;  // index into SiteTable::chains, kNone when no user frame made it
  Phase phase = Phase::forward;
};

struct Param {
  std::string name;  // dotted path: "layers.3.attn.q.weight"
  TensorId tensor = kNone;
  Init init;
  bool decay = false;  // weight decay applies
};

struct NamedTensor {
  std::string name;
  TensorId tensor = kNone;
};

// A training step's write-back: after the step, `target` (a param_input or state_input leaf)
// takes the value of `value`.
struct Update {
  TensorId target = kNone;
  TensorId value = kNone;
};

struct Graph {
  std::vector<TensorInfo> tensors;
  std::vector<Op> ops;
  std::vector<Param> params;        // every parameter, in registration order
  std::vector<NamedTensor> inputs;  // data inputs, in declaration order
  std::vector<Param> state;         // non-trainable state (BatchNorm running stats, optimizer m/v)
  std::vector<NamedTensor> captures;
  std::vector<TensorId> outputs;    // the loss (training) or the prediction (inference)
  std::vector<Update> updates;      // parameter and state updates of a training step
  SiteTable sites;

  const TensorInfo& tensor(TensorId id) const { return tensors.at(static_cast<std::size_t>(id)); }
  const Op& op(OpId id) const { return ops.at(static_cast<std::size_t>(id)); }
  const Op& producer(TensorId id) const { return op(tensor(id).source); }
};

// Metadata of the spec a graph was traced from.
struct SpecInfo {
  std::string label;
  std::string description;
  std::string sourcePath;  // the spec file
  std::vector<InputDecl> inputs;
  std::vector<InputDecl> predictInputs;
  Optimizer optimizer;
  std::vector<DimDecl> dims;
};

// Everything traced from one spec: the training graph and, when the spec has a predict
// function, the inference graph.
struct TracedModel {
  SpecInfo spec;
  Graph train;
  bool hasInfer = false;
  Graph infer;
};

// ----- Helpers ---------------------------------------------------------------------------------

// Element count; throws std::overflow_error past 2^63.
std::int64_t numel(const Shape& shape);
// Element count, or nothing when it overflows 64 bits or a size is negative.
std::optional<std::int64_t> checkedNumel(const Shape& shape);
// "[256, 32]"
std::string formatShape(const Shape& shape);
std::string_view dtypeName(DType dtype);
std::string_view phaseName(Phase phase);

}  // namespace nndna::ir
NNDNA_API_END
