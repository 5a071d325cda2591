#include "diagram/loops.hpp"

#include <algorithm>
#include <string>

#include "diagram/text.hpp"

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

ModuleTree::ModuleTree(const GroupTree& tree) : leafRange_(tree.nodes.size(), {0, 0}) {
  modules_.emplace_back();  // the root: parameters with no module ("w0")
  ids_.emplace("", 0);
  const ir::Graph& g = *tree.graph;
  std::size_t next = 0;
  auto walk = [&](auto&& self, int node) -> void {
    const TreeNode& n = tree.at(node);
    const std::size_t first = next;
    if (n.leaf) {
      std::vector<int> read;
      for (ir::OpId o : n.ops) {
        for (ir::TensorId t : g.op(o).inputs) {
          const ir::Op& src = g.producer(t);
          if (src.kind != ir::OpKind::param_input) continue;
          const std::string_view name = src.attrs.name;
          const auto dot = name.rfind('.');
          read.push_back(moduleFor(dot == std::string_view::npos ? std::string_view() : name.substr(0, dot)));
        }
      }
      std::sort(read.begin(), read.end());
      read.erase(std::unique(read.begin(), read.end()), read.end());
      for (int m : read) {
        for (int x = m; x >= 0; x = modules_[static_cast<std::size_t>(x)].parent) {
          Module& mod = modules_[static_cast<std::size_t>(x)];
          mod.firstReader = std::min(mod.firstReader, next);
          mod.lastReader = std::max(mod.lastReader, next);
        }
      }
      leafModules_.push_back(std::move(read));
      leafRange_[static_cast<std::size_t>(node)] = {next, next};
      ++next;
      return;
    }
    for (int c : n.children) self(self, c);
    leafRange_[static_cast<std::size_t>(node)] = {first, next > first ? next - 1 : first};
  };
  walk(walk, GroupTree::kRoot);
}

int ModuleTree::moduleFor(std::string_view path) {
  if (auto it = ids_.find(std::string(path)); it != ids_.end()) return it->second;
  const auto dot = path.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? path : path.substr(dot + 1);
  const int parent = moduleFor(dot == std::string_view::npos ? std::string_view() : path.substr(0, dot));
  Module m;
  m.parent = parent;
  m.listElement = isListIndex(last);
  const int id = static_cast<int>(modules_.size());
  modules_.push_back(m);
  ids_.emplace(std::string(path), id);
  return id;
}

int ModuleTree::elementOf(int module) const {
  for (int x = module; x > 0; x = modules_[static_cast<std::size_t>(x)].parent) {
    if (modules_[static_cast<std::size_t>(x)].listElement) return x;
  }
  return module;
}

bool ModuleTree::readOnlyWithin(int module, std::size_t first, std::size_t last) const {
  const Module& m = modules_[static_cast<std::size_t>(module)];
  return m.firstReader == SIZE_MAX || (m.firstReader >= first && m.lastReader <= last);
}

std::size_t LoopFinder::alignedWithCalls(int cluster, std::size_t lo, std::size_t hi,
                                         std::size_t i, std::size_t k, std::size_t n) const {
  const auto& children = tree_.at(cluster).children;
  auto callStart = [&](std::size_t p) { return tree_.at(children[p]).invocationStart; };
  const std::size_t end = i + k * n;
  std::size_t firstCall = end;
  for (std::size_t p = i + 1; p < end; ++p) {
    if (callStart(p)) {
      firstCall = p;
      break;
    }
  }
  if (firstCall == end) return n;  // within one call
  // The iterations before the next call begins, all within the current call.
  const std::size_t within = (firstCall - i) / k;
  // Or whole calls: every iteration starts where a call starts.
  auto boundary = [&](std::size_t p) { return p == lo || p == hi || callStart(p); };
  std::size_t whole = 0;
  if (boundary(i)) {
    while (whole < n && boundary(i + (whole + 1) * k)) ++whole;
  }
  return std::max(within, whole);
}

std::size_t LoopFinder::ownWeightsKeptWithin(int cluster, std::size_t i, std::size_t k,
                                             std::size_t n) const {
  const auto& children = tree_.at(cluster).children;
  auto firstOf = [&](std::size_t it) { return modules_.firstLeaf(children[i + it * k]); };
  auto lastOf = [&](std::size_t it) { return modules_.lastLeaf(children[i + it * k + k - 1]); };
  // Modules each iteration reads, and in how many iterations each is read.
  std::vector<std::vector<int>> read(n);
  std::unordered_map<int, std::size_t> iterationsReading;
  for (std::size_t it = 0; it < n; ++it) {
    for (std::size_t leaf = firstOf(it); leaf <= lastOf(it); ++leaf) {
      const auto& mods = modules_.modulesOf(leaf);
      read[it].insert(read[it].end(), mods.begin(), mods.end());
    }
    std::sort(read[it].begin(), read[it].end());
    read[it].erase(std::unique(read[it].begin(), read[it].end()), read[it].end());
    for (int m : read[it]) ++iterationsReading[m];
  }
  for (std::size_t it = 0; it < n; ++it) {
    // The list elements of the iteration's own weights; several elements of one list stand for
    // the list (and so on upwards).
    std::vector<int> units;
    for (int m : read[it]) {
      if (iterationsReading[m] == 1) units.push_back(modules_.elementOf(m));
    }
    bool merged = true;
    while (merged) {
      merged = false;
      std::sort(units.begin(), units.end());
      units.erase(std::unique(units.begin(), units.end()), units.end());
      std::unordered_map<int, std::size_t> perList;
      for (int u : units) {
        if (u > 0) ++perList[modules_.parentOf(u)];
      }
      for (int& u : units) {
        if (u > 0 && perList[modules_.parentOf(u)] >= 2) {
          u = modules_.elementOf(modules_.parentOf(u));
          merged = true;
        }
      }
    }
    for (int u : units) {
      if (!modules_.readOnlyWithin(u, firstOf(it), lastOf(it))) return it;
    }
  }
  return n;
}

std::size_t LoopFinder::iterationsOfCode(int cluster, std::size_t lo, std::size_t hi,
                                         std::size_t i, std::size_t k, std::size_t n) const {
  n = alignedWithCalls(cluster, lo, hi, i, k, n);
  // Weights shared with iterations past the prefix are not a prefix's own: check again until
  // the prefix holds.
  while (n >= 2) {
    const std::size_t kept = ownWeightsKeptWithin(cluster, i, k, n);
    if (kept == n) break;
    n = kept;
  }
  return n;
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
        std::size_t n = repeatsAt(i, k, hi, eq);
        if (!better(k, n, bestK, bestN)) continue;
        n = iterationsOfCode(cluster, lo, hi, i, k, n);
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
