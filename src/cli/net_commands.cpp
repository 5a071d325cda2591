// addNetCommandsHandOver (commands.hpp): `nndna design` and `nndna serve` run as nndna-net.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "cli/commands.hpp"

namespace nndna::cli {

namespace {

namespace fs = std::filesystem;

// Where nndna-net is, from where this program is: <prefix>/libexec/nndna once installed, and the
// same place under the build tree (NNDNA_NET_FROM_BIN: that path from bin/, cmake/BuildLayout.cmake).
fs::path findNetProgram() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error(fmt::format("cannot find nndna-net: /proc/self/exe: {}", error.message()));
  const fs::path program = (self.parent_path() / NNDNA_NET_FROM_BIN).lexically_normal();
  if (::access(program.c_str(), X_OK) == 0) return program;
  throw std::runtime_error(fmt::format("nndna-net, the program that runs `design` and `serve`, is not installed: "
                                       "looked for {}",
                                       program.string()));
}

}  // namespace

bool isNetCommand(std::string_view name) { return name == "design" || name == "serve"; }

int handOverToNet(char** argv) {
  try {
    const fs::path program = findNetProgram();
    ::execv(program.c_str(), argv);
    throw std::runtime_error(fmt::format("cannot start {}: {}", program.string(), std::strerror(errno)));
  } catch (const std::exception& e) {
    printError(e.what());
    return 1;
  }
}

void addNetCommandsHandOver(CLI::App& app, char** argv) {
  for (const auto& [name, summary] : {std::pair{"design", kDesignSummary}, std::pair{"serve", kServeSummary}}) {
    CLI::App* cmd = app.add_subcommand(name, summary);
    // main() hands these over before parsing (argv[1] names them), so parsing never reaches
    // here; the callback does the same should it ever: the command line is nndna-net's.
    cmd->set_help_flag();
    cmd->prefix_command();
    cmd->callback([argv] { throw CLI::RuntimeError(handOverToNet(argv)); });
  }
}

}  // namespace nndna::cli
