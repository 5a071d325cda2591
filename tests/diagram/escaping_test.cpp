// Spec-derived strings (source lines, label, description, input and dim names) reach every output
// as text: a line containing `</script>` or `"><img src=x onerror=alert(1)>` runs nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "test_support.hpp"

namespace nndna::diagram {
namespace {

using testing::count;

class HostileLabels : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    diagram_ = new Diagram(buildDiagram(testing::traced("hostile_labels")));
    svg_ = new std::string(renderSvg(*diagram_));
    html_ = new std::string(renderHtml(*diagram_, *svg_));
  }
  static void TearDownTestSuite() {
    delete diagram_;
    delete svg_;
    delete html_;
  }
  static Diagram* diagram_;
  static std::string* svg_;
  static std::string* html_;
};
Diagram* HostileLabels::diagram_ = nullptr;
std::string* HostileLabels::svg_ = nullptr;
std::string* HostileLabels::html_ = nullptr;

TEST_F(HostileLabels, DotHasNoRawMarkup) {
  const std::string& dot = diagram_->dot;
  // Markup may appear only inside a quoted cluster label (a DOT string: text for Graphviz, which
  // escapes it in the SVG), never inside an HTML-like label.
  std::size_t lineStart = 0;
  while (lineStart < dot.size()) {
    const std::size_t lineEnd = std::min(dot.find('\n', lineStart), dot.size());
    const std::string line = dot.substr(lineStart, lineEnd - lineStart);
    if (line.find("<img") != std::string::npos || line.find("<script") != std::string::npos) {
      EXPECT_EQ(line.find("label=\""), line.find_first_not_of(' ')) << line;
    }
    lineStart = lineEnd + 1;
  }
  EXPECT_NE(dot.find("&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(dot.find("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
}

TEST_F(HostileLabels, SvgKeepsTheLineAsText) {
  EXPECT_EQ(count(*svg_, "<script"), 0u);
  EXPECT_EQ(count(*svg_, "<img"), 0u);
  EXPECT_NE(svg_->find("&lt;/script&gt;&lt;script&gt;alert(1)"), std::string::npos);
  EXPECT_NE(svg_->find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
}

TEST_F(HostileLabels, HtmlHasOnlyItsOwnScripts) {
  // One JSON data block and one script: nothing from the spec opens or closes another.
  EXPECT_EQ(count(*html_, "<script"), 2u);
  EXPECT_EQ(count(*html_, "</script"), 2u);
  EXPECT_EQ(count(*html_, "<img"), 0u);
  EXPECT_EQ(count(*html_, "<b>"), 0u);
  EXPECT_NE(html_->find("<title>&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt; · nndna</title>"),
            std::string::npos);
  EXPECT_NE(html_->find("&quot;&gt;&lt;img src=x onerror=alert(3)&gt; &amp; &lt;b&gt;bold&lt;/b&gt;"),
            std::string::npos);
}

TEST_F(HostileLabels, EmbeddedDataRoundTrips) {
  const std::string open = "<script type=\"application/json\" id=\"nndna-data\">";
  const auto begin = html_->find(open);
  ASSERT_NE(begin, std::string::npos);
  const auto end = html_->find("</script>", begin);
  const auto data = nlohmann::json::parse(html_->substr(begin + open.size(), end - begin - open.size()));
  EXPECT_EQ(data.at("label"), "</script><script>alert(2)</script>");
  EXPECT_EQ(data.at("legend").at(0).at("name"), "<i>B</i>");
  // A declared colour that is not a colour is replaced, never passed through.
  EXPECT_EQ(data.at("legend").at(0).at("color"), "#1f77b4");
  bool sawLine = false;
  for (const auto& n : data.at("nodes")) {
    sawLine = sawLine || n.at("label").get<std::string>().find("\"><img src=x onerror=alert(1)>") != std::string::npos;
  }
  EXPECT_TRUE(sawLine);
}

}  // namespace
}  // namespace nndna::diagram
