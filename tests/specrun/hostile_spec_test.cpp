// Spec files that attack the runner (issue 9, points 5-8, and the small things): each one
// succeeded against the runner before the sandbox was hardened. The specs are in specs/; a few
// are written here because they name paths this test makes.
#include <gtest/gtest.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "specrun/spec_runner.hpp"
#include "specrun/temp_dir.hpp"
#include "test_cache.hpp"

namespace nndna::specrun {
namespace {

namespace fs = std::filesystem;
using Kind = SpecRunError::Kind;

const fs::path kSpecs = fs::path(NNDNA_SOURCE_DIR) / "tests" / "specrun" / "specs";

std::string firstLineOf(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

class HostileSpec : public ::testing::Test {
 protected:
  void SetUp() override { dir_.emplace(fs::temp_directory_path(), "nndna-test-hostile-"); }

  static RunOptions options() {
    RunOptions o;
    o.cacheDir = testCacheDir();
    return o;
  }

  static SpecRunError failure(const fs::path& spec, const RunOptions& o = options(), RunReport* report = nullptr) {
    try {
      runSpecFile(spec, o, report);
    } catch (const SpecRunError& e) {
      return e;
    }
    ADD_FAILURE() << spec << ": runSpecFile succeeded";
    return SpecRunError(Kind::setup_error, "no error");
  }

  // A one-layer spec whose loss function runs `body` first.
  fs::path writeSpec(const std::string& body, const std::string& includes) const {
    const fs::path file = dir_->path() / "model.cpp";
    std::ofstream(file) << "#include <nndna/nndna.hpp>\n"
                        << includes << "using namespace nndna;\n"
                        << "struct Net : Module { Linear l{\"l\", 4, 2}; };\n"
                        << "Tensor lossFn(Net& m, const Inputs& in) {\n"
                        << body << "\n  return mean(m.l(in[\"x\"]));\n}\n"
                        << "NNDNA_SPEC(Net) { return {.label = \"t\", .loss = lossFn, .inputs = {{\"x\", {8, 4}}}}; }\n";
    return file;
  }

  std::optional<TempDir> dir_;
};

// --- 9.6: only what they need is visible, to the compiler and to the program ---

TEST_F(HostileSpec, IncludingAHostFileFindsNothing) {
  const SpecRunError e = failure(kSpecs / "include_etc_passwd.cpp");
  EXPECT_EQ(e.kind(), Kind::compile_error);
  const std::string message = e.what();
  EXPECT_NE(message.find("include_etc_passwd.cpp:3:10: fatal error: /etc/passwd: No such file or directory"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find(firstLineOf("/etc/passwd")), std::string::npos) << message;
}

TEST_F(HostileSpec, LineDirectiveNamingAHostFileQuotesNothing) {
  const SpecRunError e = failure(kSpecs / "line_etc_passwd.cpp");
  EXPECT_EQ(e.kind(), Kind::compile_error);
  const std::string message = e.what();
  // The error is located in "/etc/passwd" (as #line says), but no line of it can be shown.
  EXPECT_NE(message.find("/etc/passwd:1:13: error: 'not_declared_1' was not declared"), std::string::npos) << message;
  EXPECT_EQ(message.find(firstLineOf("/etc/passwd")), std::string::npos) << message;
  EXPECT_EQ(message.find(" | "), std::string::npos) << "no code excerpt: " << message;
}

TEST_F(HostileSpec, AssemblerCannotIncludeAHostFile) {
  const SpecRunError e = failure(kSpecs / "asm_include_etc_passwd.cpp");
  EXPECT_EQ(e.kind(), Kind::compile_error);
  const std::string message = e.what();
  EXPECT_NE(message.find("Error: can't open /etc/passwd for reading: No such file or directory"), std::string::npos)
      << message;
  EXPECT_EQ(message.find(firstLineOf("/etc/passwd")), std::string::npos) << message;
}

TEST_F(HostileSpec, AssemblerErrorsAreTrimmed) {
  // stdio.h is visible (the system's headers are): the assembler reports most of its lines.
  const SpecRunError e = failure(kSpecs / "asm_include_flood.cpp");
  EXPECT_EQ(e.kind(), Kind::compile_error);
  const std::string message = e.what();
  EXPECT_EQ(count(message, "Error:"), 1u) << message;
  EXPECT_EQ(count(message, "\n"), 1u) << message;
  EXPECT_NE(message.find("more errors not shown)"), std::string::npos) << message;
}

TEST_F(HostileSpec, RootOnlyFilesStayOnTheHost) {
  const ir::TracedModel model = runSpecFile(kSpecs / "shadow_label.cpp", options());
  EXPECT_EQ(model.spec.label, "cannot read /etc/shadow");
  EXPECT_EQ(model.spec.description, "cannot read /etc/hostname");
}

// What `nndna serve` runs (runSpecSource, as the app's ServeHttp.SpecReadingAHostFileIsRejected
// does): a spec that throws when it cannot read a host file into its label is rejected, and no
// byte of the file reaches the message.
TEST_F(HostileSpec, ASourceGivenAsTextCannotReadAHostFile) {
  const std::string source =
      "#include <nndna/nndna.hpp>\n#include <fstream>\n#include <sstream>\n#include <stdexcept>\n"
      "using namespace nndna;\n"
      "struct M : Module { Linear l{\"l\", 4, 4}; };\n"
      "Tensor lossFn(M& m, const Inputs& in) { return mean(m.l(in[\"x\"])); }\n"
      "std::string stolen() {\n"
      "  std::ifstream f(\"/etc/hostname\");\n"
      "  if (!f) throw std::runtime_error(\"cannot open /etc/hostname\");\n"
      "  std::stringstream s;\n  s << f.rdbuf();\n  return \"hostname:[\" + s.str() + \"]\";\n}\n"
      "NNDNA_SPEC(M) { return {.label = stolen(), .loss = lossFn, .inputs = {{\"x\", {2, 4}}}}; }\n";
  try {
    const ir::TracedModel model = runSpecSource(source, "model.cpp", options());
    ADD_FAILURE() << "the spec read the host's file: " << model.spec.label;
  } catch (const SpecRunError& e) {
    EXPECT_EQ(e.kind(), Kind::spec_error) << e.what();
    EXPECT_EQ(std::string(e.what()), "model.cpp: cannot open /etc/hostname");
  }
}

TEST_F(HostileSpec, SeesNoHostDirectoryAndItsOwnHostname) {
  const ir::TracedModel model = runSpecFile(kSpecs / "what_it_sees.cpp", options());
  // The directories leading to what the run sees (its binary in the cache, libnndna in the build
  // tree, its source) exist, empty but for that path: a build under /root or /home shows those.
  // Of /sys only the two huge-page settings glibc reads are shown (where the host has them).
  std::string expected;
  std::vector<fs::path> usedPaths{fs::path(NNDNA_SOURCE_DIR), fs::path(testCacheDir()), fs::canonical("/proc/self/exe")};
  if (fs::exists("/sys/kernel/mm/transparent_hugepage/enabled")) usedPaths.emplace_back("/sys/kernel/mm/transparent_hugepage/enabled");
  for (const std::string candidate : {"/etc", "/root", "/home", "/run", "/var", "/tmp/.X11-unix", "/var/run/docker.sock",
                                      "/run/dbus/system_bus_socket", "/sys", "/sys/fs",
                                      "/sys/kernel/mm/transparent_hugepage/defrag", "/boot", "/opt", "/srv", "/mnt"}) {
    for (const fs::path& used : usedPaths) {
      const std::string path = fs::weakly_canonical(used).string();
      if (path == candidate || path.starts_with(candidate + "/")) {
        expected += candidate + " ";
        break;
      }
    }
  }
  EXPECT_EQ(model.spec.label, "visible: [" + expected + "] hostname: nndna-sandbox");
}

TEST_F(HostileSpec, CannotConnectToAUnixSocketOfTheHost) {
  const fs::path socketPath = dir_->path() / "service.sock";
  const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socketPath.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  ::chmod(socketPath.c_str(), 0777);
  const std::string body =
      "  int s = ::socket(AF_UNIX, SOCK_STREAM, 0);\n"
      "  if (s < 0) throw std::runtime_error(std::string(\"socket: \") + std::strerror(errno));\n"
      "  sockaddr_un a{}; a.sun_family = AF_UNIX;\n"
      "  std::strcpy(a.sun_path, \"" + socketPath.string() + "\");\n"
      "  if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) throw std::runtime_error(\"connected\");\n"
      "  throw std::runtime_error(std::string(\"connect: \") + std::strerror(errno));";
  const SpecRunError e = failure(
      writeSpec(body, "#include <sys/socket.h>\n#include <sys/un.h>\n#include <cerrno>\n#include <cstring>\n#include <stdexcept>\n"));
  const int accepted = ::accept(listener, nullptr, nullptr);
  ::close(listener);
  EXPECT_LT(accepted, 0) << "the spec reached a socket of the host";
  EXPECT_EQ(e.kind(), Kind::spec_error);
  EXPECT_NE(std::string(e.what()).find("model.cpp: socket: Operation not permitted"), std::string::npos) << e.what();
}

// --- 9.7: IPC and UTS namespaces, the system-call filter ---

TEST_F(HostileSpec, SystemCallsItNeverNeedsAreDenied) {
  const SpecRunError e = failure(kSpecs / "forbidden_syscalls.cpp");
  EXPECT_EQ(e.kind(), Kind::spec_error);
  const std::string message = e.what();
  for (const char* call : {"unshare(CLONE_NEWUSER)", "unshare(CLONE_NEWNS)", "clone(CLONE_NEWUSER)", "mount",
                           "ptrace(PTRACE_TRACEME)", "keyctl", "bpf", "io_uring_setup", "socket(AF_UNIX)",
                           "socket(AF_INET)", "socket(AF_INET6)", "socket(AF_NETLINK)"}) {
    EXPECT_NE(message.find(std::string(" ") + call + "=EPERM"), std::string::npos) << call << "\n" << message;
  }
}

TEST_F(HostileSpec, SysVSharedMemoryDiesWithTheRun) {
  constexpr key_t kKey = 0x4e4e4441;  // sysv_segment.cpp's
  const ir::TracedModel model = runSpecFile(kSpecs / "sysv_segment.cpp", options());
  EXPECT_EQ(model.spec.label, "segment left");
  const int left = ::shmget(kKey, 0, 0);
  if (left >= 0) ::shmctl(left, IPC_RMID, nullptr);  // not to leak it into the next run
  EXPECT_LT(left, 0) << "the segment outlived the run";
  EXPECT_EQ(errno, ENOENT);
}

// --- 9.8: limits for the whole process tree ---

TEST_F(HostileSpec, MemoryIsLimitedForTheTreeNotPerProcess) {
  RunOptions o = options();
  o.runLimits.addressSpaceBytes = std::uint64_t{1} << 30;  // each process could hold 200 MiB
  o.runLimits.memoryBytes = std::uint64_t{256} << 20;     // three of them together cannot
  RunReport report;
  const SpecRunError e = failure(kSpecs / "memory_in_three_processes.cpp", o, &report);
  ASSERT_TRUE(report.isolation);
  if (report.isolation->memoryLimit == TreeLimitSource::none) {
    GTEST_SKIP() << "no tree-wide memory limit here: " << report.isolation->describe();
  }
  EXPECT_EQ(e.kind(), Kind::memory_limit) << e.what();
  EXPECT_NE(std::string(e.what()).find("used more than 256 MiB of memory together"), std::string::npos) << e.what();
}

TEST_F(HostileSpec, ProcessesAreLimitedForTheTree) {
  RunReport report;
  const SpecRunError e = failure(kSpecs / "fork_300.cpp", options(), &report);
  EXPECT_EQ(e.kind(), Kind::spec_error);
  const std::string message = e.what();
  const std::size_t at = message.find("started ");
  ASSERT_NE(at, std::string::npos) << message;
  const int started = std::stoi(message.substr(at + 8));
  // The limit (64) counts the spec program itself.
  EXPECT_LT(started, static_cast<int>(defaultRunLimits().maxProcesses)) << message;
  EXPECT_GT(started, 10) << message;
  EXPECT_NE(message.find("(it reached the limit of 64 processes and threads)"), std::string::npos) << message;
}

TEST_F(HostileSpec, RunDirectoryIsBoundedInSize) {
  RunOptions o = options();
  o.runLimits.workDirBytes = std::uint64_t{32} << 20;
  RunReport report;
  const SpecRunError e = failure(kSpecs / "disk_fill.cpp", o, &report);
  EXPECT_EQ(e.kind(), Kind::spec_error);
  const std::string message = e.what();
  const std::size_t at = message.find("wrote ");
  ASSERT_NE(at, std::string::npos) << message;
  const std::uint64_t written = std::stoull(message.substr(at + 6));
  EXPECT_LE(written, std::uint64_t{32} << 20) << message;
  EXPECT_GE(written, std::uint64_t{16} << 20) << message;
  EXPECT_FALSE(fs::exists(report.runDir));
}

// --- 9.5: the parent never follows the program's files ---

TEST_F(HostileSpec, LinkedIrIsNotFollowed) {
  ::setenv("NNDNA_TEST_PARENT_SECRET", "hunter2-parent", 1);
  const SpecRunError e = failure(kSpecs / "ir_symlink.cpp");
  ::unsetenv("NNDNA_TEST_PARENT_SECRET");
  EXPECT_EQ(e.kind(), Kind::invalid_output);
  const std::string message = e.what();
  EXPECT_TRUE(message.ends_with("ir_symlink.cpp: the spec program's ir.cbor is a symbolic link: not read")) << message;
  EXPECT_EQ(message.find("hunter2-parent"), std::string::npos) << message;
}

// A spec's own exception names no line: the message adds where the last op before it was traced
// (line 6: the Linear's ops; writeSpec's lines 1-5 are its head).
TEST_F(HostileSpec, AnExceptionOfTheSpecSaysWhereTheLastOpWasTraced) {
  const SpecRunError e = failure(
      writeSpec("  Tensor h = m.l(in[\"x\"]);\n  if (h.dim(0) == 8) throw std::runtime_error(\"boom\");",
                "#include <stdexcept>\n"));
  EXPECT_EQ(e.kind(), Kind::spec_error);
  EXPECT_TRUE(std::string(e.what()).ends_with("model.cpp: boom (the last op traced before it is at model.cpp:6)"))
      << e.what();
}

// A spec with a main() of its own replaces nndna's, which traces it: nothing is written, and the
// message says why.
TEST_F(HostileSpec, ASpecWithItsOwnMainIsToldWhyNothingWasTraced) {
  const SpecRunError e = failure(writeSpec("", "int main() { return 0; }\n"));
  EXPECT_EQ(e.kind(), Kind::invalid_output);
  EXPECT_NE(std::string(e.what()).find("model.cpp: the spec program wrote no IR: it ended with status 0 before "
                                       "nndna traced it (a spec defines no main() of its own"),
            std::string::npos)
      << e.what();
}

TEST_F(HostileSpec, LinkedErrorFileIsNotFollowed) {
  // A file the parent can read and the spec cannot (it is not even visible to it), shaped like a
  // spec's error so that following the link would print it.
  const fs::path secret = dir_->path() / "secret.json";
  std::ofstream(secret) << "{\"message\": \"TOP SECRET of the parent\"}";
  ::chmod(secret.c_str(), 0600);
  const SpecRunError e = failure(writeSpec("  ::unlink(\"error.json\");\n  ::symlink(\"" + secret.string() + "\", \"error.json\");\n  std::_Exit(11);",
                                           "#include <unistd.h>\n#include <cstdlib>\n"));
  EXPECT_EQ(e.kind(), Kind::invalid_output);
  const std::string message = e.what();
  EXPECT_EQ(message.find("TOP SECRET"), std::string::npos) << message;
  EXPECT_NE(message.find("error.json is a symbolic link: not read"), std::string::npos) << message;
}

TEST_F(HostileSpec, FifoErrorFileDoesNotBlockTheParent) {
  const auto start = std::chrono::steady_clock::now();
  const SpecRunError e = failure(kSpecs / "error_fifo.cpp");
  EXPECT_EQ(e.kind(), Kind::invalid_output);
  EXPECT_NE(std::string(e.what()).find("error.json is not a regular file: not read"), std::string::npos) << e.what();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(120));
}

// --- small things ---

TEST_F(HostileSpec, BytesThatAreNotUtf8InAMessageAreReplaced) {
  const SpecRunError e = failure(writeSpec("  throw std::runtime_error(\"name l\\xff\\xfe is bad\");",
                                           "#include <stdexcept>\n"));
  EXPECT_EQ(e.kind(), Kind::spec_error);
  EXPECT_TRUE(std::string(e.what()).ends_with("model.cpp: name l\xEF\xBF\xBD\xEF\xBF\xBD is bad")) << e.what();
}

TEST_F(HostileSpec, ThrowingAValueThatIsNotAnExceptionIsNamed) {
  const SpecRunError e = failure(kSpecs / "throw_int.cpp");
  EXPECT_EQ(e.kind(), Kind::spec_error) << e.what();
  EXPECT_NE(std::string(e.what()).find("throw_int.cpp: the spec threw a value of type 'int', which is not an exception"),
            std::string::npos)
      << e.what();
}

TEST_F(HostileSpec, AHugeShapeMakesAShortMessage) {
  const SpecRunError e = failure(kSpecs / "huge_rank.cpp");
  EXPECT_TRUE(e.kind() == Kind::trace_error || e.kind() == Kind::spec_error) << std::string(e.what()).substr(0, 500);
  const std::string message = e.what();
  EXPECT_LT(message.size(), 4500u) << message.substr(0, 500);
  EXPECT_NE(message.find("huge_rank.cpp"), std::string::npos) << message.substr(0, 500);
}

TEST_F(HostileSpec, AMessageIsCappedAt4000Bytes) {
  const SpecRunError e = failure(writeSpec("  throw std::runtime_error(\"long:\" + std::string(300'000, 'x'));",
                                           "#include <stdexcept>\n#include <string>\n"));
  EXPECT_EQ(e.kind(), Kind::spec_error);
  const std::string message = e.what();
  // 300,005 bytes: the first 4,000 quoted.
  const std::string expected = "long:" + std::string(3995, 'x') + "... (296005 more bytes not shown)";
  EXPECT_TRUE(message.ends_with("model.cpp: " + expected)) << message.substr(0, 200);
}

TEST_F(HostileSpec, AParameterWhoseSizeOverflowsIsCaughtWhereItIsMade) {
  const SpecRunError e = failure(kSpecs / "huge_param.cpp");
  EXPECT_NE(e.kind(), Kind::invalid_output) << "caught by the parent's validator: " << e.what();
  EXPECT_NE(std::string(e.what()).find("'huge' has shape [4294967296, 4294967296]: its element count overflows 64 bits"),
            std::string::npos)
      << e.what();
}

}  // namespace
}  // namespace nndna::specrun
