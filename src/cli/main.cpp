#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "cli/commands.hpp"
#include "render/escape.hpp"

int main(int argc, char** argv) {
  CLI::App app{"nndna: see the architecture of neural networks and what C++ programs did"};
  app.set_version_flag("--version", std::string("nndna ") + NNDNA_VERSION);
  app.require_subcommand(1);
  nndna::cli::addTraceCommands(app);
  nndna::cli::addSpecCommands(app);
  nndna::cli::addDiagramCommands(app);
  nndna::cli::addSummaryCommand(app);
  nndna::cli::addDesignCommands(app);
  nndna::cli::addServeCommand(app);
  try {
    nndna::cli::addXrayCommands(app, nndna::cli::takeProgramTail(argc, argv));
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    // Messages may quote a file's contents (an IR, a trace): escape sequences are printed as text.
    std::cerr << "nndna: " << nndna::render::escapeForTerminal(e.what()) << "\n";
    return 1;
  }
  return 0;
}
