//===- ShowCommand.cpp - collplan show ------------------------------------===//

#include "plan/serialize/PlanFile.h"
#include "tools/collplan/Commands.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace collplan::cli {

namespace {

struct ShowOptions {
  std::string File;
  std::optional<uint32_t> Rank;
};

/// Plans up to this size are shown whole when no --rank is given.
constexpr uint32_t MaxRanksShownWhole = 16;

std::string describe(const PlanHeader &H, const Op &O) {
  const std::string &Buffer = H.Buffers[O.Buffer];
  std::string Blocks = "[" + O.Blocks.str() + "]";
  switch (O.Kind) {
  case OpKind::Send:
    return "send " + Buffer + Blocks + " -> " + std::to_string(O.Peer);
  case OpKind::Recv:
    return std::string(O.Mode == Combine::Reduce ? "reduce " : "recv ") +
           Buffer + Blocks + " <- " + std::to_string(O.Peer);
  case OpKind::Local:
    return std::string(O.Mode == Combine::Reduce ? "reduce " : "copy ") +
           Buffer + Blocks + " <- " + H.Buffers[O.Source];
  }
  return "";
}

void showRank(const Plan &P, uint32_t Rank) {
  llvm::raw_ostream &OS = llvm::outs();
  OS << "rank " << Rank << " (node " << P.Header.Topo.nodeOf(Rank) << ")\n";
  for (const Round &Rd : P.Programs[Rank].Rounds) {
    OS << llvm::format("  %5u  ", Rd.Index);
    for (size_t I = 0; I < Rd.Ops.size(); ++I)
      OS << (I ? "; " : "") << describe(P.Header, Rd.Ops[I]);
    OS << "\n";
  }
}

int runShow(const ShowOptions &O) {
  llvm::Expected<Plan> P = readPlanFile(O.File);
  if (!P)
    return reportError(P.takeError(), ErrorKind::Usage);
  const PlanHeader &H = P->Header;
  if (O.Rank && *O.Rank >= H.Ranks) {
    printError("--rank " + std::to_string(*O.Rank) +
               " is not a rank of P = " + std::to_string(H.Ranks));
    return ExitUsage;
  }
  llvm::raw_ostream &OS = llvm::outs();
  OS << collectiveName(H.Kind) << " with " << H.Algorithm;
  for (const auto &[K, V] : H.Params)
    OS << " " << K << "=" << V;
  OS << "; P = " << H.Ranks << ", topology " << H.Topo.str() << ", " << H.Blocks
     << " blocks";
  if (H.Root)
    OS << ", root " << *H.Root;
  if (!H.Stamp)
    OS << "\nnot verified (no stamp: collplan verify --stamp adds one)";
  else if (H.Stamp->PlanHash != planHash(*P))
    OS << "\nchanged since " << H.Stamp->Verifier
       << " verified it (stale stamp)";
  else
    OS << "\nverified by " << H.Stamp->Verifier << "; "
       << (H.Stamp->IdenticalResults
               ? "every rank ends with the same bits"
               : "results may differ in the last bits between ranks");
  OS << "\n  round  operations (reduce = combine into the named buffer)\n";
  if (O.Rank) {
    showRank(*P, *O.Rank);
    return ExitSuccess;
  }
  uint32_t Shown = std::min(H.Ranks, MaxRanksShownWhole);
  for (uint32_t R = 0; R < Shown; ++R)
    showRank(*P, R);
  if (Shown < H.Ranks)
    OS << "(" << H.Ranks - Shown << " more ranks; use --rank R)\n";
  return ExitSuccess;
}

} // namespace

void addShowCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<ShowOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "show", "Print a plan as a table of rounds x operations, for one rank "
              "or for every rank of a small plan");
  Cmd->add_option("file", O->File, "plan file")->required();
  Cmd->add_option("--rank,-r", O->Rank, "show only this rank");
  Cmd->callback([O, &Exit] { Exit = runShow(*O); });
}

} // namespace collplan::cli
