#include "render/dot_reader.hpp"

#include <algorithm>
#include <deque>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "render/graphviz_library.hpp"

namespace nndna::render::detail {
namespace {

// The DOT text being read, handed to Graphviz's lexer a line at a time (as agmemread does).
struct TextSource {
  std::string_view text;
  std::size_t at = 0;
};

int readLine(void* channel, char* buffer, int size) {
  auto* source = static_cast<TextSource*>(channel);
  if (size <= 0 || source->at >= source->text.size()) return 0;
  const std::string_view rest = source->text.substr(source->at);
  const auto newline = rest.find('\n');
  const std::size_t line = newline == std::string_view::npos ? rest.size() : newline + 1;
  const std::size_t n = std::min(line, static_cast<std::size_t>(size));
  rest.copy(buffer, n);
  source->at += n;
  return static_cast<int>(n);
}

// Object ids for one root graph. cgraph's convention: a named object's id is even and its name is
// printed back from the id; an anonymous one's is odd and has no name.
struct IdTable {
  std::unordered_map<std::string_view, IDTYPE> byName;
  std::deque<std::string> names;  // names[k] has id 2 * (k + 1); a deque keeps the views valid
  IDTYPE nextAnonymous = 1;
};

// cgraph holds the table as a void* from agopen to agclose, which calls closeIds.
void* openIds(Agraph_t*, Agdisc_t*) { return std::make_unique<IdTable>().release(); }
void closeIds(void* state) { std::unique_ptr<IdTable>(static_cast<IdTable*>(state)).reset(); }

long mapId(void* state, int, char* name, IDTYPE* id, int create) {
  auto* table = static_cast<IdTable*>(state);
  if (name == nullptr) {
    if (!create) return 0;
    *id = table->nextAnonymous;
    table->nextAnonymous += 2;
    return 1;
  }
  if (const auto found = table->byName.find(name); found != table->byName.end()) {
    *id = found->second;
    return 1;
  }
  if (!create) return 0;
  const std::string& stored = table->names.emplace_back(name);
  *id = 2 * static_cast<IDTYPE>(table->names.size());
  table->byName.emplace(stored, *id);
  return 1;
}

// Ids are only ever made from names (mapId); none is asked for by number.
long allocId(void*, int, IDTYPE) { return 0; }
void freeId(void*, int, IDTYPE) {}

char* printId(void* state, int, IDTYPE id) {
  auto* table = static_cast<IdTable*>(state);
  if (id % 2 != 0 || id == 0 || id / 2 > table->names.size()) return nullptr;
  return table->names[id / 2 - 1].data();
}

void registerId(void*, int, void*) {}

Agiddisc_t g_ids = {openIds, mapId, allocId, freeId, printId, closeIds, registerId};

}  // namespace

Agraph_t* readDot(const std::string& dot) {
  // The graph keeps pointers to the disciplines (writing it would use `io`), so they outlive it.
  const GraphvizLibrary& gv = graphvizLibrary();
  static Agiodisc_t io = {readLine, gv.AgIoDisc->putstr, gv.AgIoDisc->flush};
  Agdisc_t disc = {gv.AgMemDisc, &g_ids, &io};
  TextSource source{dot};
  // The lexer's line count is global and runs on from the last graph read, so an error named
  // lines past the graph's end (line 15 of a one-line graph after a 14-line one). Reset, it can
  // still be one off: the scanner may hold the previous graph's last newline.
  gv.agreadline(1);
  return gv.agread(&source, &disc);
}

}  // namespace nndna::render::detail
