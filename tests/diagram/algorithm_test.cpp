// The algorithm's parts on small inputs: repeat collapsing, label text, dims.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <regex>
#include <set>
#include <stdexcept>

#include "diagram/assemble.hpp"
#include "diagram/dims.hpp"
#include "diagram/loops.hpp"
#include "diagram/shape_label.hpp"
#include "diagram/text.hpp"
#include "nndna/error.hpp"
#include "render/svg_render.hpp"

namespace nndna::diagram::detail {
namespace {

TEST(CollapseRepeats, CollapsesRunsNotWholeLists) {
  // `stack` over 3 tensors: reshape ×3 then concat; the trailing element stays.
  EXPECT_EQ(collapseRepeats({1, 1, 1, 2}), (std::vector<int>{1, 2}));
  // Period 2 repeated 3 times, then a tail.
  EXPECT_EQ(collapseRepeats({1, 2, 1, 2, 1, 2, 3}), (std::vector<int>{1, 2, 3}));
  // Ties in coverage go to the smaller period: 1,1,1,1 is period 1 ×4, not period 2 ×2.
  EXPECT_EQ(collapseRepeats({1, 1, 1, 1}), (std::vector<int>{1}));
  EXPECT_EQ(collapseRepeats({1, 2, 3}), (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(collapseRepeats({}).empty());
}

// The definition, checked without shortcuts: at each position, every period, every copy compared.
std::vector<int> collapseRepeatsByDefinition(const std::vector<int>& items) {
  std::vector<int> out;
  std::size_t i = 0;
  while (i < items.size()) {
    std::size_t bestK = 0, bestN = 0;
    for (std::size_t k = 1; i + 2 * k <= items.size(); ++k) {
      std::size_t n = 1;
      while (i + (n + 1) * k <= items.size() &&
             std::equal(items.begin() + static_cast<long>(i), items.begin() + static_cast<long>(i + k),
                        items.begin() + static_cast<long>(i + n * k))) {
        ++n;
      }
      if (n >= 2 && (k * n > bestK * bestN || (k * n == bestK * bestN && k < bestK))) {
        bestK = k;
        bestN = n;
      }
    }
    const std::size_t take = bestN >= 2 ? bestK : 1;
    out.insert(out.end(), items.begin() + static_cast<long>(i), items.begin() + static_cast<long>(i + take));
    i += bestN >= 2 ? bestK * bestN : 1;
  }
  return out;
}

TEST(CollapseRepeats, AgreesWithTheDefinitionOnRandomLists) {
  // Small alphabets make runs, runs of runs and multiples of periods (the shortcuts' cases).
  std::uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t size = next() % 40;
    const int alphabet = 1 + static_cast<int>(next() % 3);
    std::vector<int> items;
    // Half the lists are a random block repeated, with a random tail.
    if (trial % 2 == 0) {
      for (std::size_t j = 0; j < size; ++j) items.push_back(static_cast<int>(next() % alphabet));
    } else {
      std::vector<int> block(1 + next() % 5);
      for (int& b : block) b = static_cast<int>(next() % alphabet);
      for (std::size_t copies = 2 + next() % 8; copies > 0; --copies) items.insert(items.end(), block.begin(), block.end());
      for (std::size_t tail = next() % 4; tail > 0; --tail) items.push_back(static_cast<int>(next() % alphabet));
    }
    ASSERT_EQ(collapseRepeats(items), collapseRepeatsByDefinition(items)) << "trial " << trial;
  }
}

TEST(CollapseRepeats, ALongLoopCollapsesToItsBody) {
  std::vector<int> items;
  for (int i = 0; i < 200'000; ++i) items.insert(items.end(), {7, 8, 9, 8, 7});
  items.push_back(3);
  EXPECT_EQ(collapseRepeats(items), (std::vector<int>{7, 8, 9, 8, 7, 3}));
}

// Edges spanning ranks cost Graphviz a virtual node per rank crossed; a cycle's back edge is not
// ranked (constraint=false).
TEST(LayoutSize, VirtualNodesOfLongEdges) {
  Diagram d;
  d.nodes.resize(6);
  // A chain 0 → … → 5 (ranks 0 … 5), a skip 0 → 3 (2 virtual nodes), 0 → 5 (4), and a back edge.
  for (int i = 0; i < 5; ++i) d.edges.push_back({.src = i, .dst = i + 1});
  d.edges.push_back({.src = 0, .dst = 3});
  d.edges.push_back({.src = 0, .dst = 5});
  d.edges.push_back({.src = 5, .dst = 1, .carried = true, .backEdge = true});
  EXPECT_EQ(virtualNodeEstimate(d), 6u);
  // A box reached by a longer path sits lower: 1 → 4 spans 3 ranks.
  d.edges.push_back({.src = 1, .dst = 4});
  EXPECT_EQ(virtualNodeEstimate(d), 8u);
}

TEST(LabelText, WrapsAtBreakCharactersAndEscapes) {
  EXPECT_EQ(wrapForLabel("short", 36), "short");
  // Breaks after ", " and "(" when a line would pass 10 characters.
  EXPECT_EQ(wrapForLabel("aaaa(bbbb, cccc)", 10), "aaaa(bbbb,<BR/>cccc)");
  EXPECT_EQ(wrapForLabel("x[0] < y && z > \"w\"", 80),
            "x&#91;0&#93; &lt; y &amp;&amp; z &gt; &quot;w&quot;");
  // After a name's dot, as the seed does; never between a designated initializer's dot and its
  // field (a ResNet stem's pool wrapped as `{.stride = 2, .` / `padding = 1}`).
  EXPECT_EQ(wrapForLabel("x = m.layer(x);", 10), "x = m.<BR/>layer(x);");
  EXPECT_EQ(wrapForLabel("pool(x, 3, {.stride = 2, .padding = 1});", 30),
            "pool(x, 3, {.stride = 2,<BR/>.padding = 1});");
  // A wrap inside the spaces that align a comment starts the next line at the comment, not
  // indented by what is left of them (cnn_digits' `return m.fc2(h);` and its `// [B, CLASSES]`).
  EXPECT_EQ(wrapForLabel("return m.fc2(h);" + std::string(41, ' ') + "// [B, CLASSES]", 36),
            "return m.fc2(h);<BR/>// &#91;B, CLASSES&#93;");
  EXPECT_EQ(wrapForLabel("f(a,     b)", 4), "f(a,<BR/>b)");
}

// A box shows the whole statement a formatter wrapped, not only its first line.
TEST(LabelText, AWrappedStatementIsJoinedUntilItsBracketsClose) {
  const std::vector<std::string_view> lines = {
      "  Tensor h = add(m.a(in[\"x\"]),",  // 0: two brackets left open
      "                 m.b(",               // 1
      "                     in[\"x\"]));",   // 2: closes them
      "  return mean(h);",                   // 3
      "Tensor f(Net& m, const Inputs& in) {",  // 4: braces do not count
      "  Tensor s = g(\"(\", ')');  // (",      // 5: brackets in literals and comments do not count
      "  Tensor t = g(x,",                     // 6: open to the end of the file
      "    y,",
      "    z,",
      "    w,",
      "    v);"};
  EXPECT_EQ(statementAt(lines, 0, 4), "Tensor h = add(m.a(in[\"x\"]), m.b(in[\"x\"]));");
  EXPECT_EQ(statementAt(lines, 1, 4), "m.b(in[\"x\"]));");
  EXPECT_EQ(statementAt(lines, 3, 4), "return mean(h);");
  EXPECT_EQ(statementAt(lines, 4, 4), "Tensor f(Net& m, const Inputs& in) {");
  EXPECT_EQ(statementAt(lines, 5, 4), "Tensor s = g(\"(\", ')');  // (");
  EXPECT_EQ(statementAt(lines, 6, 4), "Tensor t = g(x, y, z, w,");  // at most 4 lines
  EXPECT_EQ(statementAt(lines, 6, 1), "Tensor t = g(x,");
  EXPECT_EQ(statementAt(lines, 11, 4), "");
}

TEST(LabelText, StripsOnlyARedundantTrailingShapeComment) {
  EXPECT_EQ(stripRedundantShapeComment("h = f(x);  // [B, T, D]", {"B", "T", "D"}), "h = f(x);");
  EXPECT_EQ(stripRedundantShapeComment("h = f(x);  // [B, T, D]", {"B", "T", "H"}),
            "h = f(x);  // [B, T, D]");
  EXPECT_EQ(stripRedundantShapeComment("h = f(x);  // shape: [B, T]", {"B", "T"}),
            "h = f(x);  // shape: [B, T]");
  EXPECT_EQ(stripRedundantShapeComment("h = f(x);  // [B] later flattened", {"B"}),
            "h = f(x);  // [B] later flattened");
  EXPECT_EQ(stripRedundantShapeComment("a // b // [B]", {"B"}), "a // b");
  EXPECT_EQ(stripRedundantShapeComment("a // [B] // [B]", {"B"}), "a // [B]");
  EXPECT_EQ(stripRedundantShapeComment("a\n// [B]", {"B"}), "a");
  EXPECT_EQ(stripRedundantShapeComment("a\nb // [B]", {"B"}), "a\nb // [B]");
}

// What the function did with std::regex, as the oracle of the hand-written match: every string
// of up to six characters from those the pattern cares about, against three lists of names.
TEST(LabelText, StripsTheShapeCommentThePatternMatches) {
  const auto byPattern = [](const std::string& src, const std::vector<std::string>& names) {
    static const std::regex kComment(R"(^(.*?)\s*//\s*\[([^\]]*)\]\s*$)");
    std::smatch m;
    if (!std::regex_match(src, m, kComment)) return src;
    std::vector<std::string> dims;
    const std::string inner = m[2].str();
    for (std::string_view d : split(inner, ',')) {
      std::string t = trim(d);
      if (!t.empty()) dims.push_back(std::move(t));
    }
    return dims == names ? m[1].str() : src;
  };
  const std::string alphabet = " \n\r/[]B,";
  const std::vector<std::vector<std::string>> nameLists{{}, {"B"}, {"B", "B"}};
  std::string src;
  std::size_t compared = 0;
  const auto visit = [&](auto&& self, std::size_t length) -> void {
    for (const std::vector<std::string>& names : nameLists) {
      ASSERT_EQ(stripRedundantShapeComment(src, names), byPattern(src, names)) << "line: \"" << src << '"';
      ++compared;
    }
    if (length == 6) return;
    for (char c : alphabet) {
      src.push_back(c);
      self(self, length + 1);
      src.pop_back();
    }
  };
  visit(visit, 0);
  EXPECT_EQ(compared, 3u * (1 + 8 + 64 + 512 + 4096 + 32768 + 262144));
}

TEST(Escaping, EachContext) {
  EXPECT_EQ(escapeXml("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  EXPECT_EQ(escapeDotString("say \"hi\" \\n"), "say \\\"hi\\\" \\\\n");
  EXPECT_EQ(escapeJsonForScript("\"</script><!--\""), "\"\\u003c/script\\u003e\\u003c!--\"");
  EXPECT_EQ(escapeJsonForScript("\"a\xe2\x80\xa8\""), "\"a\\u2028\"");
}

// An overflow_error: a model too large to count is the user's to fix (the server's 422).
TEST(Checked, OverflowIsAnError) {
  EXPECT_EQ(checkedMul(1LL << 31, 1LL << 31), 1LL << 62);
  EXPECT_THROW(checkedMul(1LL << 32, 1LL << 31), std::overflow_error);
  EXPECT_THROW(checkedAdd(std::numeric_limits<std::int64_t>::max(), 1), std::overflow_error);
}

ir::Graph graphWithShapes(std::vector<Shape> shapes) {
  ir::Graph g;
  for (auto& s : shapes) g.tensors.push_back({std::move(s), DType::f32, ir::kNone});
  return g;
}

// A drawn shape with no axis names: sizes only, as a spec with plain ints makes.
DrawnShape S(Shape sizes) { return {std::move(sizes), {}}; }

TEST(Dims, BatchHeuristicResolvesATwoWayCollision) {
  // B = H = 64: axis 0 of a rank >= 2 tensor is the batch; elsewhere the other dim.
  const ir::Graph g = graphWithShapes({{64, 64}, {64}, {64, 10}});
  const DimResolver dims({{64, "B", "batch"}, {64, "H", "hidden"}, {10, "K"}}, {&g});
  EXPECT_EQ(dims.plainShape(S({64, 64})), "[B, H]");
  EXPECT_TRUE(dims.collisionsIn({S({64, 64}), S({64, 10})}).empty());  // fully resolved by position
  // Rank 1: the heuristic does not apply; what is drawn slash-joined is listed (issue 12, 9).
  EXPECT_EQ(dims.plainShape(S({64})), "[B/H]");
  const auto rank1 = dims.collisionsIn({S({64, 64}), S({64})});
  ASSERT_EQ(rank1.size(), 1u);
  EXPECT_EQ(rank1[0].size, 64);
  EXPECT_EQ(rank1[0].names, (std::vector<std::string>{"B", "H"}));
  // Declared dims draw colours in order from one palette.
  EXPECT_EQ(dims.resolve(64, 0, 2).color, "#1f77b4");
  EXPECT_EQ(dims.resolve(64, 1, 2).color, "#2ca02c");
}

TEST(Dims, ThreeWayCollisionIsExplainedAndAutoColoursFollowDeclaredOnes) {
  const ir::Graph g = graphWithShapes({{32, 32, 7}});
  const DimResolver dims({{32, "B", "batch"}, {32, "T"}, {32, "D"}}, {&g});
  EXPECT_EQ(dims.plainShape(S({32, 32, 7})), "[B, T/D, 7]");
  const auto collisions = dims.collisionsIn({S({32, 32, 7})});
  ASSERT_EQ(collisions.size(), 1u);
  EXPECT_EQ(collisions[0].names, (std::vector<std::string>{"B", "T", "D"}));
  // 7 is undeclared: the fourth colour of the palette (three went to B, T, D).
  EXPECT_EQ(dims.resolve(7, 2, 3).color, "#9467bd");
}

// More undeclared sizes than colours: the most common sizes get one each, the rest grey, and no
// two sizes share a colour (ResNet-50's 13 sizes drew 7 and 56 alike).
TEST(Dims, AutoColoursAreNeverSharedBetweenSizes) {
  // 2 and 3 on two tensors each, 4 … 13 on one: twelve sizes for ten colours.
  const ir::Graph g = graphWithShapes({{2, 3}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}});
  const DimResolver dims({}, {&g});
  std::set<std::string> colours;
  for (std::int64_t size = 2; size <= 11; ++size) colours.insert(dims.resolve(size, 0, 1).color);
  EXPECT_EQ(colours.size(), 10u);
  EXPECT_FALSE(colours.contains("#666666"));
  // In order of appearance among the coloured ones.
  EXPECT_EQ(dims.resolve(2, 0, 1).color, "#1f77b4");
  EXPECT_EQ(dims.resolve(4, 0, 1).color, "#ff7f0e");
  EXPECT_EQ(dims.resolve(12, 0, 1).color, "#666666");
  EXPECT_EQ(dims.resolve(13, 0, 1).color, "#666666");
  // With a declared dim taking a colour, one more size goes grey: 11, the last to appear among
  // those seen once.
  const DimResolver withB({{64, "B", "batch"}}, {&g});
  EXPECT_EQ(withB.resolve(11, 0, 1).color, "#666666");
  EXPECT_EQ(withB.resolve(10, 0, 1).color, "#ffbb78");
}

TEST(Dims, DeclaredColoursAreValidatedAndWidened) {
  const ir::Graph g = graphWithShapes({});
  const DimResolver dims({{4, "A", "", "#abc"}, {5, "C", "", "red\"><script>"}}, {&g});
  EXPECT_EQ(dims.legend()[0].color, "#aabbcc");  // Graphviz 2.43 has no 3-digit colours
  EXPECT_EQ(dims.legend()[1].color, "#1f77b4");  // not a colour: an automatic one instead
}

TEST(Dims, ShapeLabelUsesCharacterReferencesForBrackets) {
  const ir::Graph g = graphWithShapes({});
  const DimResolver dims({{4, "A", "", "#112233"}}, {&g});
  EXPECT_EQ(dims.htmlShape(S({4})), "&#91;<FONT COLOR=\"#112233\"><B>A</B></FONT>&#93;");
  EXPECT_EQ(dims.htmlShape(S({})), "&#91;&#93;");
}

TEST(ShapeLabel, SeveralOutputsAreGroupedInOrder) {
  const ir::Graph g = graphWithShapes({});
  const DimResolver dims({{8, "B", "batch"}, {16, "D"}}, {&g});
  EXPECT_EQ(plainBoxShape(dims, {S({8, 16})}), "[B, D]");
  EXPECT_EQ(plainBoxShape(dims, {S({8, 16}), S({8, 16}), S({8, 16})}), "3 × [B, D]");
  EXPECT_EQ(plainBoxShape(dims, {S({8, 16}), S({8, 4}), S({8, 4})}), "[B, D], 2 × [B, 4]");
}

// A box folded over iterations of different shapes shows them axis by axis; an axis with more
// than four values shows the first two, "…" and the last.
TEST(ShapeLabel, IterationsMergeAxisByAxis) {
  const ir::Graph g = graphWithShapes({});
  const DimResolver dims({{8, "B", "batch", "#000001"}}, {&g});
  auto plain = [](std::string html) {  // the label without its font markup
    std::string out;
    bool inTag = false;
    for (char c : html) {
      if (c == '<') inTag = true;
      if (!inTag) out += c;
      if (c == '>') inTag = false;
    }
    return out;
  };
  EXPECT_EQ(plain(htmlBoxShapes(dims, {{S({8, 64, 7})}, {S({8, 128, 7})}, {S({8, 256, 7})}})),
            "&#91;B, 64|128|256, 7&#93;");
  EXPECT_EQ(plain(htmlBoxShapes(dims, {{S({8, 1})}, {S({8, 2})}, {S({8, 3})}, {S({8, 4})}, {S({8, 5})}})),
            "&#91;B, 1|2|…|5&#93;");
  // Ranks differ, or several outputs: the shapes side by side.
  EXPECT_EQ(plain(htmlBoxShapes(dims, {{S({8, 1})}, {S({8})}})), "&#91;B, 1&#93; │ &#91;B&#93;");
  EXPECT_EQ(plain(htmlBoxShapes(dims, {{S({8}), S({8})}})), "2 × &#91;B&#93;");
}

// The renderer's warm-up draws its DOT (warmUpRenderer ignores errors: a DOT Graphviz rejected
// would make the warm-up silently useless): two boxes, the edge between them, both cluster kinds,
// and the label's italic subtitle and bold dim name.
TEST(WarmUp, TheWarmUpDotLaysOut) {
  const std::string svg = render::renderInlineSvg(warmUpDot());
  auto count = [&](std::string_view what) {
    std::size_t n = 0;
    for (std::size_t at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("class=\"node\""), 2u) << svg;
  EXPECT_EQ(count("class=\"edge\""), 1u) << svg;
  EXPECT_EQ(count("class=\"cluster\""), 2u) << svg;
  EXPECT_NE(svg.find("font-style=\"italic\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("font-weight=\"bold\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("×2"), std::string::npos) << svg;
}

}  // namespace
}  // namespace nndna::diagram::detail
