// Writes the seed corpus of the ir_reader fuzz target: the traced IR of every spec linked in (the
// examples, and all_ops, which makes every op kind) up to the fuzzer's input size, all_ops again
// with every axis named (tests/support/named_ir.hpp: names through every shape rule), and a
// libFuzzer dictionary of the IR's words (field names, op kinds, dtypes, phases). With --cbor, the
// same for the ir_cbor target: the documents in CBOR, the words as CBOR text strings.
// Usage: make_ir_seeds [--cbor] DIR   (the dictionary goes to DIR/../ir_reader.dict or ir_cbor.dict)
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "ir/json_names.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "support/named_ir.hpp"

namespace {
constexpr std::size_t kMaxSeedBytes = 256 * 1024;  // run_fuzz_target.sh's -max_len

std::string cborOf(const nndna::ir::TracedModel& model) {
  std::string bytes;
  nndna::ir::writeCbor(model, [&](std::string_view piece) { bytes += piece; });
  return bytes;
}

// A dictionary entry: the word as the document spells it, bytes outside printable ASCII as \xNN
// (libFuzzer decodes them). In CBOR a word is a text string: its head, then its bytes.
std::string entry(std::string_view word, bool cbor) {
  std::string bytes;
  if (cbor && word.size() < 24) bytes += static_cast<char>(0x60 + word.size());
  if (cbor && word.size() >= 24) bytes += "\x78" + std::string(1, static_cast<char>(word.size()));
  bytes += word;
  std::string out = "\"";
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02X", u);
    out += u < 0x20 || u >= 0x7F || c == '"' || c == '\\' ? std::string(hex) : std::string(1, c);
  }
  return out + "\"\n";
}
}  // namespace

int main(int argc, char** argv) {
  const bool cbor = argc == 3 && std::strcmp(argv[1], "--cbor") == 0;
  if (argc != 2 && !cbor) {
    std::fprintf(stderr, "usage: make_ir_seeds [--cbor] DIR\n");
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path dir = argv[argc - 1];
  auto document = [&](const nndna::ir::TracedModel& model) {
    return cbor ? cborOf(model) : nndna::ir::toJson(model);
  };
  const std::string suffix = cbor ? ".ir.cbor" : ".ir.json";
  fs::create_directories(dir);
  int written = 0;
  for (const nndna::RegisteredSpec& spec : nndna::registeredSpecs()) {
    nndna::ir::TracedModel model = nndna::traceModel(nndna::loadSpec(spec));
    // Source texts make every seed large without reaching anything new.
    for (nndna::ir::Graph* g : {&model.train, &model.infer}) {
      for (nndna::ir::SourceFile& f : g->sites.files) f.text.clear();
    }
    const std::string text = document(model);
    if (text.size() > kMaxSeedBytes) continue;
    std::ofstream(dir / (spec.name + suffix), std::ios::binary) << text;
    ++written;
    if (spec.name == "all_ops") {
      nndna::test::nameBySize(model.train);
      std::ofstream(dir / ("all_ops_named" + suffix), std::ios::binary) << document(model);
      ++written;
    }
  }
  std::ofstream dict(dir.parent_path() / (cbor ? "ir_cbor.dict" : "ir_reader.dict"));
  auto word = [&](std::string_view w) { dict << entry(w, cbor); };
  for (std::string_view w : {"format", "version", "spec", "sources", "train", "infer", "tensors", "ops",
                             "params", "state", "inputs", "captures", "outputs", "updates", "sites",
                             "files", "frames", "chains", "shape", "dtype", "source", "kind", "out",
                             "phase", "site", "attrs", "name", "dims", "axis", "all_axes", "keep_dims",
                             "start", "count", "scalar", "scalar2", "scalar_operand", "scalar_left",
                             "approximate", "align_corners", "ceil_mode", "padding_idx", "reduction", "kernel", "stride", "padding", "groups",
                             "seed", "inf", "-inf", "nan", "names", "\xC2\xB7", "/", "^2"}) {
    word(w);
  }
  for (std::size_t i = 0; i < nndna::ir::kOpKindCount; ++i) word(nndna::ir::opKindName(nndna::ir::opKindAt(i)));
  for (auto names : {nndna::ir::json_names::kDtypes, nndna::ir::json_names::kPhases, nndna::ir::json_names::kReductions}) {
    for (std::string_view w : names) word(w);
  }
  std::printf("make_ir_seeds: %d seeds in %s\n", written, dir.c_str());
  return written > 0 ? 0 : 1;
}
