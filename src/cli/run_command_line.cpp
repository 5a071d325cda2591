// runCommandLine (commands.hpp): what `nndna` and nndna-net share of main().
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "render/escape.hpp"

namespace nndna::cli {

namespace {

bool hasSubcommand(const CLI::App& app, const std::string& name) {
  try {
    app.get_subcommand(name);
    return true;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

}  // namespace

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
    // CLI11 takes an unknown first word for a stray argument and says only that a command is
    // required: name the word and the commands.
    if (argc > 1 && argv[1][0] != '-' && !hasSubcommand(app, argv[1])) {
      std::vector<std::string> names;
      for (const CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
        names.push_back(command->get_name());
      }
      printError(fmt::format("there is no command '{}'; the commands are {} (nndna --help says what each does)",
                             argv[1], fmt::join(names, ", ")));
      return static_cast<int>(CLI::ExitCodes::ExtrasError);
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
