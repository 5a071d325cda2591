// planToJson / planFromJson (layout_plan.hpp): the plan as the server hands it to a layout worker.
#include <nlohmann/json.hpp>

#include <stdexcept>

#include "diagram/layout_plan.hpp"

namespace nndna::diagram::detail {

namespace {

using nlohmann::json;

const json& field(const json& object, const char* name, json::value_t type) {
  const auto it = object.find(name);
  if (it == object.end() || it->type() != type) {
    throw std::invalid_argument(std::string("a layout plan needs \"") + name + "\" of type " +
                                json(type).type_name());
  }
  return *it;
}

std::string text(const json& object, const char* name) { return field(object, name, json::value_t::string).get<std::string>(); }
bool flag(const json& object, const char* name) { return field(object, name, json::value_t::boolean).get<bool>(); }

}  // namespace

std::string planToJson(const LayoutPlan& plan) {
  json edges = json::array();
  for (const render::BandEdge& e : plan.crossEdges) {
    edges.push_back({{"tail", e.tail}, {"head", e.head}, {"color", e.color}, {"class", e.cssClass},
                     {"dashed", e.dashed}, {"vee", e.veeArrow}});
  }
  // Labels are the user's text: replace what is not UTF-8 rather than throw.
  return json{{"dots", plan.dots}, {"cross_edges", std::move(edges)}, {"banded", plan.banded}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
}

LayoutPlan planFromJson(std::string_view text_) {
  json j;
  try {
    j = json::parse(text_);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(std::string("a layout plan is not JSON: ") + e.what());
  }
  if (!j.is_object()) throw std::invalid_argument("a layout plan is a JSON object");
  LayoutPlan plan;
  plan.banded = flag(j, "banded");
  for (const json& dot : field(j, "dots", json::value_t::array)) {
    if (!dot.is_string()) throw std::invalid_argument("a layout plan's \"dots\" are strings");
    plan.dots.push_back(dot.get<std::string>());
  }
  for (const json& e : field(j, "cross_edges", json::value_t::array)) {
    if (!e.is_object()) throw std::invalid_argument("a layout plan's \"cross_edges\" are objects");
    plan.crossEdges.push_back({text(e, "tail"), text(e, "head"), text(e, "color"), text(e, "class"), flag(e, "dashed"),
                               flag(e, "vee")});
  }
  return plan;
}

}  // namespace nndna::diagram::detail
