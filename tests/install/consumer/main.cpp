// A small program built against an installed nndna (tests/install/install_test.sh builds it with
// CMake and with pkg-config): traces itself with xray, differentiates a Value, traces a model
// and, when linked with nndna::diagram, draws it. Prints what it found; the test reads it.
#include <nlohmann/json.hpp>
#include <nndna/nndna.hpp>
#include <nndna/trace.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_traced.hpp>
#include <nndna/xray_trace.hpp>
#include <nndna/xray_value.hpp>

#include <iostream>
#include <string>

#ifdef CONSUMER_WITH_DIAGRAM
#include <nndna/diagram.hpp>
#endif

using namespace nndna;
namespace xray = nndna::xray;

namespace {

constexpr int B = 8, D = 4, HIDDEN = 16;

struct Tiny : Module {
  Linear l1{"l1", D, HIDDEN};
  Linear l2{"l2", HIDDEN, D};
};

Tensor lossFn(Tiny& m, const Inputs& in) { return mean(square(sub(m.l2(gelu(m.l1(in["x"]))), in["x"]))); }

int timesItself(int x) { return x * x; }

}  // namespace

NNDNA_SPEC(Tiny) {
  return {.label = "Tiny", .loss = lossFn, .inputs = {{"x", {B, D}}}, .dims = {{B, "B", "batch"}, {D, "D", "width"}}};
}

int main() {
  xray::Session session;
  {
    XRAY_SPAN("consumer", {{"answer", 42}}, {.kind = "agent"});
    XRAY_SPAN("inner"); XRAY_SPAN("same_line");  // two spans on one line
    auto traced = xray::traced("square", timesItself, {.argNames = {"x"}});
    std::cout << "square: " << traced(7) << "\n";
  }
  xray::Trace trace = session.finish();
  std::cout << "spans: " << trace.nodes.size() << "\n";
  std::cout << "json nodes: " << xray::toJson(trace)["summary"]["nodes"].get<int>() << "\n";
  std::cout << "html: " << (xray::toHtml(trace).find("<svg") != std::string::npos ? "svg" : "none") << "\n";

  xray::Value a(2.0, "a"), b(-3.0, "b");
  xray::Value y = (a * b).tanh();
  y.backward();
  std::cout << "grad a: " << a.grad() << "\n";

  ir::TracedModel model = traceModel(loadSpec(registeredSpecs().front()));
  std::cout << "spec: " << registeredSpecs().front().name << "\n";
#ifdef CONSUMER_WITH_DIAGRAM
  diagram::Diagram d = diagram::buildDiagram(model);
  std::cout << "diagram: " << (diagram::renderSvg(d).find("<svg") != std::string::npos ? "svg" : "none") << "\n";
#endif
  return 0;
}
