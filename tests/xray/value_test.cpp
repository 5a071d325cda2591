// Value: every op's gradient against central finite differences, graph shape, exports, the
// stepper, and the million-node chain (built, differentiated and destroyed without recursion).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_value.hpp>
#include <set>
#include <string>

namespace {

using nndna::xray::Value;
namespace xr = nndna::xray;

struct OpCase {
  const char* name;
  std::function<Value(Value, Value)> f;
  double a, b;
};

// d f / d a and d f / d b by central differences, compared with backward().
void checkGradients(const OpCase& c) {
  Value a(c.a, "a"), b(c.b, "b");
  Value out = c.f(a, b);
  out.backward();
  const double h = 1e-6;
  auto eval = [&](double x, double y) { return c.f(Value(x), Value(y)).data(); };
  double da = (eval(c.a + h, c.b) - eval(c.a - h, c.b)) / (2 * h);
  double db = (eval(c.a, c.b + h) - eval(c.a, c.b - h)) / (2 * h);
  EXPECT_NEAR(a.grad(), da, 1e-5 * std::max(1.0, std::abs(da))) << c.name << " d/da";
  EXPECT_NEAR(b.grad(), db, 1e-5 * std::max(1.0, std::abs(db))) << c.name << " d/db";
}

TEST(Value, EveryOpMatchesFiniteDifferences) {
  const OpCase cases[] = {
      {"add", [](Value x, Value y) { return x + y; }, 1.5, -0.7},
      {"sub", [](Value x, Value y) { return x - y; }, 1.5, -0.7},
      {"mul", [](Value x, Value y) { return x * y; }, 1.5, -0.7},
      {"div", [](Value x, Value y) { return x / y; }, 1.5, -0.7},
      {"neg", [](Value x, Value y) { return -x * y; }, 1.5, -0.7},
      {"pow_const", [](Value x, Value y) { return pow(x, 3.0) + y; }, 1.5, -0.7},
      {"pow_frac", [](Value x, Value y) { return pow(x, 0.5) * y; }, 2.5, 1.3},
      {"pow_value", [](Value x, Value y) { return pow(x, y); }, 1.7, 2.3},
      {"relu_pos", [](Value x, Value y) { return (x * y).relu(); }, 1.5, 0.7},
      {"relu_neg", [](Value x, Value y) { return (x * y).relu() + x; }, 1.5, -0.7},
      {"tanh", [](Value x, Value y) { return (x * y).tanh(); }, 0.4, -0.9},
      {"exp", [](Value x, Value y) { return (x + y).exp(); }, 0.4, -0.9},
      {"log", [](Value x, Value y) { return (x * y).log(); }, 0.4, 2.9},
      {"sigmoid", [](Value x, Value y) { return (x - y).sigmoid(); }, 0.4, -0.9},
      {"scalar_left", [](Value x, Value y) { return 2.0 * x + 3.0 - y / 4.0 + 1.0 / y - (5.0 - x); }, 1.2, 0.8},
      {"scalar_right", [](Value x, Value y) { return x * 2.0 + y - 1.0 + x / 3.0; }, 1.2, 0.8},
      {"same_node_twice", [](Value x, Value y) { return x * x + y * y * y; }, 1.2, 0.8},
      {"free_functions", [](Value x, Value y) { return xr::tanh(x) + xr::exp(y) + xr::sigmoid(x * y) + xr::log(y) + xr::relu(x); }, 0.3, 0.8},
  };
  for (const auto& c : cases) checkGradients(c);
}

TEST(Value, DemoGraphHasExactValuesAndGradients) {
  Value a(2.0, "a"), b(-3.0, "b"), c(10.0, "c");
  Value L = ((a * b) + c).relu().tanh();
  L.setLabel("L");
  EXPECT_DOUBLE_EQ(L.data(), std::tanh(4.0));
  L.backward();
  double dtanh = 1 - std::tanh(4.0) * std::tanh(4.0);
  EXPECT_DOUBLE_EQ(L.grad(), 1.0);
  EXPECT_DOUBLE_EQ(c.grad(), dtanh);
  EXPECT_DOUBLE_EQ(a.grad(), dtanh * -3.0);
  EXPECT_DOUBLE_EQ(b.grad(), dtanh * 2.0);
  // backward() starts from zero: running it twice gives the same grads.
  L.backward();
  EXPECT_DOUBLE_EQ(a.grad(), dtanh * -3.0);
  xr::zeroGrad(L);
  EXPECT_EQ(a.grad(), 0.0);
  EXPECT_EQ(L.grad(), 0.0);
}

TEST(Value, TopologicalOrderPutsParentsFirstAndRootLast) {
  Value a(1.0, "a"), b(2.0, "b");
  Value c = a * b;
  Value d = c + a;
  Value e = d * c;
  auto order = xr::topologicalOrder(e);
  ASSERT_EQ(order.size(), 5u);
  EXPECT_TRUE(order.back().sameNode(e));
  std::set<std::uint64_t> seen;
  for (const auto& v : order) {
    for (const auto& p : v.parents()) EXPECT_TRUE(seen.contains(p.numericId())) << v.displayName();
    seen.insert(v.numericId());
  }
}

TEST(Value, IdsAreStableAndUnique) {
  Value a(1.0), b(2.0);
  Value c = a + b;
  EXPECT_NE(a.id(), b.id());
  EXPECT_EQ(c.id(), c.id());
  Value copy = c;
  EXPECT_EQ(copy.id(), c.id());
  EXPECT_EQ(c.id().rfind("v", 0), 0u);
  EXPECT_EQ(c.op(), "+");
  EXPECT_EQ(pow(a, 2.0).op(), "**2");
  EXPECT_EQ(a.op(), "");
  // Unlabelled nodes show their id (as flow-xray's display_name), in the DOT too.
  EXPECT_EQ(a.displayName(), a.id());
  EXPECT_EQ(c.displayName(), c.id());
  EXPECT_NE(xr::valueGraphToDot(c, false).find("label=\"" + c.id() + "\\nop: +\\ndata: 3"), std::string::npos)
      << xr::valueGraphToDot(c, false);
  c.setLabel("sum");
  EXPECT_EQ(c.displayName(), "sum");
}

TEST(Value, MillionNodeChainBuildsDifferentiatesAndDies) {
  constexpr int kNodes = 1'000'000;
  Value x(0.5, "x");
  {
    Value y = x;
    for (int i = 1; i < kNodes; ++i) y = -y;  // 999,999 negations: y = -x
    EXPECT_EQ(xr::topologicalOrder(y).size(), static_cast<std::size_t>(kNodes));
    y.backward();
    EXPECT_DOUBLE_EQ(y.data(), -0.5);
    EXPECT_DOUBLE_EQ(x.grad(), -1.0);
  }  // the million nodes are destroyed here
  EXPECT_DOUBLE_EQ(x.data(), 0.5);
  // Binary ops with scalars: 4 nodes per step (a constant and an op, twice).
  Value z = x;
  for (int i = 0; i < kNodes / 4; ++i) z = z * 1.0 + 0.0;
  z.backward();
  EXPECT_DOUBLE_EQ(x.grad(), 1.0);
}

TEST(Value, ChainOfSquaresOfTheSameNodeDiesIteratively) {
  Value x(1.0);
  Value y = x;
  for (int i = 0; i < 200'000; ++i) y = y * y;
  y.backward();
  EXPECT_DOUBLE_EQ(y.data(), 1.0);
}

TEST(ValueExport, IrJsonVersion1HasExactShape) {
  Value a(2.0, "a"), b(-3.0, "b");
  Value c = a * b;
  c.setLabel("c");
  c.backward();
  auto ir = xr::valueGraphToIr(c);
  EXPECT_EQ(ir["version"], 1);
  EXPECT_EQ(ir["root_id"], c.id());
  ASSERT_EQ(ir["nodes"].size(), 3u);
  const auto& last = ir["nodes"][2];
  EXPECT_EQ(last["id"], c.id());
  EXPECT_EQ(last["op"], "*");
  EXPECT_EQ(last["label"], "c");
  EXPECT_EQ(last["data"], -6.0);
  EXPECT_EQ(last["grad"], 1.0);
  EXPECT_EQ(last["parents"], nlohmann::json::array({a.id(), b.id()}));
  EXPECT_EQ(ir["nodes"][0]["grad"], -3.0);
  auto forward = xr::valueGraphToIr(c, false);
  EXPECT_FALSE(forward["nodes"][0].contains("grad"));
  std::set<std::string> keys;
  for (const auto& [k, v] : last.items()) keys.insert(k);
  EXPECT_EQ(keys, (std::set<std::string>{"id", "op", "label", "data", "grad", "parents"}));
}

TEST(ValueExport, DotHasOneBoxPerNodeAndOneEdgePerParent) {
  Value a(2.0, "a"), b(-3.0, "b"), c(10.0, "c");
  Value L = ((a * b) + c).relu().tanh();
  std::string forward = xr::valueGraphToDot(L, false);
  EXPECT_NE(forward.find("rankdir=\"BT\""), std::string::npos);
  EXPECT_NE(forward.find("label=\"a\\ndata: 2\""), std::string::npos);
  Value product = L.parents()[0].parents()[0].parents()[0];  // a * b, unlabelled: shown by its id
  EXPECT_NE(forward.find("label=\"" + product.id() + "\\nop: *\\ndata: -6\""), std::string::npos) << forward;
  EXPECT_EQ(forward.find("grad:"), std::string::npos);
  int edges = 0;
  for (auto p = forward.find(" -> "); p != std::string::npos; p = forward.find(" -> ", p + 1)) ++edges;
  EXPECT_EQ(edges, 6);
  L.backward();
  std::string backward = xr::valueGraphToDot(L, true);
  EXPECT_NE(backward.find("label=\"a\\ndata: 2\\ngrad: -0.00402285\"];"), std::string::npos) << backward;
}

TEST(ValueExport, LabelsAreEscapedForDot) {
  Value a(1.0, "say \"hi\" \\N");
  std::string dot = xr::valueGraphToDot(a, false);
  EXPECT_NE(dot.find("say \\\"hi\\\" \\\\N"), std::string::npos) << dot;
}

TEST(Debugger, StepperVisitsReverseTopologicalOrderAndFillsGrads) {
  Value a(2.0, "a"), b(-3.0, "b"), c(10.0, "c");
  Value e = a * b;
  Value d = e + c;
  Value L = d.tanh();
  xr::BackwardStepper stepper(L);
  ASSERT_EQ(stepper.size(), 6u);
  auto first = stepper.step();
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->sameNode(L));
  EXPECT_DOUBLE_EQ(d.grad(), 1 - std::tanh(4.0) * std::tanh(4.0));
  EXPECT_EQ(a.grad(), 0.0);  // not reached yet
  auto second = stepper.step();
  EXPECT_TRUE(second->sameNode(d));
  EXPECT_DOUBLE_EQ(e.grad(), d.grad());
  EXPECT_EQ(a.grad(), 0.0);
  int rest = 0;
  while (stepper.step()) ++rest;
  EXPECT_EQ(rest, 4);
  EXPECT_DOUBLE_EQ(a.grad(), -3.0 * d.grad());
  EXPECT_FALSE(stepper.step());
}

TEST(Debugger, NamedSnapshotsInOrder) {
  Value a(2.0, "a"), b(-3.0, "b");
  Value L = (a * b).relu();
  xr::GraphDebugger dbg(L);
  auto snaps = dbg.namedSnapshots();
  ASSERT_EQ(snaps.size(), 6u);  // forward + 4 steps + after_backward
  EXPECT_EQ(snaps[0].name, "forward");
  EXPECT_EQ(snaps[1].name, "backward_step_0");
  EXPECT_EQ(snaps[4].name, "backward_step_3");
  EXPECT_EQ(snaps[5].name, "after_backward");
  EXPECT_EQ(snaps[0].dot.find("grad:"), std::string::npos);
  EXPECT_NE(snaps[1].dot.find("grad: 1"), std::string::npos);
  EXPECT_EQ(snaps[4].dot, snaps[5].dot);
  EXPECT_EQ(dbg.namedSnapshots(1.0, false).size(), 2u);
}

TEST(Debugger, StepperHtmlStoresOneLayoutAndPerStepDeltas) {
  Value a(2.0, "a"), b(-3.0, "b"), c(10.0, "c");
  Value L = ((a * b) + c).relu().tanh();
  L.setLabel("L");
  xr::GraphDebugger dbg(L);
  std::string html = dbg.stepperHtml("demo <&>");
  std::size_t svgs = 0;
  for (auto p = html.find("<svg"); p != std::string::npos; p = html.find("<svg", p + 1)) ++svgs;
  EXPECT_EQ(svgs, 1u);
  EXPECT_NE(html.find("<title>demo &lt;&amp;&gt;</title>"), std::string::npos);
  auto start = html.find("id=\"stepper-data\">") + 18;
  auto data = nlohmann::json::parse(html.substr(start, html.find("</script>", start) - start));
  ASSERT_EQ(data["steps"].size(), 7u);
  EXPECT_EQ(data["nodes"].size(), 7u);
  EXPECT_EQ(data["start"], 0);
  // Step 0 is L's tanh: it changes exactly one parent (the relu) to 1 - tanh(4)^2.
  ASSERT_EQ(data["steps"][0]["changes"].size(), 1u);
  EXPECT_DOUBLE_EQ(data["steps"][0]["changes"][0][1].get<double>(), 1 - std::tanh(4.0) * std::tanh(4.0));
  // Offline: nothing is fetched.
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

}  // namespace
