// The IR's JSON form: a lossless round trip, and rejection of malformed documents.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ir/json_writer.hpp"  // kSinkChunkBytes
#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "support/ir_chain.hpp"

namespace nndna {
namespace {

using nlohmann::json;

ir::TracedModel denoiser() { return traceModel(loadSpec(*findSpec("diffusion_denoiser"))); }

TEST(IrJson, RoundTripIsLossless) {
  const ir::TracedModel model = denoiser();
  const std::string once = ir::toJson(model);
  const ir::TracedModel back = ir::tracedModelFromJson(once);
  EXPECT_EQ(ir::toJson(back), once);
  EXPECT_EQ(back.train.ops.size(), model.train.ops.size());
  EXPECT_EQ(back.infer.ops.size(), model.infer.ops.size());
  EXPECT_TRUE(back.hasInfer);
  EXPECT_EQ(back.spec.label, "Iterative diffusion denoiser");
  EXPECT_EQ(back.spec.dims.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<AdamW>(back.spec.optimizer));
  EXPECT_DOUBLE_EQ(std::get<AdamW>(back.spec.optimizer).weightDecay, 0.01);
  // The spec's source text travels in the document.
  ASSERT_FALSE(back.train.sites.files.empty());
  EXPECT_NE(back.train.sites.files[0].text.find("NNDNA_SPEC(Denoiser)"), std::string::npos);
}

TEST(IrJson, OptimizerSettingsRoundTrip) {
  ir::TracedModel model = denoiser();
  model.spec.optimizer = SGD{.lr = 0.1, .momentum = 0.9, .weightDecay = 5e-4, .clipGradNorm = 1.5};
  const ir::TracedModel sgd = ir::tracedModelFromJson(ir::toJson(model));
  ASSERT_TRUE(std::holds_alternative<SGD>(sgd.spec.optimizer));
  EXPECT_EQ(std::get<SGD>(sgd.spec.optimizer).weightDecay, 5e-4);
  EXPECT_EQ(std::get<SGD>(sgd.spec.optimizer).clipGradNorm, 1.5);
  model.spec.optimizer = Adam{.clipGradNorm = 0.25};
  const ir::TracedModel adam = ir::tracedModelFromJson(ir::toJson(model));
  EXPECT_EQ(std::get<Adam>(adam.spec.optimizer).clipGradNorm, 0.25);
  json doc = json::parse(ir::toJson(model));
  doc["spec"]["optimizer"]["clip_grad_norm"] = -2;
  EXPECT_THROW(ir::tracedModelFromJson(doc.dump()), ir::IrFormatError);
}

TEST(IrJson, DocumentShape) {
  const json doc = json::parse(ir::toJson(denoiser()));
  EXPECT_EQ(doc["format"], "nndna-ir");
  EXPECT_EQ(doc["version"], 2);
  EXPECT_EQ(doc["train"]["params"].size(), 6u);
  EXPECT_EQ(doc["train"]["params"][0]["name"], "l1.weight");
  // ops 0-5 are the parameters, 6-7 the inputs, 8 the first layer's matmul.
  EXPECT_EQ(doc["train"]["ops"][8]["kind"], "matmul");
  EXPECT_EQ(doc["train"]["ops"][8]["out"], 8);
  EXPECT_EQ(doc["train"]["ops"][8]["site"], 0);
  // Defaults are left out: the forward phase, no site (a parameter's leaf), f32, and a tensor's
  // source when it is the op whose out it is.
  EXPECT_FALSE(doc["train"]["ops"][8].contains("phase"));
  EXPECT_FALSE(doc["train"]["ops"][0].contains("site"));
  EXPECT_EQ(doc["train"]["tensors"][8], json::parse(R"({"shape": [256, 128]})"));  // [256, 32] · l1.weight [32, 128]
  EXPECT_EQ(doc["spec"]["inputs"][1]["name"], "noisy");
  EXPECT_EQ(doc["spec"]["optimizer"]["kind"], "adamw");
}

// Applies `mutate` to a valid document and expects the reader to reject it with `message`.
void expectRejected(const std::function<void(json&)>& mutate, std::string_view message) {
  json doc = json::parse(ir::toJson(denoiser()));
  mutate(doc);
  try {
    ir::tracedModelFromJson(doc.dump());
    ADD_FAILURE() << "accepted a malformed document; expected: " << message;
  } catch (const ir::IrFormatError& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(IrJson, RejectsMalformedDocumentsWithAMessage) {
  EXPECT_THROW(ir::tracedModelFromJson("{not json"), ir::IrFormatError);
  EXPECT_THROW(ir::tracedModelFromJson("[]"), ir::IrFormatError);
  expectRejected([](json& d) { d["format"] = "onnx"; }, "format: expected 'nndna-ir', got 'onnx'");
  expectRejected([](json& d) { d["version"] = 3; },
                 "version: this nndna reads versions 1 to 2, the document is version 3");
  expectRejected([](json& d) { d["version"] = 0; },
                 "version: this nndna reads versions 1 to 2, the document is version 0");
  expectRejected([](json& d) { d["train"].erase("ops"); }, "train: missing field 'ops'");
  expectRejected([](json& d) { d["train"]["ops"][8]["inputs"][0] = 999; },
                 "train.ops[8].inputs[0]: 999 is out of range (0..19)");
  expectRejected([](json& d) { d["train"]["ops"][8]["inputs"][0] = 12; },
                 "train.ops[8].inputs[0]: tensor 12 is not defined before this op");
  expectRejected([](json& d) { d["train"]["ops"][8]["kind"] = "teleport"; },
                 "train.ops[8].kind: unknown op kind 'teleport'");
  expectRejected([](json& d) { d["train"]["ops"][8]["inputs"].push_back(0); },
                 "train.ops[8].inputs: matmul takes 2 inputs, got 3");
  expectRejected([](json& d) { d["train"]["ops"][8]["out"] = 7; },
                 "train.ops[8].out: tensor 7 is not produced by exactly this op");
  expectRejected([](json& d) { d["train"]["tensors"][3]["shape"] = {-4, 2}; },
                 "train.tensors[3].shape[0]: -4 is out of range (1..9223372036854775807)");
  expectRejected([](json& d) { d["train"]["tensors"][3]["shape"] = {1LL << 40, 1LL << 40}; },
                 "train.tensors[3].shape: element count overflows 64 bits");
  expectRejected([](json& d) { d["train"]["tensors"][3]["dtype"] = "f64"; }, "train.tensors[3].dtype: unknown dtype 'f64'");
  // 9 chains and 10 frames: denoise()'s five call positions under lossFn, and lossFn's own four.
  expectRejected([](json& d) { d["train"]["ops"][9]["site"] = 40; },
                 "train.ops[9].site: 40 is out of range (-1..8)");
  expectRejected([](json& d) { d["train"]["sites"]["chains"][0][0] = 77; },
                 "train.sites.chains[0][0]: 77 is out of range (0..9)");
  expectRejected([](json& d) { d["train"]["params"][0]["tensor"] = 7; },
                 "train.params[0]: tensor 7 is not the param_input 'l1.weight'");
  expectRejected([](json& d) { d["train"]["ops"][8]["attrs"] = {{"warp", 9}}; },
                 "train.ops[8].attrs.warp: unknown attribute");
  expectRejected([](json& d) { d["train"]["tensors"][10]["shape"] = {256, 99}; },
                 "train.ops[10]: gelu: the output is declared [256, 99] f32, its shape rule gives [256, 128] f32");
  expectRejected([](json& d) { d["spec"]["optimizer"]["kind"] = "lion"; },
                 "spec.optimizer.kind: unknown optimizer 'lion'");
  // Paths several levels deep (they are spelled out only when an error is reported).
  expectRejected([](json& d) { d["spec"]["dims"][0]["size"] = -1; },
                 "spec.dims[0].size: -1 is out of range (0..9223372036854775807)");
  expectRejected([](json& d) { d["spec"]["optimizer"]["lr"]["milestones"] = {10, "x"}; },
                 "spec.optimizer.lr.milestones[1]: expected an integer");
  expectRejected([](json& d) { d["spec"]["inputs"][1]["shape"] = {256, 0}; },
                 "spec.inputs[1].shape[1]: 0 is out of range (1..9223372036854775807)");
  expectRejected([](json& d) { d["train"]["ops"][8]["attrs"] = {{"kernel", {3, -1}}}; },
                 "train.ops[8].attrs.kernel[1]: -1 is out of range (0..9223372036854775807)");
  expectRejected([](json& d) { d["sources"][0]["path"] = 3; }, "sources[0].path: expected a string");
  expectRejected([](json& d) { d["infer"]["sites"]["frames"][2]["line"] = "x"; },
                 "infer.sites.frames[2].line: expected an integer");
}

// A tool that writes its nulls (Python's None, JavaScript's null) may give any optional field of
// an op or a tensor as null: read as left out. A required one (kind, out, shape) is still an error.
TEST(IrJson, NullOptionalFieldsReadAsLeftOut) {
  const ir::TracedModel model = denoiser();
  const std::string compact = ir::toJson(model);
  json nulls = json::parse(compact);
  for (const char* side : {"train", "infer"}) {
    for (json& op : nulls[side]["ops"]) {
      for (const char* field : {"phase", "site", "attrs"}) {
        if (!op.contains(field)) op[field] = nullptr;
      }
    }
    for (json& t : nulls[side]["tensors"]) {
      for (const char* field : {"dtype", "source", "names"}) {
        if (!t.contains(field)) t[field] = nullptr;
      }
    }
  }
  EXPECT_EQ(ir::toJson(ir::tracedModelFromJson(nulls.dump())), compact);
  expectRejected([](json& d) { d["train"]["ops"][8]["out"] = nullptr; }, "train.ops[8].out: expected an integer");
  expectRejected([](json& d) { d["train"]["tensors"][8]["shape"] = nullptr; },
                 "train.tensors[8].shape: expected an array");
}

// What the writer leaves out reads as its default, and writing it out in full reads the same
// model: the forward phase, site -1, dtype f32, and each tensor's source (the op whose out it is).
// The full form is also what version 1 wrote.
TEST(IrJson, LeftOutDefaultsReadAsTheDefaults) {
  const ir::TracedModel model = denoiser();
  const std::string compact = ir::toJson(model);
  json full = json::parse(compact);
  for (const char* side : {"train", "infer"}) {
    const std::string arrays = full[side]["tensors"].dump() + full[side]["ops"].dump();
    for (const char* leftOut : {R"("phase":"forward")", R"("site":-1)", R"("dtype":"f32")", R"("source":)"}) {
      EXPECT_EQ(arrays.find(leftOut), std::string::npos) << side << ": " << leftOut;
    }
  }
  for (const char* side : {"train", "infer"}) {
    json& g = full[side];
    for (std::size_t i = 0; i < g["ops"].size(); ++i) {
      json& op = g["ops"][i];
      if (!op.contains("phase")) op["phase"] = "forward";
      if (!op.contains("site")) op["site"] = -1;
      g["tensors"][op["out"].get<std::size_t>()]["source"] = i;
    }
    for (json& t : g["tensors"]) {
      if (!t.contains("dtype")) t["dtype"] = "f32";
    }
  }
  EXPECT_GT(full.dump().size(), compact.size() * 5 / 4);  // the long form is over a quarter longer
  EXPECT_EQ(ir::toJson(ir::tracedModelFromJson(full.dump())), compact);
  full["version"] = 1;
  EXPECT_EQ(ir::toJson(ir::tracedModelFromJson(full.dump())), compact);

  // A left-out source is found from the ops; a tensor no op makes, or one two ops make, is named.
  expectRejected([](json& d) { d["train"]["tensors"].push_back({{"shape", {1}}}); },
                 "train.tensors[20]: no op makes this tensor (its \"source\" is left out and no op's \"out\" names it)");
  expectRejected([](json& d) { d["train"]["ops"][9]["out"] = 8; },
                 "train.ops[9].out: tensor 8 is not produced by exactly this op");
  expectRejected([](json& d) { d["train"]["ops"][9]["out"] = 20; }, "train.ops[9].out: 20 is out of range (0..19)");
}

using test::chainOf;

// A long chain of small ops that each hold an attribute is the real IR dearest to hold per byte of
// its text: `softmax(h, 1)` on [4, 4] is 84 bytes of JSON and about 400 of memory (op, inputs,
// attribute block, tensor, shape). It reads within the default budget (maxMemoryPerByte 6), not
// within 4.
TEST(IrJson, AttributeHeavyChainsRead) {
  const std::string text = ir::toJson(chainOf(ir::OpKind::softmax, ir::OpAttrs{.axis = 1}, 150'000));
  ASSERT_GT(text.size(), std::size_t{8} << 20);  // past the budget's 1 MiB floor
  EXPECT_EQ(ir::tracedModelFromJson(text).train.ops.size(), 150'002u);
  ir::ReadLimits four;
  four.maxMemoryPerByte = 4;
  EXPECT_THROW(ir::tracedModelFromJson(text, four), ir::IrFormatError);
}

// `mul(x, -0.0)` keeps its sign through the JSON form ("-0" would read back as the integer 0).
TEST(IrJson, ANegativeZeroOperandRoundTrips) {
  const std::string text =
      ir::toJson(chainOf(ir::OpKind::mul, ir::OpAttrs{.scalar = -0.0, .scalarOperand = true}, 1));
  EXPECT_NE(text.find(R"("scalar":-0.0)"), std::string::npos);
  const ir::TracedModel back = ir::tracedModelFromJson(text);
  EXPECT_TRUE(std::signbit(back.train.ops[1].attrs->scalar));
  EXPECT_EQ(ir::toJson(back), text);
}

// Another kind of document read as an IR (a diagram's JSON, whose keys sort "clusters" before
// "format") fails on its first field: the message says it is not an IR, not only that a field is
// unknown. Past "format", an unknown field is only that.
TEST(IrJson, AFieldBeforeTheFormatSaysTheDocumentIsNoIr) {
  expectRejected([](json& d) { d["clusters"] = json::array(); },
                 "clusters: unknown field: this is not an nndna IR document (one starts with \"format\": "
                 "\"nndna-ir\"; `nndna ir` and `nndna trace --json` write them)");
  expectRejected([](json& d) { d["layers"] = json::array(); }, "layers: unknown field");
}

// Tensors and ops are read field by field, without a JSON tree: every way a field can be wrong is
// still named at its path.
TEST(IrJson, RejectsMalformedTensorsAndOpsFieldByField) {
  expectRejected([](json& d) { d["train"]["ops"][8] = 5; }, "train.ops[8]: expected an object");
  expectRejected([](json& d) { d["train"]["tensors"][3] = json::array(); }, "train.tensors[3]: expected an object");
  expectRejected([](json& d) { d["train"]["ops"][8].erase("kind"); }, "train.ops[8]: missing field 'kind'");
  expectRejected([](json& d) { d["train"]["ops"][8].erase("inputs"); }, "train.ops[8]: missing field 'inputs'");
  expectRejected([](json& d) { d["train"]["ops"][8].erase("out"); }, "train.ops[8]: missing field 'out'");
  expectRejected([](json& d) { d["train"]["tensors"][3].erase("shape"); }, "train.tensors[3]: missing field 'shape'");
  expectRejected([](json& d) { d["train"]["ops"][8]["zzz"] = 1; }, "train.ops[8].zzz: unknown field");
  expectRejected([](json& d) { d["train"]["tensors"][3]["zzz"] = {1}; }, "train.tensors[3].zzz: unknown field");
  expectRejected([](json& d) { d["train"]["ops"][8]["kind"] = 3; }, "train.ops[8].kind: expected a string");
  expectRejected([](json& d) { d["train"]["ops"][8]["kind"] = {"matmul"}; }, "train.ops[8].kind: expected a string");
  expectRejected([](json& d) { d["train"]["ops"][8]["phase"] = "sideways"; },
                 "train.ops[8].phase: unknown phase 'sideways'");
  expectRejected([](json& d) { d["train"]["ops"][8]["out"] = "7"; }, "train.ops[8].out: expected an integer");
  expectRejected([](json& d) { d["train"]["ops"][8]["site"] = -2; }, "train.ops[8].site: -2 is out of range (-1..2147483647)");
  expectRejected([](json& d) { d["train"]["ops"][8]["inputs"] = 4; }, "train.ops[8].inputs: expected an array");
  expectRejected([](json& d) { d["train"]["ops"][8]["inputs"] = json::object(); }, "train.ops[8].inputs: expected an array");
  expectRejected([](json& d) { d["train"]["ops"][8]["inputs"][1] = json::array({1}); },
                 "train.ops[8].inputs[1]: expected an integer");
  expectRejected([](json& d) { d["train"]["ops"][8]["attrs"] = 1; }, "train.ops[8].attrs: expected an object");
  expectRejected([](json& d) { d["train"]["ops"][8]["attrs"] = {1, 2}; }, "train.ops[8].attrs: expected an object");
  expectRejected([](json& d) { d["train"]["tensors"][3]["shape"] = 4; }, "train.tensors[3].shape: expected an array");
  expectRejected([](json& d) { d["train"]["tensors"][3]["shape"][0] = "4"; },
                 "train.tensors[3].shape[0]: expected an integer");
  // (A null source reads as left out: IrJson.NullOptionalFieldsReadAsLeftOut.)
  expectRejected([](json& d) { d["train"]["tensors"][3]["source"] = "3"; },
                 "train.tensors[3].source: expected an integer");
  expectRejected([](json& d) { d["train"]["tensors"][3]["names"] = {1, 2}; },
                 "train.tensors[3].names[0]: expected a string");
  expectRejected([](json& d) { d["train"]["tensors"][3]["names"] = {{"B"}}; },
                 "train.tensors[3].names[0]: expected a string");
  // A field given twice (JSON allows it; the writer never does). dump() sorts the keys: the first
  // ops array is the inference graph's.
  json doc = json::parse(ir::toJson(denoiser()));
  std::string text = doc.dump();
  const std::size_t ops = text.find("\"ops\":[");
  const std::size_t out = text.find("\"out\":", ops);
  ASSERT_NE(out, std::string::npos);
  text.insert(out, "\"out\":0,");
  try {
    ir::tracedModelFromJson(text);
    ADD_FAILURE() << "accepted a field given twice";
  } catch (const ir::IrFormatError& e) {
    EXPECT_EQ(std::string(e.what()), "infer.ops[0].out: duplicate field");
  }
  // An absent optional field may be null.
  doc["train"]["ops"][8]["attrs"] = nullptr;
  doc["train"]["tensors"][3]["names"] = nullptr;
  EXPECT_EQ(ir::tracedModelFromJson(doc.dump()).train.ops.size(), denoiser().train.ops.size());
}

TEST(IrJson, WritesAnyTextAsJsonThatReadsBack) {
  ir::TracedModel model = denoiser();
  // Plain runs, every escape, a control character, two-byte UTF-8, and a byte that starts no
  // UTF-8 sequence (written as U+FFFD).
  model.spec.label = std::string("plain \"quoted\" back\\slash\x01" "ctl\ttab\nline caf\xC3\xA9 bad\xFF" " end");
  const std::string text = ir::toJson(model);
  EXPECT_NE(text.find(R"("label":"plain \"quoted\" back\\slash\u0001ctl\ttab\nline caf)"
                      "\xC3\xA9 bad\xEF\xBF\xBD" " end\""),
            std::string::npos);
  EXPECT_EQ(ir::tracedModelFromJson(text).spec.label,
            "plain \"quoted\" back\\slash\x01" "ctl\ttab\nline caf\xC3\xA9 bad\xEF\xBF\xBD" " end");
}

// writeJson hands over the text toJson returns, in order, in pieces of at least a chunk (but the
// last): the 96-layer decoder's IR (1.5 MB) takes two.
TEST(IrJson, WritingToASinkGivesTheSameTextInChunks) {
  const ir::TracedModel model = traceModel(loadSpec(*findSpec("decoder_96")));
  std::vector<std::string> pieces;
  ir::writeJson(model, [&](std::string_view piece) { pieces.emplace_back(piece); });
  const std::string whole = ir::toJson(model);
  ASSERT_GT(whole.size(), ir::JsonWriter::kSinkChunkBytes);
  ASSERT_EQ(pieces.size(), whole.size() / ir::JsonWriter::kSinkChunkBytes + 1);
  std::string joined;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i + 1 < pieces.size()) {
      EXPECT_GE(pieces[i].size(), ir::JsonWriter::kSinkChunkBytes) << i;
    }
    joined += pieces[i];
  }
  EXPECT_EQ(joined, whole);
  // Indented as toJson indents.
  std::string indented;
  ir::writeJson(model, [&](std::string_view piece) { indented += piece; }, 2);
  EXPECT_EQ(indented, ir::toJson(model, 2));
}

// Integers are written in full, at both ends of their types (the writer does not check what it
// is given: the reader does).
TEST(IrJson, WritesIntegersAtTheirLimits) {
  ir::TracedModel model = denoiser();
  model.train.tensors[0].shape = {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), 0};
  model.train.sites.frames[0].address = std::numeric_limits<std::uint64_t>::max();
  model.train.ops[0].inputs = {-2147483647 - 1, 7, 2147483647};
  const std::string text = ir::toJson(model);
  EXPECT_NE(text.find(R"("shape":[-9223372036854775808,9223372036854775807,0])"), std::string::npos);
  EXPECT_NE(text.find(R"("address":18446744073709551615,)"), std::string::npos);
  EXPECT_NE(text.find(R"("inputs":[-2147483648,7,2147483647])"), std::string::npos);
}

// pad's amounts, arange's start and step, one_hot's dtype and topk's k travel in the document and
// are checked on read by the kinds' shape rules (the all_ops spec makes each).
TEST(IrJson, PadArangeOneHotTopkAttributesAreValidatedOnRead) {
  const ir::TracedModel model = traceModel(loadSpec(*findSpec("all_ops")));
  const std::string text = ir::toJson(model);
  EXPECT_EQ(ir::toJson(ir::tracedModelFromJson(text)), text);
  const json doc = json::parse(text);
  // The index of the first training op of `kind` whose attrs hold `key` (its value, if given).
  auto opOf = [&](std::string_view kind, std::string_view key, const json& value) {
    const json& ops = doc["train"]["ops"];
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const json& attrs = ops[i].value("attrs", json::object());
      if (ops[i]["kind"] == kind && attrs.contains(key) && (value.is_null() || attrs[key] == value)) return i;
    }
    ADD_FAILURE() << "no " << kind << " op with " << key;
    return std::size_t{0};
  };
  auto rejected = [&](std::size_t op, std::string_view key, const json& value, std::string_view message) {
    json bad = doc;
    bad["train"]["ops"][op]["attrs"][key] = value;
    try {
      ir::tracedModelFromJson(bad.dump());
      ADD_FAILURE() << "accepted; expected: " << message;
    } catch (const ir::IrFormatError& e) {
      EXPECT_EQ(std::string(e.what()), fmt::format("train.ops[{}]: {}", op, message));
    }
  };
  // all_ops: arange(-1, 1, 0.25, f32), pad(h [2, 4, 8], {1, 2, -1, 1}, 0.5), topk(h, 3),
  // oneHot(top.indices, D, i32).
  const std::size_t range = opOf("arange", "scalar2", 0.25);
  EXPECT_EQ(doc["train"]["ops"][range]["attrs"]["scalar"], -1);
  EXPECT_EQ(doc["train"]["ops"][range]["attrs"]["count"], 8);
  rejected(range, "scalar2", 0, "arange: step must not be 0");
  rejected(range, "scalar", "inf", "arange: start must be finite, got inf");
  const std::size_t padded = opOf("pad", "dims", json());
  EXPECT_EQ(doc["train"]["ops"][padded]["attrs"]["dims"], json({0, 0, -1, 1, 1, 2}));
  EXPECT_EQ(doc["train"]["ops"][padded]["attrs"]["scalar"], 0.5);
  rejected(padded, "dims", {1, 2, 3},
           "pad: the amounts (dims) must be a (before, after) pair per axis of [2, 4, 8]: 6 numbers, got 3");
  rejected(padded, "dims", {0, 0, -2, -2, 0, 0}, "pad: axis 1: 4 padded by -2 and -2 leaves no elements");
  rejected(opOf("topk", "count", 3), "count", 9, "topk: k must be in 1..8 (axis 2 of [2, 4, 8]), got 9");
  rejected(opOf("one_hot", "dtype", "i32"), "dtype", "f32",
           "one_hot: the output is declared [2, 4, 3, 8] i32, its shape rule gives [2, 4, 3, 8] f32");
}

TEST(IrJson, EnforcesReadLimits) {
  const std::string text = ir::toJson(denoiser());
  ir::ReadLimits tiny;
  tiny.maxBytes = 100;
  EXPECT_THROW(ir::tracedModelFromJson(text, tiny), ir::IrFormatError);
  ir::ReadLimits fewTensors;
  fewTensors.maxTensors = 5;
  EXPECT_THROW(ir::tracedModelFromJson(text, fewTensors), ir::IrFormatError);
}

}  // namespace
}  // namespace nndna
