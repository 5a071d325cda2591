// Libraries opened when first needed (src/loaded_library.hpp): libdw for call sites, libgvc for
// layouts. A library or symbol that is not there is named in the error.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "loaded_library.hpp"
#include "trace/libdw.hpp"

namespace nndna {
namespace {

std::string messageOf(const auto& action) {
  try {
    action();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

TEST(LoadedLibrary, NamesALibraryThatCannotBeLoaded) {
  const std::string message = messageOf([] { LoadedLibrary("libnndna-no-such-library.so.0", RTLD_NOW); });
  EXPECT_TRUE(message.starts_with("cannot load libnndna-no-such-library.so.0: ")) << message;
}

TEST(LoadedLibrary, TakesFunctionsAndNamesAMissingOne) {
  const LoadedLibrary libc("libc.so.6", RTLD_NOW | RTLD_LOCAL);
  pid_t (*ownPid)() = nullptr;
  libc.take("getpid", ownPid);
  ASSERT_NE(ownPid, nullptr);
  EXPECT_EQ(ownPid(), ::getpid());
  void (*missing)() = nullptr;
  const std::string message = messageOf([&] { libc.take("nndna_no_such_function", missing); });
  EXPECT_TRUE(message.starts_with("libc.so.6 lacks nndna_no_such_function (")) << message;
  EXPECT_EQ(missing, nullptr);
}

// libnndna resolves call sites with libdw, which it loads itself: every function of its table is
// the library's own (not one of the same name elsewhere in the process), and the library is then
// in the process (RTLD_NOLOAD finds it without loading it).
TEST(LoadedLibrary, LibdwHasEveryFunctionCallSitesUse) {
  const tracing::Libdw& dw = tracing::libdw();
  for (const void* function :
       {reinterpret_cast<const void*>(dw.begin), reinterpret_cast<const void*>(dw.end),
        reinterpret_cast<const void*>(dw.reportBegin), reinterpret_cast<const void*>(dw.reportBeginAdd),
        reinterpret_cast<const void*>(dw.reportEnd), reinterpret_cast<const void*>(dw.reportOffline),
        reinterpret_cast<const void*>(dw.linuxProcReport), reinterpret_cast<const void*>(dw.linuxProcFindElf),
        reinterpret_cast<const void*>(dw.standardFindDebuginfo),
        reinterpret_cast<const void*>(dw.offlineSectionAddress), reinterpret_cast<const void*>(dw.addrModule),
        reinterpret_cast<const void*>(dw.moduleAddrDie), reinterpret_cast<const void*>(dw.moduleGetElf),
        reinterpret_cast<const void*>(dw.moduleGetSrc), reinterpret_cast<const void*>(dw.moduleGetSymtab),
        reinterpret_cast<const void*>(dw.moduleGetSymInfo), reinterpret_cast<const void*>(dw.lineInfo),
        reinterpret_cast<const void*>(dw.dieName)}) {
    Dl_info info{};
    ASSERT_NE(::dladdr(function, &info), 0);
    EXPECT_EQ(std::filesystem::path(info.dli_fname).filename(), NNDNA_LIBDW_LIBRARY);
  }
  EXPECT_NE(::dlopen(NNDNA_LIBDW_LIBRARY, RTLD_NOW | RTLD_NOLOAD), nullptr);
  EXPECT_EQ(&tracing::libdw(), &dw);  // loaded once
}

}  // namespace
}  // namespace nndna
