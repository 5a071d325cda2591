// The diagram model as JSON: what the HTML page embeds and what `-o out.json` writes.
#include <nlohmann/json.hpp>

#include "nndna/diagram.hpp"

namespace nndna::diagram {
namespace {

using nlohmann::json;

json sidesJson(const std::vector<Side>& sides) {
  json out = json::array();
  for (Side s : sides) out.push_back(sideName(s));
  return out;
}

json costJson(const PerSide<Cost>& cost) {
  json out = json::object();
  for (Side s : {Side::train, Side::infer}) {
    if (cost[s]) out[std::string(sideName(s))] = {{"params", cost[s]->params}, {"flops", cost[s]->flops}};
  }
  return out;
}

json metricsJson(const std::vector<Metric>& metrics) {
  json out = json::array();
  for (const Metric& m : metrics) {
    out.push_back({{"key", m.key}, {"value", m.value}, {"display", m.display}, {"tooltip", m.tooltip}});
  }
  return out;
}

json diagramJson(const Diagram& d) {
  json nodes = json::array();
  for (const Node& n : d.nodes) {
    nodes.push_back({{"id", n.id},
                     {"key", n.key},
                     {"input", n.isInput},
                     {"label", n.label},
                     {"file", n.file},
                     {"line", n.line},
                     {"shapes", n.shapes},
                     {"computes", n.computes},
                     {"color", n.color},
                     {"sides", sidesJson(n.sides)},
                     {"cluster", n.cluster},
                     {"cost", costJson(n.cost)}});
  }
  json clusters = json::array();
  for (const Cluster& c : d.clusters) {
    json cj = {{"id", c.id},
               {"kind", c.kind == Cluster::Kind::loop ? "loop" : "user"},
               {"label", c.label},
               {"sides", sidesJson(c.sides)},
               {"parent", c.parent},
               {"cost", costJson(c.cost)}};
    if (c.trainLabel) cj["labels"] = {{"train", *c.trainLabel}, {"infer", *c.inferLabel}};
    clusters.push_back(std::move(cj));
  }
  json edges = json::array();
  for (const Edge& e : d.edges) {
    edges.push_back({{"src", e.src}, {"dst", e.dst}, {"carried", e.carried}, {"back_edge", e.backEdge}, {"color", e.color},
                     {"sides", sidesJson(e.sides)}});
  }
  json legend = json::array();
  for (const LegendItem& l : d.legend) {
    legend.push_back({{"name", l.name}, {"desc", l.desc}, {"size", l.size}, {"color", l.color}});
  }
  json collisions = json::array();
  for (const DimCollision& c : d.collisions) collisions.push_back({{"size", c.size}, {"names", c.names}});
  json metrics = json::object();
  if (d.metrics.train) metrics["train"] = metricsJson(*d.metrics.train);
  if (d.metrics.infer) metrics["infer"] = metricsJson(*d.metrics.infer);
  json out = {{"format", "nndna-diagram"},
              {"version", 1},
              {"label", d.label},
              {"description", d.description},
              {"merged", d.merged},
              {"has_infer", d.hasInfer},
              {"has_train_only", d.hasTrainOnly},
              {"has_infer_only", d.hasInferOnly},
              {"layer_count", d.layerCount()},
              {"nodes", std::move(nodes)},
              {"clusters", std::move(clusters)},
              {"edges", std::move(edges)},
              {"legend", std::move(legend)},
              {"collisions", std::move(collisions)},
              {"metrics", std::move(metrics)},
              {"dot", d.dot}};
  if (d.inferAlone) out["infer_alone"] = diagramJson(*d.inferAlone);
  return out;
}

}  // namespace

std::string toJson(const Diagram& diagram, int indent) {
  // Invalid UTF-8 in a spec's text is replaced rather than aborting the export.
  return diagramJson(diagram).dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace nndna::diagram
