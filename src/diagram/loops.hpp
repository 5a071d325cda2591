// Loop detection: the iterations of a loop body produce sibling tree nodes whose signatures repeat
// with some period. Greedy by coverage (period × iterations), ties to the smaller period.
//
// Two signature views per sibling list (the seed's): `exact` guarantees identical inner structure;
// `loose` also collapses repetition inside a node (collapseRepeats), so a block whose own inner
// loop grows across outer iterations still matches its siblings. Loose is consulted only where
// exact finds nothing. A loop is foldable (drawn once as ×N) when every iteration has the same
// number of leaves, which makes a position-wise pairing possible.
//
// Beyond the seed, a repetition of signatures is a loop only when its iterations are iterations
// of the user's code (docs/diagram.md, "Loops over stages"):
// - Calls: consecutive calls made from one line share one cluster (group_tree.hpp). A loop there
//   either runs over whole calls (every iteration starts where a call starts) or lies within one
//   call, so an iteration never begins in the middle of one call and ends in the next.
// - Weights: each iteration's own parameters (those no other iteration reads) belong to list
//   elements (`layer2.1`) that no box outside the iteration reads. An iteration that holds
//   several elements of one list (a ResNet stage's blocks) stands for the whole list, so a loop
//   never takes three of a stage's four blocks as one iteration. Iterations that share every
//   weight (an RNN's steps) are loops as before.
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
};

// Collapses maximal period-k repetitions (k >= 1) of a list to one copy of the period.
std::vector<int> collapseRepeats(const std::vector<int>& items);

// The modules whose parameters the leaves read, as a tree of dotted paths ("layer2.1.conv1"),
// with the range of leaves (in tree order) that read each module or anything under it.
class ModuleTree {
 public:
  explicit ModuleTree(const GroupTree& tree);

  // Leaves in tree order; a tree node's leaves are the contiguous range [first, last].
  std::size_t firstLeaf(int node) const { return leafRange_[static_cast<std::size_t>(node)].first; }
  std::size_t lastLeaf(int node) const { return leafRange_[static_cast<std::size_t>(node)].second; }
  // Modules (ids) whose parameters the leaf at `ordinal` reads directly, sorted.
  const std::vector<int>& modulesOf(std::size_t ordinal) const { return leafModules_[ordinal]; }
  // The list element a module belongs to: its nearest ancestor (or itself) whose name is a
  // number ("layer2.1" for "layer2.1.conv1"); the module itself when it is in no list.
  int elementOf(int module) const;
  int parentOf(int module) const { return modules_[static_cast<std::size_t>(module)].parent; }
  // Whether every leaf of [scopeFirst, scopeLast] that reads `module` (or a module under it) lies
  // in [first, last] (a sub-range of the scope).
  bool readOnlyWithin(int module, std::size_t first, std::size_t last, std::size_t scopeFirst,
                      std::size_t scopeLast) const;

 private:
  struct Module {
    int parent = -1;
    bool listElement = false;  // the last path component is a number
    std::vector<std::size_t> readers;  // leaf ordinals reading it or a module under it, sorted
  };
  int moduleFor(std::string_view path);

  std::vector<Module> modules_;  // [0] is the root (the empty path)
  std::unordered_map<std::string, int> ids_;
  std::vector<std::pair<std::size_t, std::size_t>> leafRange_;  // per tree node
  std::vector<std::vector<int>> leafModules_;                   // per leaf ordinal
};

// Signatures and loop runs of one tree, memoized (the fold map and the key walk both ask).
class LoopFinder {
 public:
  explicit LoopFinder(const GroupTree& tree)
      : tree_(tree), modules_(tree), sigs_(tree.nodes.size(), {-1, -1}) {}

  // Loops among children[begin, end) of `cluster`, with absolute indices.
  const std::vector<LoopRun>& loops(int cluster, std::size_t begin, std::size_t end);

  int signature(int node, bool loose);

 private:
  struct KeyHash {
    std::size_t operator()(const std::vector<int>& key) const;
  };
  int intern(std::vector<int> key);
  // The leaves (ModuleTree's numbering, first and last) whose reads count as outside a loop's
  // iterations: the cluster's, or for a loop inside an iteration of another, that iteration's
  // (the other iterations are the same code run again).
  struct LeafScope {
    std::size_t first = 0, last = 0;
  };
  std::vector<LoopRun> detectInRange(int cluster, std::size_t lo, std::size_t hi,
                                     const std::vector<int>& exact, const std::vector<int>& loose, LeafScope scope);
  // How many of `n` structurally equal iterations of period k at children[i] of `cluster`, within
  // the range that starts at lo, form a loop of the user's code (the rules above): a prefix of them.
  std::size_t iterationsOfCode(int cluster, std::size_t lo, std::size_t i, std::size_t k,
                               std::size_t n, LeafScope scope) const;
  std::size_t alignedWithCalls(int cluster, std::size_t lo, std::size_t i, std::size_t k,
                               std::size_t n) const;
  std::size_t ownWeightsKeptWithin(int cluster, std::size_t i, std::size_t k, std::size_t n, LeafScope scope) const;

  const GroupTree& tree_;
  ModuleTree modules_;
  std::vector<std::pair<int, int>> sigs_;  // per tree node: exact, loose (-1 until computed)
  std::unordered_map<std::vector<int>, int, KeyHash> ids_;
  std::map<std::tuple<int, std::size_t, std::size_t>, std::vector<LoopRun>> cache_;
};

}  // namespace nndna::diagram::detail
