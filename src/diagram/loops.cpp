#include "diagram/loops.hpp"

#include <string>

namespace nndna::diagram::detail {
namespace {

// Longest run of a period-k repetition starting at i within [i, hi): the number of copies.
template <class Eq>
std::size_t repeatsAt(std::size_t i, std::size_t k, std::size_t hi, Eq eq) {
  std::size_t n = 1;
  while (true) {
    const std::size_t next = i + n * k;
    if (next + k > hi) break;
    bool match = true;
    for (std::size_t j = 0; j < k; ++j) {
      if (!eq(i + j, next + j)) {
        match = false;
        break;
      }
    }
    if (!match) break;
    ++n;
  }
  return n;
}

// Greedy coverage, ties to the smaller period.
bool better(std::size_t k, std::size_t n, std::size_t bestK, std::size_t bestN) {
  return n >= 2 && (k * n > bestK * bestN || (k * n == bestK * bestN && k < bestK));
}

}  // namespace

std::vector<int> collapseRepeats(const std::vector<int>& items) {
  std::vector<int> out;
  const std::size_t size = items.size();
  std::size_t i = 0;
  auto eq = [&](std::size_t a, std::size_t b) { return items[a] == items[b]; };
  while (i < size) {
    std::size_t bestK = 0, bestN = 0;
    for (std::size_t k = 1; k <= (size - i) / 2; ++k) {
      const std::size_t n = repeatsAt(i, k, size, eq);
      if (better(k, n, bestK, bestN)) {
        bestK = k;
        bestN = n;
      }
    }
    if (bestN >= 2) {
      for (std::size_t j = 0; j < bestK; ++j) out.push_back(items[i + j]);
      i += bestK * bestN;
    } else {
      out.push_back(items[i]);
      ++i;
    }
  }
  return out;
}

int LoopFinder::intern(std::string sig) {
  auto [it, inserted] = ids_.try_emplace(std::move(sig), static_cast<int>(ids_.size()));
  return it->second;
}

int LoopFinder::signature(int node, bool loose) {
  auto& slot = sigs_[static_cast<std::size_t>(node)];
  int& cached = loose ? slot.second : slot.first;
  if (cached >= 0) return cached;
  const TreeNode& n = tree_.at(node);
  const ir::Graph& g = *tree_.graph;
  std::string sig;
  if (n.leaf) {
    sig = "leaf:" + std::to_string(n.where.file) + "#" + std::to_string(n.where.line) + ":";
    std::vector<int> kinds;
    kinds.reserve(n.ops.size());
    for (ir::OpId o : n.ops) kinds.push_back(static_cast<int>(g.op(o).kind));
    if (loose) kinds = collapseRepeats(kinds);
    for (int k : kinds) sig += std::to_string(k) + ",";
  } else {
    // Child signatures are interned ids: equal ids <=> equal signature strings.
    std::vector<int> childSigs;
    childSigs.reserve(n.children.size());
    for (int c : n.children) childSigs.push_back(signature(c, loose));
    if (loose) childSigs = collapseRepeats(childSigs);
    sig = (loose ? "cluster~:" : "cluster:") + std::to_string(n.where.file) + "#" +
          std::to_string(n.where.line) + ":[";
    for (int c : childSigs) sig += std::to_string(c) + "|";
    sig += "]";
  }
  const int id = intern(std::move(sig));
  // `cached` may dangle if sigs_ was resized; it is not (sized once, one slot per tree node).
  cached = id;
  return id;
}

std::vector<LoopRun> LoopFinder::detectInRange(int cluster, std::size_t lo, std::size_t hi,
                                               const std::vector<int>& exact,
                                               const std::vector<int>& loose) {
  const auto& children = tree_.at(cluster).children;
  std::vector<LoopRun> loops;
  std::size_t i = lo;
  while (i < hi) {
    std::size_t bestK = 0, bestN = 0;
    for (const std::vector<int>* view : {&exact, &loose}) {
      const auto& sigs = *view;
      auto eq = [&](std::size_t a, std::size_t b) { return sigs[a] == sigs[b]; };
      // Period 1 only for leaves split by a recurring call address: any other period-1 match is
      // coincidence, since consecutive ops of one line merge into one leaf.
      const bool periodOne = i + 1 < hi && tree_.at(children[i + 1]).repeatSplit;
      for (std::size_t k = periodOne ? 1 : 2; k <= (hi - i) / 2; ++k) {
        const std::size_t n = repeatsAt(i, k, hi, eq);
        if (better(k, n, bestK, bestN)) {
          bestK = k;
          bestN = n;
        }
      }
      if (bestN >= 2) break;
    }
    if (bestN >= 2) {
      LoopRun run;
      run.start = i;
      run.period = bestK;
      run.iterations = bestN;
      run.nested = detectInRange(cluster, i, i + bestK, exact, loose);
      // Foldable: equal leaf counts in every iteration.
      std::size_t first = 0;
      for (std::size_t it = 0; it < bestN; ++it) {
        std::vector<int> leaves;
        const std::size_t s = i + it * bestK;
        collectLeaves(tree_, cluster, s, s + bestK, leaves);
        if (it == 0) {
          first = leaves.size();
        } else if (leaves.size() != first) {
          run.foldable = false;
          break;
        }
      }
      loops.push_back(std::move(run));
      i += bestK * bestN;
    } else {
      ++i;
    }
  }
  return loops;
}

const std::vector<LoopRun>& LoopFinder::loops(int cluster, std::size_t begin, std::size_t end) {
  const auto key = std::make_tuple(cluster, begin, end);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  const auto& children = tree_.at(cluster).children;
  // Signature views over the whole sibling list: positions stay absolute.
  std::vector<int> exact(children.size(), -1), loose(children.size(), -1);
  for (std::size_t i = begin; i < end; ++i) {
    exact[i] = signature(children[i], false);
    loose[i] = signature(children[i], true);
  }
  return cache_[key] = detectInRange(cluster, begin, end, exact, loose);
}

}  // namespace nndna::diagram::detail
