// The summary table: which module each forward op belongs to, and one row per module with the
// diagram's metrics (metrics.hpp) summed over the ops attributed to it and its children.
#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>

#include "diagram/group_tree.hpp"
#include "diagram/metrics.hpp"
#include "diagram/summary_parts.hpp"
#include "diagram/text.hpp"

namespace nndna::diagram::detail {
namespace {

// The deepest module holding both: the common prefix of whole path parts.
std::string commonModule(std::string_view a, std::string_view b) {
  const std::vector<std::string_view> pa = split(a, '.'), pb = split(b, '.');
  std::string out;
  for (std::size_t i = 0; i < std::min(pa.size(), pb.size()) && pa[i] == pb[i]; ++i) {
    if (!out.empty()) out += '.';
    out += pa[i];
  }
  return out;
}

// Whether `a` and `b` are different elements of one list (`layers.0…` and `layers.1…`): where
// their paths first differ, both parts are numbers.
bool otherListElement(std::string_view a, std::string_view b) {
  const std::vector<std::string_view> pa = split(a, '.'), pb = split(b, '.');
  for (std::size_t i = 0; i < std::min(pa.size(), pb.size()); ++i) {
    if (pa[i] != pb[i]) return isListIndex(pa[i]) && isListIndex(pb[i]);
  }
  return false;
}

void mergeInto(std::optional<std::string>& acc, std::string_view module) {
  acc = acc ? commonModule(*acc, module) : std::string(module);
}

// The parameter a tensor is, directly, as a view of one (`swapAxes(m.tokEmb, -1, -2)`) or as a
// slice of one (MultiheadAttention's q, k and v blocks of in_proj_weight).
const ir::Param* paramBehind(const ir::Graph& g, const std::unordered_map<ir::TensorId, std::size_t>& paramOf,
                             ir::TensorId t) {
  while (true) {
    if (const auto it = paramOf.find(t); it != paramOf.end()) return &g.params[it->second];
    const ir::OpId src = g.tensor(t).source;
    if (src == ir::kNone || g.op(src).inputs.empty()) return nullptr;
    const ir::OpKind kind = g.op(src).kind;
    if (!ir::isViewKind(kind) && kind != ir::OpKind::narrow) return nullptr;
    t = g.op(src).inputs[0];
  }
}

struct SourceLine {
  std::int32_t file = ir::kNone;
  std::int32_t line = 0;
  friend bool operator==(const SourceLine&, const SourceLine&) = default;
};

// One function call of the trace: the ops it issued and the calls it made belong to it.
struct Call {
  int parent = -1;  // -1: called from the spec's entry function
  ir::FrameId frame = ir::kNone;
  SourceLine firstLine, lastLine;  // lines of its body seen first and last
  std::optional<std::string> module;  // deepest common module of the parameters read under it
};

}  // namespace

std::string moduleOfParam(std::string_view paramName) {
  const std::size_t dot = paramName.rfind('.');
  return dot == std::string_view::npos ? std::string() : std::string(paramName.substr(0, dot));
}

std::vector<std::string> moduleOfOps(const ir::Graph& g, const std::vector<char>& forwardMask) {
  std::unordered_map<ir::TensorId, std::size_t> paramOf;
  for (std::size_t i = 0; i < g.params.size(); ++i) paramOf.emplace(g.params[i].tensor, i);
  auto lineOf = [&](ir::FrameId id) {
    const ir::Frame& f = g.sites.frames.at(static_cast<std::size_t>(id));
    return SourceLine{f.file, f.line};
  };

  // Calls, found as the group tree finds call clusters: the frames of an op's chain but its last
  // are calls; a call whose first body line comes back after another line is the next call from
  // the same place (`for (...) x = block(layer, x);`).
  std::vector<Call> calls;
  std::vector<int> open;  // the calls the previous op ran in, outermost first
  std::vector<int> callOfOp(g.ops.size(), -1);
  std::vector<std::optional<std::string>> direct(g.ops.size());  // module of the parameters an op reads
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const ir::Op& op = g.ops[i];
    if (!forwardMask[i] || ir::isLeafKind(op.kind)) continue;
    for (ir::TensorId in : op.inputs) {
      if (const ir::Param* p = paramBehind(g, paramOf, in)) mergeInto(direct[i], moduleOfParam(p->name));
    }
    if (op.site == ir::kNone) continue;  // no user frame: the model's
    const std::span<const ir::FrameId> chain = g.sites.chains.at(static_cast<std::size_t>(op.site));
    const std::size_t depth = chain.empty() ? 0 : chain.size() - 1;  // call frames
    std::size_t keep = 0;
    while (keep < depth && keep < open.size()) {
      const Call& c = calls[static_cast<std::size_t>(open[keep])];
      const SourceLine body = lineOf(chain[keep + 1]);
      if (c.frame != chain[keep] || (body == c.firstLine && !(body == c.lastLine))) break;
      ++keep;
    }
    open.resize(keep);
    for (std::size_t d = keep; d < depth; ++d) {
      const SourceLine body = lineOf(chain[d + 1]);
      calls.push_back({open.empty() ? -1 : open.back(), chain[d], body, body, std::nullopt});
      open.push_back(static_cast<int>(calls.size() - 1));
    }
    for (std::size_t d = 0; d < open.size(); ++d) {
      calls[static_cast<std::size_t>(open[d])].lastLine = lineOf(chain[d + 1]);
    }
    callOfOp[i] = open.empty() ? -1 : open.back();
    if (direct[i] && !open.empty()) mergeInto(calls[static_cast<std::size_t>(open.back())].module, *direct[i]);
  }
  // One call of the library from a user line (a layer's operator(), an op): the consecutive ops
  // issued from the same call instruction (the same site: chain and return address). A built-in
  // layer made of several ops (LSTM's gates, attention's softmax, BatchNorm1d's views) issues
  // them all from the user's one call, so the parameters some of them read name the module of
  // all; a parameter-free op on the same line (`relu(m.fc(x))`) is a call of its own. A loop
  // whose body is that one call (`for (...) x = layer(x);`) calls it again from the same site:
  // the parameters of the list's next element start the next call.
  std::vector<std::optional<std::string>> libraryCall(g.ops.size());
  for (std::size_t i = 0; i < g.ops.size();) {
    if (!forwardMask[i] || ir::isLeafKind(g.ops[i].kind) || g.ops[i].site == ir::kNone) {
      ++i;
      continue;
    }
    const ir::SiteId site = g.ops[i].site;
    std::size_t end = i;
    std::optional<std::string> module;
    for (std::size_t j = i; j < g.ops.size(); ++j) {
      if (!forwardMask[j] || ir::isLeafKind(g.ops[j].kind)) continue;  // a constant made inside the call
      if (g.ops[j].site != site) break;
      if (direct[j] && module && otherListElement(*module, *direct[j])) break;
      if (direct[j]) mergeInto(module, *direct[j]);
      end = j + 1;
    }
    for (std::size_t j = i; j < end; ++j) libraryCall[j] = module;
    i = end;
  }

  // A call's module covers its sub-calls' parameters: children come after their parent.
  for (std::size_t c = calls.size(); c-- > 0;) {
    const Call& call = calls[c];
    if (call.parent >= 0 && call.module) mergeInto(calls[static_cast<std::size_t>(call.parent)].module, *call.module);
  }

  std::vector<std::string> out(g.ops.size());
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    if (direct[i]) {
      out[i] = *direct[i];
      continue;
    }
    if (libraryCall[i]) {
      out[i] = *libraryCall[i];
      continue;
    }
    for (int c = callOfOp[i]; c >= 0; c = calls[static_cast<std::size_t>(c)].parent) {
      if (calls[static_cast<std::size_t>(c)].module) {
        out[i] = *calls[static_cast<std::size_t>(c)].module;
        break;
      }
    }
  }
  return out;
}

SideSummary sideSummary(const ir::Graph& g, const ir::Graph& paramsGraph, Side side) {
  // Rows: every prefix of every parameter path, children in registration order.
  SideSummary summary{side, {}};
  std::map<std::string, std::size_t> rowOf;
  auto addRow = [&](const std::string& path) {
    if (rowOf.contains(path)) return;
    const std::vector<std::string_view> parts = path.empty() ? std::vector<std::string_view>{} : split(path, '.');
    rowOf.emplace(path, summary.rows.size());
    summary.rows.push_back({path, parts.empty() ? "" : std::string(parts.back()),
                            static_cast<int>(parts.size()), std::nullopt, 0, 0, 0, 0});
  };
  addRow("");
  for (const ir::Param& p : paramsGraph.params) {
    const std::string module = moduleOfParam(p.name);
    std::string prefix;
    for (std::string_view part : split(module, '.')) {
      if (part.empty()) continue;
      prefix += (prefix.empty() ? "" : ".") + std::string(part);
      addRow(prefix);
    }
  }
  // The row of a module and of each of its ancestors, deepest first. Found once per module and
  // kept: every forward op adds to the rows of its module, and there are far fewer modules.
  std::unordered_map<std::string, std::vector<std::size_t>> rowsOfModule;
  auto forEachRow = [&](const std::string& module, auto&& fn) {
    auto [at, added] = rowsOfModule.try_emplace(module);
    if (added) {
      std::string path = module;
      while (true) {
        if (const auto it = rowOf.find(path); it != rowOf.end()) at->second.push_back(it->second);
        if (path.empty()) break;
        path = moduleOfParam(path);
      }
    }
    for (const std::size_t row : at->second) fn(summary.rows[row]);
  };
  for (const ir::Param& p : paramsGraph.params) {
    const std::int64_t n = ir::numel(paramsGraph.tensor(p.tensor).shape);
    forEachRow(moduleOfParam(p.name), [&](SummaryRow& r) { r.params = checkedAdd(r.params, n); });
  }

  const std::vector<char> forward = forwardReachable(g);
  const std::vector<std::string> modules = moduleOfOps(g, forward);
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const ir::Op& op = g.ops[i];
    if (!forward[i] || ir::isLeafKind(op.kind)) continue;
    const std::int64_t flops = opFlops(g, op);
    const std::int64_t bytes = checkedMul(4, activationElements(g, op));
    forEachRow(modules[i], [&](SummaryRow& r) {
      r.flops = checkedAdd(r.flops, flops);
      r.activationBytes = checkedAdd(r.activationBytes, bytes);
      r.output = g.tensor(op.out).shape;  // ops come in trace order: the last one stays
      ++r.ops;
    });
  }
  if (!g.outputs.empty()) summary.rows[0].output = g.tensor(g.outputs[0]).shape;

  // Depth first: a stable sort by the path's parts in the order the rows were made would reorder
  // siblings by name, so order by each ancestor's creation index instead.
  std::vector<std::vector<std::size_t>> key(summary.rows.size());
  for (std::size_t r = 0; r < summary.rows.size(); ++r) {
    std::string path = summary.rows[r].path;
    while (!path.empty()) {
      key[r].insert(key[r].begin(), rowOf.at(path));
      path = moduleOfParam(path);
    }
  }
  std::vector<std::size_t> order(summary.rows.size());
  for (std::size_t r = 0; r < order.size(); ++r) order[r] = r;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
  std::vector<SummaryRow> sorted;
  sorted.reserve(order.size());
  for (std::size_t r : order) sorted.push_back(std::move(summary.rows[r]));
  summary.rows = std::move(sorted);
  return summary;
}

}  // namespace nndna::diagram::detail
