// The versioned JSON form of the IR (documented in docs/ir.md). The reader treats its input as
// untrusted (a spec's child process writes it): it validates every id, shape, size and attribute,
// recomputes every op's output with the kind's shape rule, and rejects a malformed document with
// a message naming the offending field (its JSON path), never a crash. Its memory is bounded by
// ReadLimits: it streams the document (nlohmann's SAX interface) into the Graph, materialising
// one array element at a time, so a hostile document cannot make it allocate much more than the
// document's size. The same document in CBOR (writeCbor, tracedModelFromCbor) is how a spec
// program hands its IR to nndna; everything a user reads or writes is the JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "nndna/error.hpp"
#include "nndna/export.hpp"
#include "nndna/ir.hpp"

NNDNA_API_BEGIN  // the whole header is libnndna's interface (export.hpp)

namespace nndna::ir {

inline constexpr std::string_view kIrFormat = "nndna-ir";
// Version 2 may leave defaults out (docs/ir.md); the reader also reads version 1, which writes
// every field.
inline constexpr int kIrVersion = 2;

struct ReadLimits {
  // The largest document. Measured (bench/ir): GPT-2 small's traced IR is 178 KB, the 96-layer
  // decoder's 1.1 MB (8,092 ops) and its training step's 2.9 MB; an IR takes 98-172 bytes per
  // op, so 256 MiB holds 1.5-2.7M ops: room for the 1M-op graphs issue #13 aims at, and with
  // maxMemoryPerByte it bounds what a hostile document can make the reader allocate (~1.5 GiB).
  std::size_t maxBytes = std::size_t{256} << 20;
  std::size_t maxTensors = 20'000'000;  // entries of one array (tensors, ops, frames, ...)
  std::size_t maxRank = kMaxRank;
  std::size_t maxStringBytes = std::size_t{16} << 20;  // one string (a source file's text)
  // Arrays and objects nested deeper than this are rejected (the IR itself nests 5 deep).
  std::size_t maxDepth = 32;
  // The reader's own allocations — the graphs it builds and the one element it holds as JSON —
  // stay below this many bytes per byte of the document, plus 1 MiB. Real IRs need up to 3 (the
  // compact 1M-op loop of bench/pipeline); a long chain of small ops that each hold an attribute
  // (a 224-byte block for a few bytes of JSON) up to about 5 (IrJson.AttributeHeavyChainsRead).
  std::size_t maxMemoryPerByte = 6;
};

// A malformed IR document, or a graph that breaks the IR's rules. The message names the JSON
// path of the offending field ("train.ops[12].inputs[1]: ...").
class IrFormatError : public Error {
 public:
  explicit IrFormatError(std::string message, std::string file = {})
      : Error(Kind::invalid_ir, std::move(file), 0, std::move(message)) {}
};

// indent < 0: compact.
std::string toJson(const TracedModel& model, int indent = -1);
// The same text as toJson, handed to `sink` in order in pieces of about 1 MiB (each valid only
// during the call), never held whole: how the spec program writes a large IR to its file.
// Exceptions from `sink` propagate.
void writeJson(const TracedModel& model, const std::function<void(std::string_view)>& sink,
               int indent = -1);
// Throws IrFormatError; `file` (the document's path, when it has one) goes into the error.
TracedModel tracedModelFromJson(std::string_view text, const ReadLimits& limits = {},
                                std::string_view file = {});

// The same document in CBOR (RFC 8949), token for token (docs/ir.md, "The CBOR form"): how a
// spec program hands its IR to nndna, a quarter smaller than the text and read in about 0.6 of
// its time. Streamed to `sink` in pieces as writeJson does.
void writeCbor(const TracedModel& model, const std::function<void(std::string_view)>& sink);
// Reads writeCbor's form with every check tracedModelFromJson makes, and the ones JSON's syntax
// makes for it: text strings must be UTF-8, and tags and byte strings are rejected. Its memory is
// bounded as for twice as many bytes of JSON (ReadLimits::maxMemoryPerByte): the same document
// is 0.6-0.8 times as long in CBOR.
TracedModel tracedModelFromCbor(std::string_view bytes, const ReadLimits& limits = {},
                                std::string_view file = {});

// Reads an IR file: a regular file no larger than limits.maxBytes (checked before reading), then
// tracedModelFromJson; errors name the file.
TracedModel tracedModelFromFile(const std::filesystem::path& path, const ReadLimits& limits = {});

// Checks a graph against every rule of the IR — ids in range, each tensor made once by the op
// that names it, inputs defined before use, each op's input count, attributes and output type by
// its kind's shape rule, leaves and the params/state/inputs/captures/updates lists — and throws
// IrFormatError naming the first violation as a path under `name` ("train.ops[8].inputs[0]:
// ..."). The reader runs it on every graph; buildTrainingStep and buildDiagram on theirs.
void validateGraph(const Graph& graph, std::string_view name = "graph");

}  // namespace nndna::ir
NNDNA_API_END
