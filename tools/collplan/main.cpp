//===- main.cpp - The collplan command line -------------------------------===//
//
// A thin layer over the libraries: every subcommand is in its own file.
//
//===----------------------------------------------------------------------===//

#include "tools/collplan/Commands.h"
#include "tools/collplan/OutOfMemory.h"

#include "llvm/Support/raw_ostream.h"

#include <iostream>

namespace collplan::cli {

static_assert(ExitInvalid == int(ErrorKind::Invalid) &&
                  ExitUsage == int(ErrorKind::Usage) &&
                  ExitCannotCompile == int(ErrorKind::CannotCompile) &&
                  ExitIoError == int(ErrorKind::Io) &&
                  ExitRuntimeError == int(ErrorKind::Runtime),
              "each ErrorKind is its exit code");

ExitCode exitCodeFor(ErrorKind Kind) { return ExitCode(int(Kind)); }

void printError(const std::string &Message) {
  llvm::errs() << "collplan: error: " << Message << "\n";
}

int reportError(llvm::Error E, ErrorKind Default) {
  ErrorReport R = takeErrorReport(std::move(E), Default);
  printError(R.Message);
  return exitCodeFor(R.Kind);
}

} // namespace collplan::cli

using namespace collplan::cli;

static const char *ExitCodesHelp =
    "Exit codes:\n"
    "  0  success\n"
    "  1  a plan failed verification (verify, compile) or a run's check\n"
    "  2  usage error, an unreadable or malformed input file, or a plan\n"
    "     without a valid verification stamp given to run\n"
    "  3  the request cannot be compiled (unsupported collective, bad "
    "parameter)\n"
    "  4  an output file could not be written (nothing is left half written)\n"
    "  5  running a plan failed (a peer died or stalled, a transport error)\n";

int main(int Argc, char **Argv) {
  installOutOfMemoryHandlers();
  CLI::App App{"collplan: an offline compiler of collective communication "
               "schedules.\nIt compiles per-rank send/recv/reduce plans for "
               "allreduce, reduce-scatter,\nallgather(v), broadcast and "
               "reduce, verifies them and predicts their cost."};
  App.set_version_flag("--version", "collplan " COLLPLAN_VERSION);
  App.footer(std::string("\n") + ExitCodesHelp +
             "\nRun 'collplan SUBCOMMAND --help' for a subcommand's options.");
  App.require_subcommand(1);
  int Exit = ExitSuccess;
  addListCommand(App, Exit);
  addCompileCommand(App, Exit);
  addVerifyCommand(App, Exit);
  addCostCommand(App, Exit);
  addShowCommand(App, Exit);
  addRunCommand(App, Exit);
  addCalibrateCommand(App, Exit);
  addSelectCommand(App, Exit);
  addTuneCommand(App, Exit);
  addImportCommand(App, Exit);
  addExportCommand(App, Exit);
  addIndexCommand(App, Exit);
  addLaunchCommand(App, Exit);
  addSlurmCommand(App, Exit);
  try {
    App.parse(Argc, Argv);
  } catch (const CLI::CallForHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForAllHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForVersion &E) {
    return App.exit(E);
  } catch (const CLI::ParseError &E) {
    // Show the help of the subcommand the user was typing, not the top level.
    CLI::App *Relevant = &App;
    for (CLI::App *Sub : App.get_subcommands())
      Relevant = Sub;
    printError(E.what());
    std::cerr << "\n" << Relevant->help();
    return ExitUsage;
  }
  // Standard output that could not be written (a full disk, /dev/full) is
  // an output error like a file's; LLVM would abort at exit on it.
  llvm::raw_fd_ostream &Out = llvm::outs();
  Out.flush();
  if (Out.has_error()) {
    printError("cannot write the standard output: " + Out.error().message());
    Out.clear_error();
    return Exit == ExitSuccess ? ExitIoError : Exit;
  }
  return Exit;
}
