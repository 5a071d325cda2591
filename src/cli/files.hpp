// Writing the files the commands make, with errors that say why (IR files are read by
// ir::tracedModelFromFile, spec files by specrun::readSpecSource, both bounded).
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "nndna/ir.hpp"

namespace nndna::cli {

// Throws CLI::ValidationError("OPTION: the output is the input file INPUT …") when `output`
// names the file `input` names (by any path: a link, ./x): writing it would destroy the input.
// Either may be empty or "-" (nothing to compare).
void refuseToOverwriteInput(const std::string& output, const std::string& input, const std::string& option);

// Whether PATH names standard output: "-" (or /dev/stdout). A command writing there sends its
// other lines (what it wrote, figures) to standard error, so that standard output holds the file.
bool isStandardOutput(const std::filesystem::path& path);
// Where a command's report lines go when it writes PATH: std::cerr if PATH is standard output.
std::ostream& reportStreamFor(const std::filesystem::path& path);
// PATH as a report names it: "standard output" for "-".
std::string shownPath(const std::filesystem::path& path);

// Throws CLI::ValidationError("OPTION: cannot write PATH: …") when PATH's folder is missing or
// PATH cannot be written there: checked before the work whose result it would hold (a design the
// model was paid for, a spec's run). Standard output ("-") and an empty PATH pass.
void checkWritable(const std::string& path, const std::string& option);

// Why PATH cannot be the compile cache's folder, "" if it can: one that exists, or a new one in a
// folder that exists (a mistyped --cache-dir would otherwise make a tree of folders wherever it
// pointed). As a CLI11 check of --cache-dir.
std::string cacheDirProblem(const std::string& path);

// Replaces PATH's content with `text` ("-": writes it to standard output). Throws "cannot write
// PATH: REASON".
void writeTextFile(const std::filesystem::path& path, std::string_view text);
// The same, with the text written to the file by `write` (a large text, made as it is written).
void writeTextFile(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

// How the commands indent the IR they write (`nndna ir`, `nndna trace --json`): for reading,
// except a large model's. Indented, a million-op IR is 1.6 times its compact size and past the
// 256 MiB that `nndna diagram` reads back (ir::ReadLimits); compact, it is the size of what the
// spec program wrote, which the run read within that limit. 1, or -1 (compact) above 100,000 ops.
int irIndent(const ir::TracedModel& model);

// Writes the model's IR to `out` (streamed: a large model's IR is never held whole), indented as
// irIndent says, with a final newline.
void writeIr(std::ostream& out, const ir::TracedModel& model);

// The same into PATH (writeTextFile's errors).
void writeIrFile(const std::filesystem::path& path, const ir::TracedModel& model);

}  // namespace nndna::cli
