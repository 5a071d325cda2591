#include "trace/callsite.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/frame_memo.hpp"
#include "trace/libdw.hpp"
#include "trace/own_module.hpp"

namespace nndna::tracing {

std::size_t walkReturnAddresses(std::span<std::uintptr_t> out, std::uintptr_t boundary) {
  // Frame layout with frame pointers (x86-64 and AArch64 alike): [fp] = caller's fp,
  // [fp + 8] = return address. Every frame read lies between this frame and `boundary` on this
  // thread's stack, so a frame without a frame pointer can end the walk early but never make it
  // read outside the stack.
  auto fp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  std::size_t n = 0;
  while (n < out.size() && fp != 0 && fp < boundary) {
    const auto* frame = reinterpret_cast<const std::uintptr_t*>(fp);
    const std::uintptr_t next = frame[0];
    const std::uintptr_t ret = frame[1];
    if (ret == 0) break;
    out[n++] = ret;
    if (next <= fp || (next & (sizeof(void*) - 1)) != 0) break;
    fp = next;
  }
  return n;
}

std::string shortFunctionName(std::string_view name) {
  // Drop every parenthesised and angle-bracketed group (parameter lists, template arguments,
  // "(anonymous namespace)"), keeping "operator()" itself; then the return type and qualifiers.
  std::string out;
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (depth == 0 && name.substr(i).starts_with("operator()")) {
      out += "operator()";
      i += std::string_view("operator()").size() - 1;
      continue;
    }
    if (depth == 0 && name.substr(i).starts_with("{lambda")) {
      // "{lambda(int)#1}" -> "{lambda#1}"
      const std::size_t close = name.find('}', i);
      const std::size_t hash = name.find('#', i);
      if (close != std::string_view::npos && hash != std::string_view::npos && hash < close) {
        out += "{lambda";
        out += name.substr(hash, close - hash + 1);
        i = close;
        continue;
      }
    }
    if (c == '(' || c == '<') {
      ++depth;
    } else if (c == ')' || c == '>') {
      if (depth > 0) --depth;
    } else if (depth == 0) {
      out += c;
    }
  }
  // Trailing qualifiers.
  for (std::string_view suffix : {" const", " volatile", " &&", " &"}) {
    if (std::string_view(out).ends_with(suffix)) out.resize(out.size() - suffix.size());
  }
  // Return type: whatever precedes the last top-level space.
  if (const std::size_t space = out.rfind(' '); space != std::string::npos) out.erase(0, space + 1);
  while (out.starts_with("::")) out.erase(0, 2);
  // A lambda's call operator reads better as the lambda.
  if (std::string_view(out).ends_with("::operator()") && out.find("{lambda") != std::string::npos) {
    out.resize(out.size() - std::string_view("::operator()").size());
  }
  return out;
}

namespace {

// nndna's own code and the standard library are never user frames.
bool isLibraryPath(std::string_view file) {
  if (file.empty()) return true;
  // System and compiler headers (libstdc++'s std::function, <algorithm>, ...). Not all of /usr:
  // a spec may live anywhere.
  for (std::string_view system : {"/usr/include/", "/usr/lib/", "/usr/local/include/"}) {
    if (file.starts_with(system)) return true;
  }
  if (file.find("/include/nndna/") != std::string_view::npos) return true;
  static const std::string sourceSrc = std::string(NNDNA_SOURCE_DIR) + "/src/";
  if (file.starts_with(sourceSrc)) return true;
  return false;
}

// A module's function symbols sorted by address, read once. elfutils' dwfl_module_addrname scans
// the whole symbol table on every call: 917 symbols in GPT-2's spec program, whose 36 call sites
// took about 1.2 ms of its run (median 9.4 against 8.2 ms with this index). One pass and a binary
// search per address instead. Narrower than dwfl_module_addrname, which is enough for the code a
// compiler emits for user functions: only STT_FUNC symbols count, and a sizeless symbol holds
// every address up to the next symbol.
class FunctionSymbols {
 public:
  FunctionSymbols(const Libdw& dw, Dwfl_Module* module) {
    const int count = dw.moduleGetSymtab(module);
    for (int i = 1; i < count; ++i) {
      GElf_Sym symbol{};
      GElf_Addr address = 0;
      const char* name = dw.moduleGetSymInfo(module, i, &symbol, &address, nullptr, nullptr, nullptr);
      if (name == nullptr || *name == '\0' || GELF_ST_TYPE(symbol.st_info) != STT_FUNC) continue;
      if (symbol.st_shndx == SHN_UNDEF) continue;
      symbols_.push_back({address, symbol.st_size, rank(GELF_ST_BIND(symbol.st_info)), i, name});
    }
    // By address; among the symbols at one address (a constructor's complete and base-object
    // aliases, folded identical code) a sized one first, then by binding as dwfl_module_addrname
    // prefers them (global, weak, local), then the table's order: the same name in every run.
    std::sort(symbols_.begin(), symbols_.end(), [](const Symbol& a, const Symbol& b) {
      if (a.address != b.address) return a.address < b.address;
      if ((a.size == 0) != (b.size == 0)) return a.size != 0;
      if (a.bindingRank != b.bindingRank) return a.bindingRank < b.bindingRank;
      return a.index < b.index;
    });
  }

  // The name of the function whose code holds `pc`, or nullptr.
  const char* nameAt(GElf_Addr pc) const {
    auto after = std::upper_bound(symbols_.begin(), symbols_.end(), pc,
                                  [](GElf_Addr a, const Symbol& s) { return a < s.address; });
    if (after == symbols_.begin()) return nullptr;
    // The last symbol starting at or before pc, then back to the preferred one at its address.
    auto at = std::prev(after);
    while (at != symbols_.begin() && std::prev(at)->address == at->address) --at;
    if (at->size != 0 && pc >= at->address + at->size) return nullptr;
    return at->name;
  }

 private:
  struct Symbol {
    GElf_Addr address;
    GElf_Xword size;
    int bindingRank;
    int index;         // in the symbol table
    const char* name;  // owned by the module's ELF data, which lives as long as the Dwfl session
  };
  static int rank(unsigned binding) { return binding == STB_GLOBAL ? 0 : binding == STB_WEAK ? 1 : 2; }
  std::vector<Symbol> symbols_;
};

class Resolver {
 public:
  Resolver() = default;
  ~Resolver() {
    if (dwfl_ != nullptr) dw_->end(dwfl_);
  }
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;

  const ResolvedFrame& resolve(std::uintptr_t address) {
    std::lock_guard lock(mutex_);
    if (auto it = cache_.find(address); it != cache_.end()) return it->second;
    // Computed before it is cached: a resolution that throws (libdw missing) caches nothing.
    return cache_.emplace(address, computeOrRecall(address)).first->second;
  }

  bool startMemo(std::string_view text) {
    // Without a build ID nothing says which binary a memo belongs to: none is kept.
    if (own_.programBuildId.empty()) return false;
    std::optional<FrameMemo> memo = text.empty() ? FrameMemo{} : readFrameMemo(text, own_.programBuildId);
    std::lock_guard lock(mutex_);
    memoInUse_ = true;
    memoGrown_ = false;
    memo_ = memo ? std::move(*memo) : FrameMemo{};
    return memo.has_value();
  }

  std::optional<std::string> grownMemo() {
    std::lock_guard lock(mutex_);
    if (!memoGrown_) return std::nullopt;
    return writeFrameMemo(memo_, own_.programBuildId);
  }

 private:
  Dwfl* session() {
    // Modules are reported lazily and again when an address falls outside every known module
    // (a library loaded after the first resolution).
    if (dwfl_ == nullptr) {
      if (dw_ == nullptr) {
        dw_ = &libdw();
        callbacks_.find_elf = dw_->linuxProcFindElf;
        callbacks_.find_debuginfo = dw_->standardFindDebuginfo;
      }
      dwfl_ = dw_->begin(&callbacks_);
      if (dwfl_ != nullptr) {
        dw_->reportBegin(dwfl_);
        dw_->linuxProcReport(dwfl_, getpid());
        dw_->reportEnd(dwfl_, nullptr, nullptr);
      }
    }
    return dwfl_;
  }

  const FunctionSymbols& functionSymbols(Dwfl_Module* module) {
    auto it = symbolsByModule_.find(module);
    if (it == symbolsByModule_.end()) it = symbolsByModule_.emplace(module, FunctionSymbols(*dw_, module)).first;
    return it->second;
  }

  // With a memo (a spec program), an address in the program's own code is looked up there first,
  // and added to it when it was not.
  ResolvedFrame computeOrRecall(std::uintptr_t address) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(address), &info) == 0) return {};
    const auto base = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    if (!memoInUse_ || base != own_.programBase) return compute(address, base);
    const std::uint64_t relative = address - base;
    if (auto it = memo_.find(relative); it != memo_.end()) return it->second;
    ResolvedFrame frame = compute(address, base);
    memo_.emplace(relative, frame);
    memoGrown_ = true;
    return frame;
  }

  // `base`: the load base of the module holding `address` (dladdr's).
  ResolvedFrame compute(std::uintptr_t address, std::uintptr_t base) {
    ResolvedFrame frame;
    frame.relativeAddress = address - base;
    // Linked into the program (the `nndna` command), libnndna shares its module with the built-in
    // specs: its frames are then told apart by their compilation units (below).
    const bool inOwnModule = base == own_.base;
    if (inOwnModule && !own_.isProgram) return frame;  // inside libnndna.so

    Dwfl* dwfl = session();
    if (dwfl == nullptr) return frame;
    // The return address points after the call; the call itself is one byte earlier.
    const Dwarf_Addr pc = address - 1;
    Dwfl_Module* module = dw_->addrModule(dwfl, pc);
    if (module == nullptr) {
      dw_->reportBeginAdd(dwfl);
      dw_->linuxProcReport(dwfl, getpid());
      dw_->reportEnd(dwfl, nullptr, nullptr);
      module = dw_->addrModule(dwfl, pc);
      if (module == nullptr) return frame;
    }
    // In the program, libnndna's code is told by its compilation unit, one of nndna's own source
    // files, without decoding that unit's line table (which made `nndna trace --example
    // gpt2_small` take half as long again).
    if (inOwnModule) {
      Dwarf_Addr bias = 0;
      Dwarf_Die* unit = dw_->moduleAddrDie(module, pc, &bias);
      const char* unitFile = unit != nullptr ? dw_->dieName(unit) : nullptr;
      if (unitFile != nullptr && isLibraryPath(unitFile)) return frame;
    }
    Dwfl_Line* line = dw_->moduleGetSrc(module, pc);
    if (line == nullptr) return frame;
    int lineNo = 0;
    int column = 0;
    const char* file = dw_->lineInfo(line, nullptr, &lineNo, &column, nullptr, nullptr);
    if (file == nullptr) return frame;
    frame.file = file;
    frame.line = lineNo;
    frame.column = column;
    frame.user = !isLibraryPath(frame.file);
    // Only a user frame's function is shown (the tracer keeps no other).
    if (!frame.user) return frame;
    if (const char* symbol = functionSymbols(module).nameAt(pc); symbol != nullptr) {
      int status = 0;
      std::unique_ptr<char, decltype(&std::free)> demangled(
          abi::__cxa_demangle(symbol, nullptr, nullptr, &status), &std::free);
      frame.function = shortFunctionName(status == 0 && demangled ? demangled.get() : symbol);
    }
    // A captureless lambda called through a function pointer (`.loss = [](…) {…}`) runs through
    // the compiler's static invoker (GCC's `_FUN`, clang's `__invoke`): a frame at the lambda's
    // line holding no user code, which would draw a second cluster around the lambda's own.
    if (frame.function.ends_with("::_FUN") || frame.function.ends_with("::__invoke")) {
      frame.user = false;
      frame.function.clear();
    }
    return frame;
  }

  std::mutex mutex_;
  // Loaded with the first address that needs it (throws when it cannot be): a spec program whose
  // memo holds every address never loads it.
  const Libdw* dw_ = nullptr;
  Dwfl_Callbacks callbacks_{};
  Dwfl* dwfl_ = nullptr;
  const OwnModule& own_ = ownModule();
  std::unordered_map<std::uintptr_t, ResolvedFrame> cache_;
  std::unordered_map<Dwfl_Module*, FunctionSymbols> symbolsByModule_;
  bool memoInUse_ = false;
  bool memoGrown_ = false;
  FrameMemo memo_;  // by address relative to the program's base
};

Resolver& resolver() {
  static Resolver instance;
  return instance;
}

}  // namespace

const ResolvedFrame& resolveReturnAddress(std::uintptr_t address) {
  return resolver().resolve(address);
}

bool startFrameMemo(std::string_view memoText) { return resolver().startMemo(memoText); }

std::optional<std::string> grownFrameMemo() { return resolver().grownMemo(); }

}  // namespace nndna::tracing
