//===- Commands.h - The subcommands of the collplan CLI ---------*- C++ -*-===//
//
// The CLI is a thin layer over the libraries (ARCHITECTURE.md rule 4): each
// subcommand lives in its own file, parses its options with CLI11 and calls
// library functions. A subcommand's callback stores its exit code.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TOOLS_COMMANDS_H
#define COLLPLAN_TOOLS_COMMANDS_H

#include "plan/ir/Error.h"

#include <CLI/CLI.hpp>

#include <string>

namespace collplan::cli {

/// Exit codes, documented in the README and in `collplan --help`.
enum ExitCode : int {
  ExitSuccess = 0,
  ExitInvalid = 1,       ///< A plan failed verification or a run's check.
  ExitUsage = 2,         ///< Bad command line, unreadable or malformed input.
  ExitCannotCompile = 3, ///< The request is impossible for the algorithm.
  ExitIoError = 4,       ///< An output file could not be written.
  ExitRuntimeError = 5,  ///< Running a plan failed (peer died, timeout, ...).
};

/// The one map from a kind of failure to an exit code: the code of the same
/// number (ErrorKind's values are the exit codes).
ExitCode exitCodeFor(ErrorKind Kind);

/// Prints "collplan: error: Message" to stderr.
void printError(const std::string &Message);

/// Prints E and returns its exit code; an untyped E is of kind Default.
int reportError(llvm::Error E, ErrorKind Default);

void addListCommand(CLI::App &App, int &Exit);
void addCompileCommand(CLI::App &App, int &Exit);
void addVerifyCommand(CLI::App &App, int &Exit);
void addCostCommand(CLI::App &App, int &Exit);
void addShowCommand(CLI::App &App, int &Exit);
void addRunCommand(CLI::App &App, int &Exit);
void addCalibrateCommand(CLI::App &App, int &Exit);
void addSelectCommand(CLI::App &App, int &Exit);
void addTuneCommand(CLI::App &App, int &Exit);
void addImportCommand(CLI::App &App, int &Exit);
void addExportCommand(CLI::App &App, int &Exit);
void addIndexCommand(CLI::App &App, int &Exit);
void addLaunchCommand(CLI::App &App, int &Exit);
void addSlurmCommand(CLI::App &App, int &Exit);

} // namespace collplan::cli

#endif // COLLPLAN_TOOLS_COMMANDS_H
