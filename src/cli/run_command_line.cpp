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
    if (argc <= 1) {
      // `nndna` alone: what it can do, rather than only that a command is missing (same status).
      if (argc == 1) app.name(argv[0]);  // as parse() would name it in the usage line
      std::cout << app.help();
      return static_cast<int>(CLI::ExitCodes::RequiredError);
    }
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    printError(e.what());
    return 1;
  }
  return 0;
}

void printError(std::string_view message) { std::cerr << "nndna: " << render::escapeForTerminal(message) << "\n"; }

}  // namespace nndna::cli
