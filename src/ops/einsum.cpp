// einsum: PyTorch's torch.einsum for one or two operands, lowered to the table's ops (sum over the
// letters an operand alone has, permute, reshape, one batched matmul), so every stage after the
// trace sees ordinary ops. The equation is checked first, so that an error names this call.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "nndna/nndna.hpp"
#include "trace/tracer.hpp"

namespace nndna {
namespace {

constexpr std::string_view kApi = "einsum";

[[noreturn]] void fail(std::string_view equation, const std::string& why) {
  tracing::failAtUserLine(kApi, fmt::format("\"{}\": {}", equation, why));
}

bool isLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The equation's parts: each operand's letters, and the output's (given after "->", or else
// PyTorch's implicit output: the letters that appear once, in alphabetical order).
struct Equation {
  std::vector<std::string> inputs;
  std::string output;
};

Equation parse(std::string_view equation, std::size_t operands) {
  std::string text;
  for (char c : equation) {
    if (c != ' ') text += c;
  }
  if (text.find("...") != std::string::npos) fail(equation, "an ellipsis (...) is not supported: name every axis");
  Equation eq;
  const std::size_t arrow = text.find("->");
  const std::string lhs = text.substr(0, arrow);
  for (std::size_t start = 0;;) {
    const std::size_t comma = lhs.find(',', start);
    eq.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (eq.inputs.size() != operands) {
    fail(equation, fmt::format("it names {} operand(s), {} given", eq.inputs.size(), operands));
  }
  for (const std::string& in : eq.inputs) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (!isLetter(in[i])) fail(equation, fmt::format("'{}' is not an axis letter (a-z, A-Z)", in[i]));
      if (in.find(in[i], i + 1) != std::string::npos) {
        fail(equation, fmt::format("'{}' appears twice in one operand (a diagonal): not supported", in[i]));
      }
    }
  }
  if (arrow != std::string::npos) {
    eq.output = text.substr(arrow + 2);
    for (std::size_t i = 0; i < eq.output.size(); ++i) {
      const char c = eq.output[i];
      if (!isLetter(c)) fail(equation, fmt::format("'{}' is not an axis letter (a-z, A-Z)", c));
      if (eq.output.find(c, i + 1) != std::string::npos) fail(equation, fmt::format("'{}' appears twice in the output", c));
      if (std::none_of(eq.inputs.begin(), eq.inputs.end(), [&](const std::string& in) { return in.find(c) != std::string::npos; })) {
        fail(equation, fmt::format("the output's '{}' is in no operand", c));
      }
    }
  } else {
    std::string all;
    for (const std::string& in : eq.inputs) all += in;
    for (char c : all) {
      if (std::count(all.begin(), all.end(), c) == 1) eq.output += c;
    }
    std::sort(eq.output.begin(), eq.output.end());
  }
  return eq;
}

// `x`, whose axes are the letters `have`, summed over the letters not in `keep`; `have` becomes
// the letters left, in their order.
Tensor sumOut(Tensor x, std::string& have, std::string_view keep) {
  std::vector<std::int64_t> summed;
  std::string left;
  for (std::size_t i = 0; i < have.size(); ++i) {
    if (keep.find(have[i]) == std::string_view::npos) {
      summed.push_back(static_cast<std::int64_t>(i));
    } else {
      left += have[i];
    }
  }
  if (!summed.empty()) x = summed.size() == have.size() ? sum(x) : sum(x, summed);
  have = left;
  return x;
}

Tensor permutedTo(Tensor x, const std::string& have, const std::string& order) {
  if (have == order) return x;
  std::vector<std::int64_t> axes;
  for (char c : order) axes.push_back(static_cast<std::int64_t>(have.find(c)));
  return permute(x, axes);
}

std::int64_t sizeOf(const Tensor& x, const std::string& letters, char c) {
  return x.dim(static_cast<std::int64_t>(letters.find(c)));
}

}  // namespace

Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands) {
  if (operands.empty() || operands.size() > 2) {
    tracing::failAtUserLine(kApi, fmt::format("\"{}\": one or two operands are supported, {} given", equation, operands.size()));
  }
  const Equation eq = parse(equation, operands.size());
  // Each letter one size, and each operand's rank its letters'.
  std::string letters;
  std::vector<std::int64_t> sizes;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const Tensor& x = operands[k];
    if (!x.defined()) fail(equation, fmt::format("operand {} is undefined", k));
    if (x.rank() != static_cast<std::int64_t>(eq.inputs[k].size())) {
      fail(equation, fmt::format("operand {} is {}, of rank {}, but \"{}\" names {} axes", k, ir::formatShape(x.shape()),
                                 x.rank(), eq.inputs[k], eq.inputs[k].size()));
    }
    for (std::size_t i = 0; i < eq.inputs[k].size(); ++i) {
      const char c = eq.inputs[k][i];
      const std::size_t at = letters.find(c);
      if (at == std::string::npos) {
        letters += c;
        sizes.push_back(x.dim(static_cast<std::int64_t>(i)));
      } else if (sizes[at] != x.dim(static_cast<std::int64_t>(i))) {
        fail(equation, fmt::format("'{}' is {} in one place and {} in another", c, sizes[at], x.dim(static_cast<std::int64_t>(i))));
      }
    }
  }

  if (operands.size() == 1) {
    std::string have = eq.inputs[0];
    const Tensor x = sumOut(operands[0], have, eq.output);
    return permutedTo(x, have, eq.output);
  }

  // Two operands. Letters each has alone and the output does not name are summed out first; the
  // rest are batch (both and the output), contracted (both, not the output) or free (one and the
  // output): a is laid out [batch, free a, contracted], b [batch, contracted, free b], and one
  // matmul of their products [.., Fa, K] · [.., K, Fb] does the rest.
  std::string haveA = eq.inputs[0], haveB = eq.inputs[1];
  const std::string& out = eq.output;
  const Tensor a = sumOut(operands[0], haveA, out + haveB);
  const Tensor b = sumOut(operands[1], haveB, out + haveA);
  std::string batch, freeA, freeB, contracted;
  for (char c : haveA) {
    const bool inB = haveB.find(c) != std::string::npos, inOut = out.find(c) != std::string::npos;
    if (inB && inOut) batch += c;
    else if (inB) contracted += c;
    else freeA += c;
  }
  for (char c : haveB) {
    if (haveA.find(c) == std::string::npos) freeB += c;
  }
  auto product = [&](const Tensor& x, const std::string& have, const std::string& group) {
    std::int64_t p = 1;
    for (char c : group) p *= sizeOf(x, have, c);
    return p;
  };
  std::vector<Size> shapeA, shapeB, shapeOut;
  for (char c : batch) {
    const std::int64_t size = sizeOf(a, haveA, c);
    shapeA.emplace_back(size);
    shapeB.emplace_back(size);
    shapeOut.emplace_back(size);
  }
  const std::int64_t fa = product(a, haveA, freeA), fb = product(b, haveB, freeB), k = product(a, haveA, contracted);
  shapeA.insert(shapeA.end(), {fa, k});
  shapeB.insert(shapeB.end(), {k, fb});
  const Tensor am = reshape(permutedTo(a, haveA, batch + freeA + contracted), Sizes(shapeA));
  const Tensor bm = reshape(permutedTo(b, haveB, batch + contracted + freeB), Sizes(shapeB));
  for (char c : freeA) shapeOut.emplace_back(sizeOf(a, haveA, c));
  for (char c : freeB) shapeOut.emplace_back(sizeOf(b, haveB, c));
  const Tensor y = reshape(matmul(am, bm), Sizes(shapeOut));
  return permutedTo(y, batch + freeA + freeB, out);
}

}  // namespace nndna
