// Writes the seed corpus of the ir_reader fuzz target: the traced IR of every spec linked in (the
// examples, and all_ops, which makes every op kind) up to the fuzzer's input size, all_ops again
// with every axis named (tests/support/named_ir.hpp: names through every shape rule), and a
// libFuzzer dictionary of the IR's words (field names, op kinds, dtypes, phases).
// Usage: make_ir_seeds DIR   (the dictionary goes to DIR/../ir_reader.dict)
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "ir/json_names.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "support/named_ir.hpp"

namespace {
constexpr std::size_t kMaxSeedBytes = 256 * 1024;  // run_fuzz_target.sh's -max_len
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_ir_seeds DIR\n");
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path dir = argv[1];
  fs::create_directories(dir);
  int written = 0;
  for (const nndna::RegisteredSpec& spec : nndna::registeredSpecs()) {
    nndna::ir::TracedModel model = nndna::traceModel(nndna::loadSpec(spec));
    // Source texts make every seed large without reaching anything new.
    for (nndna::ir::Graph* g : {&model.train, &model.infer}) {
      for (nndna::ir::SourceFile& f : g->sites.files) f.text.clear();
    }
    const std::string text = nndna::ir::toJson(model);
    if (text.size() > kMaxSeedBytes) continue;
    std::ofstream(dir / (spec.name + ".ir.json"), std::ios::binary) << text;
    ++written;
    if (spec.name == "all_ops") {
      nndna::test::nameBySize(model.train);
      std::ofstream(dir / "all_ops_named.ir.json", std::ios::binary) << nndna::ir::toJson(model);
      ++written;
    }
  }
  std::ofstream dict(dir.parent_path() / "ir_reader.dict");
  // Words are written verbatim, so a byte outside ASCII is listed as \xNN, which libFuzzer decodes
  // ("·" of axis names).
  auto word = [&](std::string_view w) { dict << "\"" << w << "\"\n"; };
  for (std::string_view w : {"format", "version", "spec", "sources", "train", "infer", "tensors", "ops",
                             "params", "state", "inputs", "captures", "outputs", "updates", "sites",
                             "files", "frames", "chains", "shape", "dtype", "source", "kind", "out",
                             "phase", "site", "attrs", "name", "dims", "axis", "all_axes", "keep_dims",
                             "start", "count", "scalar", "scalar2", "scalar_operand", "scalar_left",
                             "approximate", "align_corners", "ceil_mode", "padding_idx", "reduction", "kernel", "stride", "padding", "groups",
                             "seed", "inf", "-inf", "nan", "names", "\\xC2\\xB7", "/", "^2"}) {
    word(w);
  }
  for (std::size_t i = 0; i < nndna::ir::kOpKindCount; ++i) word(nndna::ir::opKindName(nndna::ir::opKindAt(i)));
  for (auto names : {nndna::ir::json_names::kDtypes, nndna::ir::json_names::kPhases, nndna::ir::json_names::kReductions}) {
    for (std::string_view w : names) word(w);
  }
  std::printf("make_ir_seeds: %d seeds in %s\n", written, dir.c_str());
  return written > 0 ? 0 : 1;
}
