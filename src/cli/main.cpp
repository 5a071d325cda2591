// `nndna`: every command but `design` and `serve`, which it hands over to nndna-net
// (commands.hpp says why).
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  // Before anything is parsed: the whole command line is nndna-net's (`nndna design -- --help`).
  if (argc > 1 && nndna::cli::isNetCommand(argv[1])) return nndna::cli::handOverToNet(argv);
  return nndna::cli::runCommandLine(argc, argv, [argv](CLI::App& app, int& argCount) {
    nndna::cli::addTraceCommands(app);
    nndna::cli::addSpecCommands(app);
    nndna::cli::addDiagramCommands(app);
    nndna::cli::addSummaryCommand(app);
    nndna::cli::addNetCommandsHandOver(app, argv);
    nndna::cli::addXrayCommands(app, nndna::cli::takeProgramTail(argCount, argv));
  });
}
