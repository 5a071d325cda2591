// runCommandLine (commands.hpp): what `nndna` and nndna-net share of main().
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "cli/commands.hpp"
#include "render/escape.hpp"

namespace nndna::cli {

int runCommandLine(int argc, char** argv, const std::function<void(CLI::App& app, int& argc)>& addCommands) {
  CLI::App app{"nndna: see the architecture of neural networks and what C++ programs did"};
  app.set_version_flag("--version", std::string("nndna ") + NNDNA_VERSION);
  app.require_subcommand(1);
  try {
    addCommands(app, argc);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    // Messages may quote a file's contents (an IR, a trace): escape sequences are printed as text.
    std::cerr << "nndna: " << render::escapeForTerminal(e.what()) << "\n";
    return 1;
  }
  return 0;
}

}  // namespace nndna::cli
