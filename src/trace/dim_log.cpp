#include "trace/dim_log.hpp"

#include <fmt/format.h>

#include "ir/dim_names.hpp"
#include "trace/tracer.hpp"

namespace nndna::tracing {

namespace {
thread_local DimLog* activeLog = nullptr;

DimDecl* findByName(std::vector<DimDecl>& dims, std::string_view name) {
  for (DimDecl& d : dims) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

// A dim met twice keeps the first description, colour and definition it was given.
void fillMissing(DimDecl& known, const DimDecl& more) {
  if (known.desc.empty()) known.desc = more.desc;
  if (known.color.empty()) known.color = more.color;
  if (known.definition.empty()) known.definition = more.definition;
}

DimDecl declOf(const DimFactor& factor) {
  return DimDecl(factor.size, factor.name, factor.desc, factor.color);
}

void record(const DimExpr& expr, std::string_view api) {
  for (int i = 0; i < expr.factorCount(); ++i) {
    const DimFactor& f = expr.factor(i);
    if (!ir::isDimIdentifier(f.name)) {
      failAtUserLine(api, fmt::format("dim name '{}' must be an identifier (a letter, then letters, "
                                      "digits or '_', at most {} characters)",
                                      f.name, ir::kMaxDimNameLength));
    }
    if (f.size <= 0) failAtUserLine(api, fmt::format("dim {} must be positive, got {}", f.name, f.size));
    if (DimLog* log = DimLog::active()) log->add(declOf(f), api);
  }
}
}  // namespace

DimLog::DimLog() : previous_(activeLog) { activeLog = this; }
DimLog::~DimLog() { activeLog = previous_; }
DimLog* DimLog::active() { return activeLog; }

void DimLog::add(const DimDecl& dim, std::string_view api) {
  for (DimLog* log = this; log != nullptr; log = log->previous_) {
    DimDecl* known = findByName(log->dims_, dim.name);
    if (known == nullptr) {
      log->dims_.push_back(dim);
      continue;
    }
    if (known->size != dim.size) {
      failAtUserLine(api, fmt::format("dim {} is {} here but {} elsewhere: one name, one size",
                                      dim.name, dim.size, known->size));
    }
    fillMissing(*known, dim);
  }
}

std::string formatDimExpr(const DimExpr& expr) {
  if (!expr.named()) return {};
  ir::DimTerms terms;
  terms.num = expr.numerator();
  terms.den = expr.denominator();
  for (int i = 0; i < expr.factorCount(); ++i) {
    terms.powers.emplace_back(std::string(expr.factor(i).name), expr.factor(i).power);
  }
  return ir::formatDimName(terms);
}

std::string nameOfSize(const Size& size, std::string_view api) {
  record(size.expr(), api);
  record(size.definition(), api);
  DimLog* log = DimLog::active();
  if (log != nullptr && size.expr().factorCount() == 1 && size.definition().factorCount() > 0) {
    // A whole Dim with a definition: remember it (Dh = D/H) for the diagram.
    DimDecl decl = declOf(size.expr().factor(0));
    decl.definition = formatDimExpr(size.definition());
    log->add(decl, api);
  }
  return formatDimExpr(size.expr());
}

ir::DimNames namesOfSizes(const Sizes& sizes, std::string_view api) {
  ir::DimNames names;
  names.reserve(sizes.all().size());
  for (const Size& s : sizes.all()) names.push_back(nameOfSize(s, api));
  return ir::normalizedDimNames(std::move(names));
}

void mergeDims(std::vector<DimDecl>& into, const std::vector<DimDecl>& more, const std::string& file,
               int line, std::string_view what) {
  for (const DimDecl& d : more) {
    DimDecl* known = findByName(into, d.name);
    if (known == nullptr) {
      into.push_back(d);
      continue;
    }
    if (known->size != d.size) {
      throw TraceError(file, line, "dims",
                       fmt::format("dim {} is {} in {} but {} elsewhere: one name, one size", d.name,
                                   d.size, what, known->size));
    }
    fillMissing(*known, d);
  }
}

}  // namespace nndna::tracing
