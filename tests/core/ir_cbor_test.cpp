// The IR's CBOR form (what a spec program hands nndna): the writer's bytes, derived by hand from
// RFC 8949; every registered spec's document, which nlohmann decodes to the JSON form's document
// and nndna's reader to the same model; and the reader's rejections of what JSON's syntax would
// have rejected (text that is not UTF-8) or cannot spell (byte strings, tags).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ir/cbor_writer.hpp"
#include "nndna/ir_json.hpp"
#include "nndna/trace.hpp"
#include "support/ir_chain.hpp"

namespace nndna {
namespace {

using nlohmann::json;

std::string cborOf(const ir::TracedModel& model) {
  std::string bytes;
  ir::writeCbor(model, [&](std::string_view piece) { bytes += piece; });
  return bytes;
}

ir::TracedModel denoiser() { return traceModel(loadSpec(*findSpec("diffusion_denoiser"))); }

// The message of the IrFormatError reading `bytes` throws ("" when it reads).
std::string cborError(const std::string& bytes) {
  try {
    ir::tracedModelFromCbor(bytes);
  } catch (const ir::IrFormatError& e) {
    return e.what();
  }
  return "";
}

// `bytes` with the first `from` replaced by `to` (of the same length).
std::string patched(std::string bytes, std::string_view from, std::string_view to) {
  const std::size_t at = bytes.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) bytes.replace(at, from.size(), to);
  return bytes;
}

TEST(IrCbor, WriterSpellsEachValueAsRfc8949Says) {
  ir::CborWriter w;
  w.beginObject();  // BF: a map of indefinite length
  w.member("a", std::int64_t{-1});  // 61 'a', 20: major 1, argument 0
  const std::vector<std::int64_t> n = {0, 23, 24, 255, 256, 65535, 65536, std::int64_t{1} << 32, -24, -25,
                                       std::numeric_limits<std::int64_t>::min()};
  w.key("n");
  w.value(std::span<const std::int64_t>(n));  // 8B: an array of 11
  w.member("u", std::numeric_limits<std::uint64_t>::max());
  w.member("x", 1.5);
  w.member("z", -0.0);
  w.member("i", std::numeric_limits<double>::infinity());  // not finite: null, as in JSON
  w.member("t", true);
  w.member("f", false);
  w.key("0");
  w.null();
  const std::vector<std::string> s = {"", "\xC3\xA9"};
  w.key("s");
  w.value(std::span<const std::string>(s));
  w.key("l");
  w.beginArray();
  w.endArray();
  w.member("b", "a\xFFz");  // the byte that starts no UTF-8 sequence becomes U+FFFD
  w.endObject();
  static constexpr char kExpected[] =
      "\xBF"
      "\x61" "a" "\x20"
      "\x61" "n" "\x8B"
      "\x00" "\x17" "\x18\x18" "\x18\xFF" "\x19\x01\x00" "\x19\xFF\xFF" "\x1A\x00\x01\x00\x00"
      "\x1B\x00\x00\x00\x01\x00\x00\x00\x00" "\x37" "\x38\x18" "\x3B\x7F\xFF\xFF\xFF\xFF\xFF\xFF\xFF"
      "\x61" "u" "\x1B\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF"
      "\x61" "x" "\xFB\x3F\xF8\x00\x00\x00\x00\x00\x00"
      "\x61" "z" "\xFB\x80\x00\x00\x00\x00\x00\x00\x00"
      "\x61" "i" "\xF6"
      "\x61" "t" "\xF5"
      "\x61" "f" "\xF4"
      "\x61" "0" "\xF6"
      "\x61" "s" "\x82" "\x60" "\x62\xC3\xA9"
      "\x61" "l" "\x9F\xFF"
      "\x61" "b" "\x65" "a\xEF\xBF\xBDz"
      "\xFF";
  const std::string bytes = w.take();
  EXPECT_EQ(bytes, std::string(kExpected, sizeof kExpected - 1));
  // And an independent decoder reads what it should.
  const json decoded = json::from_cbor(bytes);
  EXPECT_EQ(decoded["n"], json(n));
  EXPECT_EQ(decoded["u"], std::numeric_limits<std::uint64_t>::max());
  EXPECT_TRUE(std::signbit(decoded["z"].get<double>()));
  EXPECT_EQ(decoded["b"], "a\xEF\xBF\xBDz");
}

// Every spec nndna knows: nlohmann decodes the CBOR to the JSON form's document, and nndna's
// reader reads it to the model the JSON form reads to.
TEST(IrCbor, EverySpecsDocumentIsItsJsonDocument) {
  std::size_t traced = 0;
  bool allOps = false;  // every op kind, with its attributes
  for (const RegisteredSpec& spec : registeredSpecs()) {
    ir::TracedModel model;
    try {
      model = traceModel(loadSpec(spec));
    } catch (const Error&) {
      continue;  // the specs of the error tests (shape_error.cpp, ...)
    }
    ++traced;
    allOps = allOps || spec.name == "all_ops";
    const std::string text = ir::toJson(model);
    const std::string bytes = cborOf(model);
    EXPECT_EQ(json::from_cbor(bytes), json::parse(text)) << spec.name;
    EXPECT_EQ(ir::toJson(ir::tracedModelFromCbor(bytes)), text) << spec.name;
    EXPECT_LT(bytes.size(), text.size()) << spec.name;
  }
  EXPECT_GE(traced, 20u);  // the examples and the core tests' specs
  EXPECT_TRUE(allOps);
}

// CBOR's definite lengths (nlohmann's to_cbor writes them) read as the writer's indefinite ones.
TEST(IrCbor, DefiniteLengthsReadToo) {
  const std::string text = ir::toJson(denoiser());
  const std::vector<std::uint8_t> definite = json::to_cbor(json::parse(text));
  EXPECT_EQ(ir::toJson(ir::tracedModelFromCbor(std::string(definite.begin(), definite.end()))), text);
}

TEST(IrCbor, WritesAnyTextAsUtf8ThatReadsBack) {
  ir::TracedModel model = denoiser();
  model.spec.label = std::string("caf\xC3\xA9 bad\xFF" " end\x01");
  EXPECT_EQ(ir::tracedModelFromCbor(cborOf(model)).spec.label, "caf\xC3\xA9 bad\xEF\xBF\xBD end\x01");
}

TEST(IrCbor, RejectsWhatJsonCouldNotSay) {
  ir::TracedModel model = denoiser();
  model.spec.label = "LABELXYZ";  // 68: a text string of 8 bytes
  const std::string bytes = cborOf(model);
  ASSERT_EQ(cborError(bytes), "");
  EXPECT_EQ(cborError(patched(bytes, "LABELXYZ", "LABEL\xFF\xFE" "Z")), "spec: a text string that is not UTF-8");
  EXPECT_EQ(cborError(patched(bytes, "\x65label", "\x65l\xC0\xAF" "el")),  // an overlong '/'
            "spec: a text string that is not UTF-8");
  EXPECT_EQ(cborError(patched(bytes, "\x68LABELXYZ", "\x48LABELXYZ")),  // 48: a byte string
            "spec: unexpected binary value");
  // A tag (C0: a date), the document cut short, and a byte after it: not CBOR nndna reads.
  EXPECT_EQ(cborError("\xC0" + bytes).rfind("not valid CBOR (byte 1): ", 0), 0u) << cborError("\xC0" + bytes);
  EXPECT_EQ(cborError(bytes.substr(0, bytes.size() - 1)).rfind("not valid CBOR (byte ", 0), 0u);
  EXPECT_EQ(cborError(bytes + std::string(1, '\0')).rfind("not valid CBOR (byte ", 0), 0u);
  // JSON's text is not the CBOR form ('{' is the head of a text string whose length follows in 8
  // bytes, longer than the document).
  EXPECT_EQ(cborError(ir::toJson(model)).rfind("not valid CBOR (byte ", 0), 0u);
}

// CBOR has infinities and NaN, JSON none (its writer writes null for them, and its lexer refuses a
// number past the double's range): a number field must be finite.
TEST(IrCbor, NumbersMustBeFinite) {
  json doc = json::parse(ir::toJson(denoiser()));
  for (const double v : {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    doc["spec"]["optimizer"]["lr"]["value"] = v;
    const std::vector<std::uint8_t> bytes = json::to_cbor(doc);
    EXPECT_EQ(cborError(std::string(bytes.begin(), bytes.end())), "spec.optimizer.lr.value: expected a finite number");
  }
}

// The checks are the JSON reader's: a model's rules broken in CBOR are named as in JSON.
TEST(IrCbor, ChecksTheGraphAsTheJsonReaderDoes) {
  json doc = json::parse(ir::toJson(denoiser()));
  doc["train"]["ops"][9]["out"] = 20;
  const std::vector<std::uint8_t> bytes = json::to_cbor(doc);
  EXPECT_EQ(cborError(std::string(bytes.begin(), bytes.end())), "train.ops[9].out: 20 is out of range (0..19)");
}

// A long chain of small ops that each hold an attribute, the IR dearest to hold per byte
// (IrJson.AttributeHeavyChainsRead), reads within the default budget in CBOR too: its bytes are
// charged as twice as many.
TEST(IrCbor, AttributeHeavyChainsRead) {
  const ir::TracedModel model = test::chainOf(ir::OpKind::softmax, ir::OpAttrs{.axis = 1}, 150'000);
  const std::string bytes = cborOf(model);
  ASSERT_GT(bytes.size(), std::size_t{4} << 20);  // past the budget's 1 MiB floor
  EXPECT_EQ(ir::tracedModelFromCbor(bytes).train.ops.size(), 150'002u);
  ir::ReadLimits two;
  two.maxMemoryPerByte = 2;
  EXPECT_THROW(ir::tracedModelFromCbor(bytes, two), ir::IrFormatError);
}

// With a sink, the bytes come in pieces of at least a chunk (but the last), in order.
TEST(IrCbor, WritingToASinkGivesTheBytesInChunks) {
  std::vector<std::string> pieces;
  ir::CborWriter w([&](std::string_view piece) { pieces.emplace_back(piece); });
  ir::CborWriter whole;
  const std::vector<std::int64_t> values(300'000, 1'000'000);  // 5 bytes each
  for (ir::CborWriter* writer : {&w, &whole}) {
    writer->beginArray();
    for (std::size_t i = 0; i < 3; ++i) writer->value(std::span<const std::int64_t>(values));
    writer->endArray();
  }
  w.finish();
  const std::string expected = whole.take();
  ASSERT_GT(expected.size(), 4 * ir::CborWriter::kSinkChunkBytes);
  std::string joined;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i + 1 < pieces.size()) {
      EXPECT_GE(pieces[i].size(), ir::CborWriter::kSinkChunkBytes) << i;
    }
    joined += pieces[i];
  }
  EXPECT_EQ(joined, expected);
}

}  // namespace
}  // namespace nndna
