// Shape and layout ops: reshape, permute, swapAxes, broadcastTo, expand, narrow, pad, concat,
// stack, split, heads, repeatKv.
#include <fmt/ranges.h>

#include <functional>
#include <numeric>

#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::broadcastAs;
using ops::OpBuilder;
using ops::reshapeAs;

Tensor reshape(Tensor x, Sizes sizes) {
  OpBuilder op(OpKind::reshape, "reshape");
  const ir::TensorInfo& in = op.input(x);
  op.nameDims(sizes);
  Shape shape = sizes.values();
  // Resolve the one -1 (the API's convenience); the rule checks the element counts.
  int inferred = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0) op.fail("only one -1 is allowed, got {}", ir::formatShape(shape));
      inferred = static_cast<int>(i);
    } else if (shape[i] <= 0) {
      op.fail("sizes must be positive or one -1, got {}", ir::formatShape(shape));
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      op.fail("the target shape {} overflows 64 bits", ir::formatShape(shape));
    }
  }
  if (inferred >= 0) {
    const std::int64_t total = ir::numel(in.shape);
    if (total % known != 0) {
      op.fail("cannot reshape {} ({} elements) to {}: {} is not a multiple of {}",
              ir::formatShape(in.shape), total, ir::formatShape(shape), total, known);
    }
    shape[static_cast<std::size_t>(inferred)] = total / known;
  }
  op.attrs().dims = std::move(shape);
  return op.finish();
}

Tensor flatten(Tensor x, std::int64_t startDim, std::int64_t endDim) {
  Shape shape;
  {
    OpBuilder check(OpKind::reshape, "flatten");
    const Shape& in = check.input(x).shape;
    if (in.empty()) return reshapeAs("flatten", x, Shape{1});  // PyTorch: a 0-d tensor becomes [1]
    const std::int64_t first = check.axis(startDim, in.size(), "startDim");
    const std::int64_t last = check.axis(endDim, in.size(), "endDim");
    if (first > last) {
      check.fail("startDim {} comes after endDim {} for {} (rank {})", startDim, endDim, ir::formatShape(in), in.size());
    }
    shape.assign(in.begin(), in.begin() + first);
    // The merged axes' product fits: it divides the input's element count.
    shape.push_back(std::accumulate(in.begin() + first, in.begin() + last + 1, std::int64_t{1}, std::multiplies<>()));
    shape.insert(shape.end(), in.begin() + last + 1, in.end());
  }
  // The reshape's rule names the merged axis by the product of the input's names.
  return reshapeAs("flatten", x, shape);
}

Tensor permute(Tensor x, std::vector<std::int64_t> axes) {
  OpBuilder op(OpKind::permute, "permute");
  const ir::TensorInfo& in = op.input(x);
  for (std::int64_t& a : axes) a = op.axis(a, in.shape.size());
  op.attrs().dims = std::move(axes);
  return op.finish();
}

Tensor swapAxes(Tensor x, std::int64_t a, std::int64_t b) {
  OpBuilder op(OpKind::permute, "swapAxes");
  const ir::TensorInfo& in = op.input(x);
  const std::size_t rank = in.shape.size();
  const std::int64_t first = op.axis(a, rank, "first axis");
  const std::int64_t second = op.axis(b, rank, "second axis");
  std::vector<std::int64_t> axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  std::swap(axes[static_cast<std::size_t>(first)], axes[static_cast<std::size_t>(second)]);
  op.attrs().dims = std::move(axes);
  return op.finish();
}

Tensor broadcastTo(Tensor x, Sizes shape) { return broadcastAs("broadcastTo", x, shape); }

Tensor expand(Tensor x, Sizes sizes) {
  Shape shape = sizes.values();
  // PyTorch's expand: -1 keeps the size of the (trailing-aligned) axis of x.
  {
    OpBuilder check(OpKind::broadcast_to, "expand");
    const ir::TensorInfo& in = check.input(x);
    if (shape.size() < in.shape.size()) {
      check.fail("cannot expand {} to fewer axes, got {}", ir::formatShape(in.shape), ir::formatShape(shape));
    }
    const std::size_t lead = shape.size() - in.shape.size();
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] != -1) continue;
      if (i < lead) check.fail("-1 is only allowed for an existing axis, got {}", ir::formatShape(shape));
      shape[i] = in.shape[i - lead];
    }
  }
  std::vector<Size> named(sizes.all());
  for (std::size_t i = 0; i < named.size(); ++i) {
    if (named[i] == -1) named[i] = shape[i];  // kept from x: the rule carries its name
  }
  return broadcastAs("expand", x, Sizes(named));
}

Tensor repeatKv(Tensor x, Size repeats) {
  // [..., Hkv, T, Dh] -> [..., Hkv, 1, T, Dh] -> broadcast [..., Hkv, repeats, T, Dh] -> merge the
  // two head axes: query head h reads key/value head h / repeats (LLaMA's repeat_kv).
  Shape in;
  {
    OpBuilder check(OpKind::broadcast_to, "repeatKv");
    in = check.input(x).shape;
    if (in.size() < 3) check.fail("x must be [..., heads, T, headDim], got {}", ir::formatShape(in));
    if (repeats <= 0) check.fail("repeats must be positive, got {}", repeats.value());
  }
  if (repeats == 1) return x;
  const std::size_t h = in.size() - 3;
  Shape unsqueezed = in;
  unsqueezed.insert(unsqueezed.begin() + static_cast<std::ptrdiff_t>(h) + 1, 1);
  std::vector<Size> broadcast(unsqueezed.begin(), unsqueezed.end());
  broadcast[h + 1] = repeats;
  Shape merged = in;
  merged[h] = in[h] * repeats;
  const Tensor wide = broadcastAs("repeatKv", reshapeAs("repeatKv", x, unsqueezed), Sizes(broadcast));
  return reshapeAs("repeatKv", wide, std::move(merged));
}

namespace {
Tensor narrowAs(std::string_view api, Tensor x, std::int64_t axis, std::int64_t start,
                const Size& length) {
  OpBuilder op(OpKind::narrow, api);
  const ir::TensorInfo& in = op.input(x);
  op.attrs().axis = op.axis(axis, in.shape.size());
  op.attrs().start = start;
  op.count(length);
  return op.finish();
}
}  // namespace

Tensor narrow(Tensor x, std::int64_t axis, std::int64_t start, Size length) {
  return narrowAs("narrow", x, axis, start, length);
}

// PyTorch's F.pad order (the last axis's pair first) becomes one (before, after) pair per axis,
// in axis order, zero for the axes not named.
Tensor pad(Tensor x, const std::vector<std::int64_t>& amounts, double value) {
  OpBuilder op(OpKind::pad, "pad");
  const std::size_t rank = op.input(x).shape.size();
  if (amounts.empty() || amounts.size() % 2 != 0 || amounts.size() > 2 * rank) {
    op.fail("amounts [{}] must be (before, after) pairs for up to the {} axes of the input, last "
            "axis first", fmt::join(amounts, ", "), rank);
  }
  std::vector<std::int64_t> perAxis(2 * rank, 0);
  for (std::size_t k = 0; k < amounts.size() / 2; ++k) {
    const std::size_t axis = rank - 1 - k;
    perAxis[2 * axis] = amounts[2 * k];
    perAxis[2 * axis + 1] = amounts[2 * k + 1];
  }
  op.attrs().dims = std::move(perAxis);
  op.attrs().scalar = value;
  return op.finish();
}

std::vector<Tensor> split(Tensor x, const Sizes& named, std::int64_t axis) {
  const Shape sizes = named.values();
  // The sizes are checked once against the whole tensor (split is the API's, not an IR kind);
  // each piece is a narrow.
  std::int64_t a = 0;
  {
    OpBuilder check(OpKind::narrow, "split");
    const ir::TensorInfo& in = check.input(x);
    a = check.axis(axis, in.shape.size());
    std::int64_t total = 0;
    for (std::int64_t s : sizes) {
      if (s <= 0) check.fail("sizes [{}] must be positive", fmt::join(sizes, ", "));
      if (__builtin_add_overflow(total, s, &total)) check.fail("sizes [{}] overflow", fmt::join(sizes, ", "));
    }
    if (sizes.empty() || total != in.shape[static_cast<std::size_t>(a)]) {
      check.fail("sizes [{}] must add up to axis {} of {} ({})", fmt::join(sizes, ", "), a,
                 ir::formatShape(in.shape), in.shape[static_cast<std::size_t>(a)]);
    }
  }
  std::vector<Tensor> pieces;
  std::int64_t start = 0;
  for (const Size& s : named.all()) {
    pieces.push_back(narrowAs("split", x, a, start, s));
    start += s;
  }
  return pieces;
}

// torch.chunk: pieces of ceil(n / chunks) along the axis, the last one smaller, so fewer than
// `chunks` pieces when the size does not allow that many (PyTorch's rule).
std::vector<Tensor> chunk(Tensor x, std::int64_t chunks, std::int64_t axis) {
  std::int64_t a = 0;
  std::int64_t size = 0;
  {
    OpBuilder check(OpKind::narrow, "chunk");
    const ir::TensorInfo& in = check.input(x);
    if (chunks <= 0) check.fail("chunks must be positive, got {}", chunks);
    a = check.axis(axis, in.shape.size());
    size = in.shape[static_cast<std::size_t>(a)];
  }
  const std::int64_t piece = (size + chunks - 1) / chunks;
  std::vector<Tensor> pieces;
  for (std::int64_t start = 0; start < size; start += piece) {
    pieces.push_back(narrowAs("chunk", x, a, start, std::min(piece, size - start)));
  }
  return pieces;
}

// The input's shape with `dim` removed (squeeze, select) or a 1 inserted there (unsqueeze),
// checked under the API's name.
Tensor squeeze(Tensor x, std::int64_t dim) {
  Shape shape;
  {
    OpBuilder check(OpKind::reshape, "squeeze");
    const Shape& in = check.input(x).shape;
    const auto a = static_cast<std::size_t>(check.axis(dim, in.size(), "dim"));
    if (in[a] != 1) check.fail("axis {} of {} has size {}, not 1", a, ir::formatShape(in), in[a]);
    shape = in;
    shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(a));
  }
  return reshapeAs("squeeze", x, shape);
}

Tensor unsqueeze(Tensor x, std::int64_t dim) {
  Shape shape;
  {
    OpBuilder check(OpKind::reshape, "unsqueeze");
    const Shape& in = check.input(x).shape;
    // Like PyTorch, a new axis may go after the last one: dim in [-rank-1, rank].
    const auto a = static_cast<std::size_t>(check.axis(dim, in.size() + 1, "dim"));
    shape = in;
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(a), 1);
  }
  return reshapeAs("unsqueeze", x, shape);
}

Tensor select(Tensor x, std::int64_t dim, std::int64_t index) {
  std::int64_t a = 0;
  Shape shape;
  {
    OpBuilder check(OpKind::narrow, "select");
    const Shape& in = check.input(x).shape;
    a = check.axis(dim, in.size(), "dim");
    const std::int64_t size = in[static_cast<std::size_t>(a)];
    if (index < -size || index >= size) {
      check.fail("index {} is out of range for axis {} of {} (size {})", index, a, ir::formatShape(in), size);
    }
    if (index < 0) index += size;
    shape = in;
    shape.erase(shape.begin() + a);
  }
  return reshapeAs("select", narrowAs("select", x, a, index, 1), shape);
}

namespace {
Tensor join(OpKind kind, std::string_view api, const std::vector<Tensor>& tensors,
            std::int64_t axis) {
  OpBuilder op(kind, api);
  if (tensors.empty()) op.fail("needs at least one tensor");
  std::size_t rank = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const ir::TensorInfo& t = op.input(tensors[i]);
    if (i == 0) rank = t.shape.size();
  }
  // stack adds an axis: its axis argument ranges over one more.
  op.attrs().axis = op.axis(axis, kind == OpKind::stack ? rank + 1 : rank);
  return op.finish();
}
}  // namespace

Tensor concat(const std::vector<Tensor>& tensors, std::int64_t axis) {
  return join(OpKind::concat, "concat", tensors, axis);
}

Tensor stack(const std::vector<Tensor>& tensors, std::int64_t axis) {
  return join(OpKind::stack, "stack", tensors, axis);
}

Tensor splitHeads(Tensor x, Size heads) {
  OpBuilder op(OpKind::split_heads, "splitHeads");
  op.input(x);
  op.count(heads);
  return op.finish();
}

Tensor mergeHeads(Tensor x) {
  OpBuilder op(OpKind::merge_heads, "mergeHeads");
  op.input(x);
  return op.finish();
}

}  // namespace nndna
