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

// Whether period k could still beat the best run at a position with `room` items left: its
// coverage is at most k × (room / k). Once a run covers all the room, no longer period is tried:
// without this, every multiple of a long loop's period is measured along the whole loop, which
// made a 200,000-iteration loop quadratic.
bool couldBeBetter(std::size_t k, std::size_t room, std::size_t bestK, std::size_t bestN) {
  return better(k, room / k, bestK, bestN);
}

// Period searches at one position, k ascending: the first period found to repeat (p, with n
// copies) answers its multiples without comparing. A block of m·p items inside that run is m
// copies of the p-block, so it repeats while the run lasts: n / m times.
template <class Eq>
class RepeatsFrom {
 public:
  RepeatsFrom(std::size_t i, std::size_t hi, Eq eq) : i_(i), hi_(hi), eq_(eq) {}

  std::size_t operator()(std::size_t k) {
    if (p_ != 0 && k % p_ == 0 && k <= p_ * n_) return std::max<std::size_t>(1, n_ / (k / p_));
    const std::size_t n = repeatsAt(i_, k, hi_, eq_);
    if (p_ == 0 && n >= 2) {
      p_ = k;
      n_ = n;
    }
    return n;
  }

 private:
  std::size_t i_, hi_;
  Eq eq_;
  std::size_t p_ = 0, n_ = 0;  // the smallest repeating period so far, and its copies
};

}  // namespace

std::vector<int> collapseRepeats(const std::vector<int>& items) {
  std::vector<int> out;
  const std::size_t size = items.size();
  std::size_t i = 0;
  auto eq = [&](std::size_t a, std::size_t b) { return items[a] == items[b]; };
  while (i < size) {
    std::size_t bestK = 0, bestN = 0;
    RepeatsFrom repeats(i, size, eq);
    for (std::size_t k = 1; k <= (size - i) / 2; ++k) {
      if (!couldBeBetter(k, size - i, bestK, bestN)) continue;
      const std::size_t n = repeats(k);
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
          const std::string_view name = src.attrs->name;
          const auto dot = name.rfind('.');
          read.push_back(moduleFor(dot == std::string_view::npos ? std::string_view() : name.substr(0, dot)));
        }
      }
      std::sort(read.begin(), read.end());
      read.erase(std::unique(read.begin(), read.end()), read.end());
      for (int m : read) {
        for (int x = m; x >= 0; x = modules_[static_cast<std::size_t>(x)].parent) {
          // Leaves come in order, so each list stays sorted; a leaf reading two modules under
          // one ancestor is listed once.
          std::vector<std::size_t>& readers = modules_[static_cast<std::size_t>(x)].readers;
          if (readers.empty() || readers.back() != next) readers.push_back(next);
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

bool ModuleTree::readOnlyWithin(int module, std::size_t first, std::size_t last, std::size_t scopeFirst,
                                std::size_t scopeLast) const {
  const std::vector<std::size_t>& readers = modules_[static_cast<std::size_t>(module)].readers;
  // Readers in [scopeFirst, first) or in (last, scopeLast].
  const auto before = std::lower_bound(readers.begin(), readers.end(), scopeFirst);
  if (before != readers.end() && *before < first) return false;
  const auto after = std::upper_bound(readers.begin(), readers.end(), last);
  return after == readers.end() || *after > scopeLast;
}

std::size_t LoopFinder::alignedWithCalls(int cluster, std::size_t lo, std::size_t i, std::size_t k,
                                         std::size_t n) const {
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
  // Or whole calls: every iteration starts where a call starts. The last iteration's end need
  // not be a call start: what follows it may be more of one call whose first line sits in a loop
  // (a U-Net's `for (level : m.down) h = doubleConv(level, h); ... pool ...` marks each level as
  // a call start; the bottleneck after the last level is not one). In a cluster of true calls,
  // an iteration of whole calls is followed by the next call's start anyway.
  auto boundary = [&](std::size_t p) { return p == lo || callStart(p); };
  // Calls read from their lines going back are known to be whole (group_tree.hpp): an iteration
  // must end where the next call begins, or a stride block followed by a residual one folds as
  // two rounds of their shared lines with the residual add left after the loop.
  const bool endsToo = tree_.at(cluster).callsAreWhole;
  auto ends = [&](std::size_t p) { return !endsToo || p == children.size() || callStart(p); };
  std::size_t whole = 0;
  while (whole < n && boundary(i + whole * k) && ends(i + (whole + 1) * k)) ++whole;
  return std::max(within, whole);
}

std::size_t LoopFinder::ownWeightsKeptWithin(int cluster, std::size_t i, std::size_t k,
                                             std::size_t n, LeafScope scope) const {
  const auto& children = tree_.at(cluster).children;
  // Only readers within the scope count: the same weights read by another call of the cluster's
  // code (a siamese network's second branch, the next step of a sampling loop around a
  // denoiser) or by the enclosing loop's next iteration (`for (r…) for (l : m.layers) x = l(x);`)
  // are the same code run again, not part of another iteration of this loop.
  const std::size_t scopeFirst = scope.first, scopeLast = scope.last;
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
      if (!modules_.readOnlyWithin(u, firstOf(it), lastOf(it), scopeFirst, scopeLast)) return it;
    }
  }
  return n;
}

std::size_t LoopFinder::iterationsOfCode(int cluster, std::size_t lo, std::size_t i, std::size_t k,
                                         std::size_t n, LeafScope scope) const {
  n = alignedWithCalls(cluster, lo, i, k, n);
  // Weights shared with iterations past the prefix are not a prefix's own: check again until
  // the prefix holds.
  while (n >= 2) {
    const std::size_t kept = ownWeightsKeptWithin(cluster, i, k, n, scope);
    if (kept == n) break;
    n = kept;
  }
  return n;
}

std::size_t LoopFinder::KeyHash::operator()(const std::vector<int>& key) const {
  std::size_t h = key.size();
  for (int v : key) h ^= static_cast<std::size_t>(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

int LoopFinder::intern(std::vector<int> key) {
  auto [it, inserted] = ids_.try_emplace(std::move(key), static_cast<int>(ids_.size()));
  return it->second;
}

int LoopFinder::signature(int node, bool loose) {
  auto& slot = sigs_[static_cast<std::size_t>(node)];
  int& cached = loose ? slot.second : slot.first;
  if (cached >= 0) return cached;
  const TreeNode& n = tree_.at(node);
  const ir::Graph& g = *tree_.graph;
  // A signature is a sequence of numbers, interned: what it is (a leaf, an exact or a loose
  // cluster), its source line, then its op kinds (a leaf) or its children's signatures (a
  // cluster), repeats collapsed when loose. Equal ids <=> equal sequences.
  enum : int { kLeaf, kCluster, kLooseCluster };
  std::vector<int> items;
  if (n.leaf) {
    items.reserve(n.ops.size());
    for (ir::OpId o : n.ops) items.push_back(static_cast<int>(g.op(o).kind));
  } else {
    items.reserve(n.children.size());
    for (int c : n.children) items.push_back(signature(c, loose));
  }
  if (loose) items = collapseRepeats(items);
  std::vector<int> key;
  key.reserve(items.size() + 3);
  key.push_back(n.leaf ? kLeaf : loose ? kLooseCluster : kCluster);
  key.push_back(n.where.file);
  key.push_back(n.where.line);
  key.insert(key.end(), items.begin(), items.end());
  const int id = intern(std::move(key));
  // `cached` may dangle if sigs_ was resized; it is not (sized once, one slot per tree node).
  cached = id;
  return id;
}

std::vector<LoopRun> LoopFinder::detectInRange(int cluster, std::size_t lo, std::size_t hi,
                                               const std::vector<int>& exact,
                                               const std::vector<int>& loose, LeafScope scope) {
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
      RepeatsFrom repeats(i, hi, eq);
      for (std::size_t k = periodOne ? 1 : 2; k <= (hi - i) / 2; ++k) {
        if (!couldBeBetter(k, hi - i, bestK, bestN)) continue;
        std::size_t n = repeats(k);
        if (!better(k, n, bestK, bestN)) continue;
        n = iterationsOfCode(cluster, lo, i, k, n, scope);
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
  // The range's own leaves: the cluster's, or, for a range that is an iteration of a loop around
  // it, that iteration's (LeafScope).
  if (begin >= end) return cache_[key] = {};
  const LeafScope scope{modules_.firstLeaf(children[begin]), modules_.lastLeaf(children[end - 1])};
  return cache_[key] = detectInRange(cluster, begin, end, exact, loose, scope);
}

}  // namespace nndna::diagram::detail
