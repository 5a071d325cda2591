// Shape and layout ops: reshape, permute, swapAxes, narrow, concat, stack, split, heads.
#include <fmt/ranges.h>

#include <numeric>

#include "ops/op_builder.hpp"

namespace nndna {

using ir::OpKind;
using ops::OpBuilder;

Tensor reshape(Tensor x, Shape shape) {
  OpBuilder op(OpKind::reshape, "reshape");
  const ir::TensorInfo& in = op.input(x);
  const std::int64_t total = ir::numel(in.shape);
  std::int64_t known = 1;
  int inferred = -1;
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
    if (total % known != 0) {
      op.fail("cannot reshape {} ({} elements) to {}: {} is not a multiple of {}",
              ir::formatShape(in.shape), total, ir::formatShape(shape), total, known);
    }
    shape[static_cast<std::size_t>(inferred)] = total / known;
  } else if (known != total) {
    op.fail("cannot reshape {} ({} elements) to {} ({} elements)", ir::formatShape(in.shape), total,
            ir::formatShape(shape), known);
  }
  op.attrs().dims = shape;
  return op.finish(std::move(shape), in.dtype);
}

namespace {
Tensor permuteAs(std::string_view api, Tensor x, std::vector<std::int64_t> axes,
                 bool fromSwap = false, std::int64_t swapA = 0, std::int64_t swapB = 0) {
  OpBuilder op(OpKind::permute, api);
  const ir::TensorInfo& in = op.input(x);
  const std::size_t rank = in.shape.size();
  if (fromSwap) {
    const std::int64_t a = op.axis(swapA, rank, "first axis");
    const std::int64_t b = op.axis(swapB, rank, "second axis");
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
    std::swap(axes[static_cast<std::size_t>(a)], axes[static_cast<std::size_t>(b)]);
  }
  if (axes.size() != rank) {
    op.fail("axes [{}] must list each of the {} axes of {} once", fmt::join(axes, ", "), rank,
            ir::formatShape(in.shape));
  }
  std::vector<bool> seen(rank, false);
  Shape shape(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t a = op.axis(axes[i], rank);
    if (seen[static_cast<std::size_t>(a)]) {
      op.fail("axes [{}] repeat axis {}", fmt::join(axes, ", "), a);
    }
    seen[static_cast<std::size_t>(a)] = true;
    axes[i] = a;
    shape[i] = in.shape[static_cast<std::size_t>(a)];
  }
  op.attrs().dims = axes;
  return op.finish(std::move(shape), in.dtype);
}
}  // namespace

Tensor permute(Tensor x, std::vector<std::int64_t> axes) {
  return permuteAs("permute", x, std::move(axes));
}

Tensor swapAxes(Tensor x, std::int64_t a, std::int64_t b) {
  return permuteAs("swapAxes", x, {}, true, a, b);
}

namespace {
Tensor narrowAs(std::string_view api, Tensor x, std::int64_t axis, std::int64_t start,
                std::int64_t length) {
  OpBuilder op(OpKind::narrow, api);
  const ir::TensorInfo& in = op.input(x);
  const std::int64_t a = op.axis(axis, in.shape.size());
  const std::int64_t size = in.shape[static_cast<std::size_t>(a)];
  if (start < 0 || length <= 0 || start > size - length) {
    op.fail("range start {} length {} does not fit axis {} of size {} in {}", start, length, a,
            size, ir::formatShape(in.shape));
  }
  op.attrs().axis = a;
  op.attrs().start = start;
  op.attrs().count = length;
  Shape shape = in.shape;
  shape[static_cast<std::size_t>(a)] = length;
  return op.finish(std::move(shape), in.dtype);
}
}  // namespace

Tensor narrow(Tensor x, std::int64_t axis, std::int64_t start, std::int64_t length) {
  return narrowAs("narrow", x, axis, start, length);
}

std::vector<Tensor> split(Tensor x, const std::vector<std::int64_t>& sizes, std::int64_t axis) {
  // Validate once against the whole tensor, then emit one narrow per piece.
  {
    OpBuilder check(OpKind::narrow, "split");
    const ir::TensorInfo& in = check.input(x);
    const std::int64_t a = check.axis(axis, in.shape.size());
    std::int64_t total = 0;
    for (std::int64_t s : sizes) {
      if (s <= 0) check.fail("sizes [{}] must be positive", fmt::join(sizes, ", "));
      total += s;
    }
    if (sizes.empty() || total != in.shape[static_cast<std::size_t>(a)]) {
      check.fail("sizes [{}] must add up to axis {} of {} ({})", fmt::join(sizes, ", "), a,
                 ir::formatShape(in.shape), in.shape[static_cast<std::size_t>(a)]);
    }
  }
  std::vector<Tensor> pieces;
  std::int64_t start = 0;
  for (std::int64_t s : sizes) {
    pieces.push_back(narrowAs("split", x, axis, start, s));
    start += s;
  }
  return pieces;
}

Tensor concat(const std::vector<Tensor>& tensors, std::int64_t axis) {
  OpBuilder op(OpKind::concat, "concat");
  if (tensors.empty()) op.fail("needs at least one tensor");
  Shape shape;
  Shape firstShape;
  DType dtype = DType::f32;
  std::int64_t a = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const ir::TensorInfo& t = op.input(tensors[i]);
    if (i == 0) {
      a = op.axis(axis, t.shape.size());
      shape = t.shape;
      firstShape = t.shape;
      dtype = t.dtype;
      continue;
    }
    if (t.dtype != dtype) {
      op.fail("tensor {} is {}, tensor 0 is {}", i, ir::dtypeName(t.dtype), ir::dtypeName(dtype));
    }
    bool compatible = t.shape.size() == shape.size();
    for (std::size_t d = 0; compatible && d < shape.size(); ++d) {
      if (static_cast<std::int64_t>(d) != a && t.shape[d] != shape[d]) compatible = false;
    }
    if (!compatible) {
      op.fail("tensor {} has shape {}, which differs from tensor 0's {} outside axis {}", i,
              ir::formatShape(t.shape), ir::formatShape(firstShape), a);
    }
    shape[static_cast<std::size_t>(a)] += t.shape[static_cast<std::size_t>(a)];
  }
  op.attrs().axis = a;
  return op.finish(std::move(shape), dtype);
}

Tensor stack(const std::vector<Tensor>& tensors, std::int64_t axis) {
  OpBuilder op(OpKind::stack, "stack");
  if (tensors.empty()) op.fail("needs at least one tensor");
  Shape first;
  DType dtype = DType::f32;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const ir::TensorInfo& t = op.input(tensors[i]);
    if (i == 0) {
      first = t.shape;
      dtype = t.dtype;
    } else if (t.shape != first || t.dtype != dtype) {
      op.fail("every tensor must have the same shape and dtype: tensor {} is {}, tensor 0 is {} {}",
              i, ops::describe(t), ir::formatShape(first), ir::dtypeName(dtype));
    }
  }
  const std::int64_t a = op.axis(axis, first.size() + 1);
  Shape shape = first;
  shape.insert(shape.begin() + a, static_cast<std::int64_t>(tensors.size()));
  op.attrs().axis = a;
  return op.finish(std::move(shape), dtype);
}

Tensor splitHeads(Tensor x, std::int64_t heads) {
  OpBuilder op(OpKind::split_heads, "splitHeads");
  const ir::TensorInfo& in = op.input(x);
  op.requireRank(in, 3, "input ([B, T, D])");
  const std::int64_t d = in.shape[2];
  if (heads <= 0 || d % heads != 0) {
    op.fail("D = {} of {} is not divisible by {} heads", d, ir::formatShape(in.shape), heads);
  }
  op.attrs().count = heads;
  return op.finish({in.shape[0], heads, in.shape[1], d / heads}, in.dtype);
}

Tensor mergeHeads(Tensor x) {
  OpBuilder op(OpKind::merge_heads, "mergeHeads");
  const ir::TensorInfo& in = op.input(x);
  op.requireRank(in, 4, "input ([B, H, T, Dh])");
  std::int64_t d = 0;
  if (__builtin_mul_overflow(in.shape[1], in.shape[3], &d)) op.fail("H * Dh overflows");
  return op.finish({in.shape[0], in.shape[2], d}, in.dtype);
}

}  // namespace nndna
