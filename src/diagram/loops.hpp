// Loop detection: the iterations of a loop body produce sibling tree nodes whose signatures repeat
// with some period. Greedy by coverage (period × iterations), ties to the smaller period.
//
// Two signature views per sibling list (the seed's): `exact` guarantees identical inner structure;
// `loose` also collapses repetition inside a node (collapseRepeats), so a block whose own inner
// loop grows across outer iterations still matches its siblings. Loose is consulted only where
// exact finds nothing. A loop is foldable (drawn once as ×N) when every iteration has the same
// number of leaves, which makes a position-wise pairing possible.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "diagram/group_tree.hpp"

namespace nndna::diagram::detail {

struct LoopRun {
  std::size_t start = 0;  // absolute index into the cluster's children
  std::size_t period = 0;
  std::size_t iterations = 0;
  bool foldable = true;
  std::vector<LoopRun> nested;  // loops inside the first iteration's range
};

// Collapses maximal period-k repetitions (k >= 1) of a list to one copy of the period.
std::vector<int> collapseRepeats(const std::vector<int>& items);

// Signatures and loop runs of one tree, memoized (the fold map and the key walk both ask).
class LoopFinder {
 public:
  explicit LoopFinder(const GroupTree& tree) : tree_(tree), sigs_(tree.nodes.size(), {-1, -1}) {}

  // Loops among children[begin, end) of `cluster`, with absolute indices.
  const std::vector<LoopRun>& loops(int cluster, std::size_t begin, std::size_t end);

  int signature(int node, bool loose);

 private:
  int intern(std::string sig);
  std::vector<LoopRun> detectInRange(int cluster, std::size_t lo, std::size_t hi,
                                     const std::vector<int>& exact, const std::vector<int>& loose);

  const GroupTree& tree_;
  std::vector<std::pair<int, int>> sigs_;  // per tree node: exact, loose (-1 until computed)
  std::unordered_map<std::string, int> ids_;
  std::map<std::tuple<int, std::size_t, std::size_t>, std::vector<LoopRun>> cache_;
};

}  // namespace nndna::diagram::detail
