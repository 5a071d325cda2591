// buildDiagram: the stages of docs/diagram.md, one side at a time, then the merge.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <unordered_set>

#include "diagram/assemble.hpp"
#include "diagram/checked_model.hpp"
#include "diagram/dims.hpp"
#include "diagram/group_tree.hpp"
#include "diagram/loops.hpp"
#include "diagram/metrics.hpp"
#include "diagram/side_model.hpp"
#include "diagram/summary_parts.hpp"
#include "nndna/diagram.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/training.hpp"
#include "optim/checked_graph.hpp"

namespace nndna::diagram {
namespace {

// One side's tree, loop finder and DAG. Forward only: backward and optimizer are the same
// machinery for every model; parameters are implied by their layers' boxes; inputs are drawn as
// source nodes by the DAG; state is bookkeeping.
struct SideParts {
  const ir::Graph* graph;
  detail::GroupTree tree;
  std::unique_ptr<detail::LoopFinder> loops;
  detail::Dag dag;

  SideParts(const ir::Graph& g, const std::vector<char>& drawn,
            const std::unordered_set<std::string>& inlined)
      : graph(&g) {
    tree = detail::buildGroupTree(g, drawn, inlined);
    loops = std::make_unique<detail::LoopFinder>(tree);
    dag = detail::buildDag(tree, detail::allLeaves(tree));
  }
};

PerSide<std::vector<Metric>> metricsWithStep(const ir::TracedModel& model, const ir::Graph& step) {
  PerSide<std::vector<Metric>> metrics;
  metrics.train = detail::sideMetrics(model.train, &step, model.train, false);
  if (model.hasInfer) metrics.infer = detail::sideMetrics(model.train, nullptr, model.infer, true);
  return metrics;
}

// What the whole training step gives a diagram: FLOPs/step, kernels and the summary's optimizer
// state count it. A model whose step cannot be built is an error, reported as such (an invalid
// optimizer setting, an op without an adjoint).
struct StepFigures {
  PerSide<std::vector<Metric>> metrics;
  std::shared_ptr<const Summary> summary;
};

StepFigures stepFigures(const ir::TracedModel& model, bool withSummary) {
  // The model's graphs are checked on the way in (buildDiagram, or the IR reader).
  const ir::Graph step = training::detail::buildTrainingStepOfCheckedGraph(model.train, model.spec.optimizer);
  return {metricsWithStep(model, step),
          withSummary ? std::make_shared<const Summary>(detail::summarizeWithStep(model, step, {})) : nullptr};
}

// The boxes and edges of a validated model: everything but the step's figures.
Diagram buildDrawing(const ir::TracedModel& model, const Options& options);

}  // namespace

std::string_view sideName(Side side) { return side == Side::train ? "train" : "infer"; }

std::size_t Diagram::layerCount() const {
  return static_cast<std::size_t>(
      std::count_if(nodes.begin(), nodes.end(), [](const Node& n) { return !n.isInput; }));
}

std::size_t Diagram::carriedEdgeCount() const {
  return static_cast<std::size_t>(
      std::count_if(edges.begin(), edges.end(), [](const Edge& e) { return e.carried; }));
}

Diagram buildDiagram(const ir::TracedModel& model, const Options& options) {
  // The model may come from a file or a tool: every stage below indexes by its ids.
  ir::validateGraph(model.train, "train");
  if (model.hasInfer) ir::validateGraph(model.infer, "infer");
  return buildDiagramOfCheckedModel(model, options);
}

Diagram buildDiagramOfCheckedModel(const ir::TracedModel& model, const Options& options) {
  if (options.only == Side::infer && !model.hasInfer) {
    throw std::invalid_argument("the spec has no predict function: there is no inference side to draw");
  }
  Diagram d = buildDrawing(model, options);
  // Built after the drawing, whose trees and DAGs it then reuses the memory of (a million-op
  // step would otherwise touch more), and once: a side drawn alone shares its figures.
  StepFigures figures = stepFigures(model, options.summary);
  if (d.inferAlone) {
    Diagram alone = *d.inferAlone;
    alone.metrics = figures.metrics;
    alone.summary = figures.summary;
    d.inferAlone = std::make_shared<const Diagram>(std::move(alone));
  }
  d.metrics = std::move(figures.metrics);
  d.summary = std::move(figures.summary);
  return d;
}

namespace {

Diagram buildDrawing(const ir::TracedModel& model, const Options& options) {
  Diagram d;
  d.label = model.spec.label;
  d.description = model.spec.description;
  d.hasInfer = model.hasInfer;
  const bool wantTrain = !options.only || *options.only == Side::train;
  const bool wantInfer = model.hasInfer && (!options.only || *options.only == Side::infer);

  std::vector<const ir::Graph*> graphs{&model.train};
  if (model.hasInfer) graphs.push_back(&model.infer);
  const detail::DimResolver dims(model.spec.dims, graphs);
  d.legend = dims.legend();

  // Both trees feed the keying and the choice of inlined helpers, even when one side is drawn
  // alone, so neither depends on it.
  const std::vector<char> trainOps = detail::drawnOps(model.train);
  const std::vector<char> inferOps = model.hasInfer ? detail::drawnOps(model.infer) : std::vector<char>{};
  const std::unordered_set<std::string> inlined = detail::sideOnlyOneLineHelpers(
      model.train, trainOps, model.hasInfer ? &model.infer : nullptr,
      model.hasInfer ? &inferOps : nullptr);
  SideParts train(model.train, trainOps, inlined);
  std::unique_ptr<SideParts> infer;
  if (model.hasInfer) infer = std::make_unique<SideParts>(model.infer, inferOps, inlined);
  const detail::Keying keying = detail::keyingFor(train.tree, infer ? &infer->tree : nullptr);

  std::vector<detail::SideModel> models;
  if (wantTrain) {
    models.push_back(detail::extractSide(Side::train, train.tree, *train.loops, train.dag, keying));
  }
  if (wantInfer) {
    models.push_back(detail::extractSide(Side::infer, infer->tree, *infer->loops, infer->dag, keying));
  }

  if (models.size() == 2) {
    // Merging needs an anchor: with no layer in common (a flow's inverse pass) a merged layout is
    // two unrelated graphs side by side, so each side is drawn alone (train first).
    std::unordered_set<std::string> trainKeys, inferKeys;
    for (const auto& n : models[0].nodes) if (!n.isInput) trainKeys.insert(n.key);
    for (const auto& n : models[1].nodes) if (!n.isInput) inferKeys.insert(n.key);
    d.merged = std::any_of(trainKeys.begin(), trainKeys.end(),
                           [&](const std::string& k) { return inferKeys.contains(k); });
    if (d.merged) {
      std::unordered_set<std::string> allTrain, allInfer;
      for (const auto& n : models[0].nodes) allTrain.insert(n.key);
      for (const auto& n : models[1].nodes) allInfer.insert(n.key);
      d.hasTrainOnly = std::any_of(allTrain.begin(), allTrain.end(),
                                   [&](const std::string& k) { return !allInfer.contains(k); });
      d.hasInferOnly = std::any_of(allInfer.begin(), allInfer.end(),
                                   [&](const std::string& k) { return !allTrain.contains(k); });
    } else {
      models.pop_back();
      d.inferAlone = std::make_shared<const Diagram>(buildDrawing(model, {.only = Side::infer}));
    }
  }
  detail::assemble(models, dims, d);
  return d;
}

}  // namespace

PerSide<std::vector<Metric>> modelMetrics(const ir::TracedModel& model) {
  // buildTrainingStep checks the training graph; the inference graph is read here too.
  if (model.hasInfer) ir::validateGraph(model.infer, "infer");
  return metricsWithStep(model, training::buildTrainingStep(model.train, model.spec.optimizer));
}

}  // namespace nndna::diagram
