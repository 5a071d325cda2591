// Trace nodes (what few spans carry, behind one pointer), completing a trace from nodes in any
// order (pre-order, indices for parents and children), and the summary totals. Iterative
// throughout: span nesting can be arbitrarily deep.
#include <algorithm>
#include <limits>

#include "xray/recorder.hpp"
#include "xray/token_count.hpp"

namespace nndna::xray {

struct TraceNode::Details {
  Inputs inputs;
  std::optional<std::string> output;
  std::optional<std::string> error;
  std::string kind;
  std::vector<std::string> tags;
  nlohmann::json meta = nlohmann::json::object();
};

namespace {
const TraceNode::Details& noDetails() {
  static const TraceNode::Details none;
  return none;
}
}  // namespace

TraceNode::TraceNode() = default;
TraceNode::~TraceNode() = default;
TraceNode::TraceNode(TraceNode&& other) noexcept = default;
TraceNode& TraceNode::operator=(TraceNode&& other) noexcept = default;
TraceNode::TraceNode(const TraceNode& other)
    : id(other.id),
      name(other.name),
      startMs(other.startMs),
      latencyMs(other.latencyMs),
      parent(other.parent),
      children(other.children),
      thread(other.thread),
      open(other.open),
      details_(other.details_ ? std::make_unique<Details>(*other.details_) : nullptr) {}
TraceNode& TraceNode::operator=(const TraceNode& other) {
  if (this != &other) *this = TraceNode(other);
  return *this;
}

TraceNode::Details& TraceNode::details() {
  if (!details_) details_ = std::make_unique<Details>();
  return *details_;
}

const TraceNode::Inputs& TraceNode::inputs() const noexcept { return (details_ ? *details_ : noDetails()).inputs; }
const std::optional<std::string>& TraceNode::output() const noexcept {
  return (details_ ? *details_ : noDetails()).output;
}
const std::optional<std::string>& TraceNode::error() const noexcept { return (details_ ? *details_ : noDetails()).error; }
const std::string& TraceNode::kind() const noexcept { return (details_ ? *details_ : noDetails()).kind; }
const std::vector<std::string>& TraceNode::tags() const noexcept { return (details_ ? *details_ : noDetails()).tags; }
const nlohmann::json& TraceNode::meta() const noexcept { return (details_ ? *details_ : noDetails()).meta; }

void TraceNode::addInput(std::string inputName, std::string text) {
  details().inputs.emplace_back(std::move(inputName), std::move(text));
}
void TraceNode::setOutput(std::optional<std::string> text) {
  if (text || details_) details().output = std::move(text);
}
void TraceNode::setError(std::optional<std::string> text) {
  if (text || details_) details().error = std::move(text);
}
void TraceNode::setKind(std::string kindName) {
  if (!kindName.empty() || details_) details().kind = std::move(kindName);
}
void TraceNode::setTags(std::vector<std::string> tagList) {
  if (!tagList.empty() || details_) details().tags = std::move(tagList);
}
nlohmann::json& TraceNode::mutableMeta() { return details().meta; }

namespace detail {

void finishTrace(Trace& trace) {
  auto& nodes = trace.nodes;
  const auto n = static_cast<std::uint32_t>(nodes.size());

  // A parent chain that loops (possible in a corrupt event stream) is cut where it closes.
  {
    std::vector<std::uint8_t> state(n, 0);  // 0 new, 1 on the current chain, 2 done
    std::vector<std::uint32_t> chain;
    for (std::uint32_t start = 0; start < n; ++start) {
      std::uint32_t at = start;
      while (state[at] == 0) {
        state[at] = 1;
        chain.push_back(at);
        auto& parent = nodes[at].parent;
        if (!parent) break;
        if (*parent >= n || state[*parent] == 1) {
          parent.reset();
          break;
        }
        at = static_cast<std::uint32_t>(*parent);
      }
      for (std::uint32_t c : chain) state[c] = 2;
      chain.clear();
    }
  }

  // Children of every node, contiguous (offsets into one list).
  std::vector<std::uint32_t> offset(std::size_t{n} + 1, 0);
  std::vector<std::uint32_t> roots;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (nodes[i].parent) ++offset[*nodes[i].parent + 1];
    else roots.push_back(i);
  }
  for (std::uint32_t i = 0; i < n; ++i) offset[i + 1] += offset[i];
  std::vector<std::uint32_t> childList(offset[n]);
  {
    std::vector<std::uint32_t> fill(offset.begin(), offset.end() - 1);
    for (std::uint32_t i = 0; i < n; ++i)
      if (nodes[i].parent) childList[fill[*nodes[i].parent]++] = i;
  }
  auto byStart = [&](std::uint32_t a, std::uint32_t b) {
    const auto& x = nodes[a];
    const auto& y = nodes[b];
    if (x.startMs != y.startMs) return x.startMs < y.startMs;
    if (x.id.size() != y.id.size()) return x.id.size() < y.id.size();  // "s9" before "s10"
    return x.id < y.id;
  };
  std::sort(roots.begin(), roots.end(), byStart);
  for (std::uint32_t i = 0; i < n; ++i)
    if (offset[i + 1] - offset[i] > 1 &&
        !std::is_sorted(childList.begin() + offset[i], childList.begin() + offset[i + 1], byStart))
      std::sort(childList.begin() + offset[i], childList.begin() + offset[i + 1], byStart);

  // Pre-order with an explicit stack: the new index of every node.
  std::vector<std::uint32_t> newIndex(n);
  {
    std::uint32_t next = 0;
    std::vector<std::uint32_t> stack(roots.rbegin(), roots.rend());
    while (!stack.empty()) {
      std::uint32_t i = stack.back();
      stack.pop_back();
      newIndex[i] = next++;
      for (std::uint32_t c = offset[i + 1]; c > offset[i]; --c) stack.push_back(childList[c - 1]);
    }
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    auto& node = nodes[i];
    if (node.parent) node.parent = newIndex[*node.parent];
    node.children.assign(offset[i + 1] - offset[i], 0);
    for (std::uint32_t c = offset[i]; c < offset[i + 1]; ++c) node.children[c - offset[i]] = newIndex[childList[c]];
  }
  trace.roots.clear();
  trace.roots.reserve(roots.size());
  for (std::uint32_t r : roots) trace.roots.push_back(newIndex[r]);
  // Move every node to its new place, one cycle of the permutation at a time.
  for (std::uint32_t i = 0; i < n; ++i) {
    while (newIndex[i] != i) {
      std::uint32_t target = newIndex[i];
      std::swap(nodes[i], nodes[target]);
      std::swap(newIndex[i], newIndex[target]);
    }
  }
}

void noteMisnestedSpans(Trace& trace) {
  std::size_t misnested = 0;
  for (const auto& n : trace.nodes)
    if (n.meta().contains("xray.misnested")) ++misnested;
  if (misnested > 0)
    trace.warnings.push_back(std::to_string(misnested) + " span" + (misnested == 1 ? "" : "s") +
                             " closed out of order (a coroutine suspended inside a span, or resumed on another "
                             "thread?): the nesting around them may be wrong; see their xray.misnested metadata");
}

}  // namespace detail

TraceSummary summarize(const Trace& trace) {
  TraceSummary s;
  s.nodes = trace.nodes.size();
  double first = std::numeric_limits<double>::infinity();
  double last = -std::numeric_limits<double>::infinity();
  for (const auto& n : trace.nodes) {
    if (n.error()) ++s.errors;
    if (n.open) ++s.open;
    first = std::min(first, n.startMs);
    last = std::max(last, n.startMs + n.latencyMs);
    const auto& meta = n.meta();
    if (auto it = meta.find("total_tokens"); it != meta.end()) s.totalTokens = addTokens(s.totalTokens, tokenCount(*it));
    if (auto it = meta.find("estimated_cost_usd"); it != meta.end() && it->is_number()) s.costUsd += it->get<double>();
  }
  s.totalMs = trace.nodes.empty() ? 0.0 : last - first;
  return s;
}

}  // namespace nndna::xray
