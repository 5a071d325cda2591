// nndna-net: `nndna design` and `nndna serve`, the commands that need the network libraries.
// `nndna` hands these two commands over to it with their whole command line (argv[0] included,
// so usage lines still read "nndna serve"); run alone, it takes the same command lines.
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  return nndna::cli::runCommandLine(argc, argv, [](CLI::App& app, int&) {
    nndna::cli::addDesignCommands(app);
    nndna::cli::addServeCommand(app);
  });
}
