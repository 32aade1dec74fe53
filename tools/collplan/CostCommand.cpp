//===- CostCommand.cpp - collplan cost ------------------------------------===//

#include "compiler/cost/CostModel.h"
#include "compiler/verify/Verifier.h"
#include "plan/serialize/PlanFile.h"
#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace collplan::cli {

namespace {

struct CostOptions {
  std::string File;
  ByteSizeOption Bytes;
  CostParams Cost;
  bool PerRound = false;
  bool NoVerify = false;
  VerifyMode Mode = VerifyMode::Auto;
  OutputFormat Format = OutputFormat::Text;
};

void printJson(const CostOptions &O, const Plan &P, const CostReport &R) {
  llvm::json::OStream J(llvm::outs(), 2);
  J.object([&] {
    J.attribute("file", O.File);
    J.attribute("algorithm", P.Header.Algorithm);
    J.attribute("collective", collectiveName(P.Header.Kind));
    J.attribute("ranks", int64_t(P.Header.Ranks));
    J.attribute("topology", P.Header.Topo.str());
    J.attribute("ranks_per_node", int64_t(P.Header.Topo.ranksPerNode()));
    if (!P.Header.Topo.isRegular())
      J.attribute("fewest_ranks_per_node",
                  int64_t(P.Header.Topo.fewestRanksOnANode()));
    J.attribute("bytes", int64_t(O.Bytes.Value));
    J.attribute("predicted_time", R.Time);
    J.attribute("lower_bound", R.LowerBound);
    J.attribute("rounds", int64_t(R.Rounds.size()));
    J.attributeObject("bytes_sent", [&] {
      J.attribute("max", R.MaxBytesSent);
      J.attribute("mean", R.MeanBytesSent);
    });
    J.attributeObject("bytes_received", [&] {
      J.attribute("max", R.MaxBytesRecv);
      J.attribute("mean", R.MeanBytesRecv);
    });
    J.attribute("latency_deficiency", R.LatencyDeficiency);
    J.attribute("bandwidth_deficiency", R.BandwidthDeficiency);
    J.attribute("congestion_deficiency", R.CongestionDeficiency);
    J.attribute("inter_node_messages", int64_t(R.InterNodeMessages));
    J.attribute("intra_node_messages", int64_t(R.IntraNodeMessages));
    J.attribute("max_inter_node_messages_per_rank",
                int64_t(R.MaxInterNodePerRank));
    J.attribute("max_inter_node_messages_per_node_round",
                int64_t(R.MaxInterNodePerNodeRound));
    J.attribute("max_messages_per_rank_round", int64_t(R.MaxRankMessages));
    J.attribute("max_sends_in_flight", int64_t(R.MaxSendsInFlight));
    J.attribute("medium_messages", int64_t(R.MediumMessages));
    J.attribute("large_messages", int64_t(R.LargeMessages));
    J.attribute("max_core_stretch", R.MaxCoreStretch);
    if (O.PerRound)
      J.attributeArray("per_round", [&] {
        for (const RoundCost &RC : R.Rounds)
          J.object([&] {
            J.attribute("round", int64_t(RC.Index));
            J.attribute("finish", RC.Finish);
            J.attribute("max_bytes_sent", RC.MaxBytesSent);
            J.attribute("max_message_bytes", RC.MaxMessageBytes);
            J.attribute("hops", int64_t(RC.Hops));
            J.attribute("max_link_load", RC.MaxLinkLoad);
            J.attribute("inter_node_messages", int64_t(RC.InterNodeMessages));
            J.attribute("intra_node_messages", int64_t(RC.IntraNodeMessages));
            J.attribute("max_inter_node_senders",
                        int64_t(RC.MaxInterNodeSenders));
            J.attribute("max_rank_messages", int64_t(RC.MaxRankMessages));
            J.attribute("link_backlog", RC.LinkBacklog);
            J.attribute("core_stretch", RC.CoreStretch);
          });
      });
  });
  llvm::outs() << "\n";
}

void printText(const CostOptions &O, const Plan &P, const CostReport &R) {
  llvm::raw_ostream &OS = llvm::outs();
  OS << O.File << ": " << collectiveName(P.Header.Kind) << " with "
     << P.Header.Algorithm << " on P = " << P.Header.Ranks << ", "
     << R.Rounds.size() << " rounds, " << formatBytes(double(O.Bytes.Value))
     << "\n";
  OS << "  predicted time  " << formatSeconds(R.Time) << "\n";
  OS << "  lower bound     " << formatSeconds(R.LowerBound)
     << "   (ceil(log2 P) alpha + bandwidth term)\n";
  OS << "  bytes sent      max " << formatBytes(R.MaxBytesSent) << ", mean "
     << formatBytes(R.MeanBytesSent) << " per rank\n";
  OS << "  bytes received  max " << formatBytes(R.MaxBytesRecv) << ", mean "
     << formatBytes(R.MeanBytesRecv) << " per rank\n";
  const Topology &T = P.Header.Topo;
  OS << "  topology        " << T.str() << ", " << T.numNodes() << " nodes of ";
  if (!T.isRegular())
    OS << T.fewestRanksOnANode() << " to ";
  OS << T.ranksPerNode() << " ranks\n";
  OS << "  messages        " << R.InterNodeMessages << " between nodes (max "
     << R.MaxInterNodePerRank << " from a rank, max "
     << R.MaxInterNodePerNodeRound << " from a node in one round), "
     << R.IntraNodeMessages << " within nodes\n";
  OS << llvm::format("  deficiencies    latency %.4f, bandwidth %.4f, "
                     "congestion %.4f\n",
                     R.LatencyDeficiency, R.BandwidthDeficiency,
                     R.CongestionDeficiency);
  if (!O.PerRound)
    return;
  bool Torus = T.kind() == TopologyKind::Torus;
  OS << "  round   finishes at   max sent by a rank   between nodes   "
        "within"
     << (Torus ? "   hops   max link load" : "") << "\n";
  for (const RoundCost &RC : R.Rounds) {
    OS << llvm::format("  %5u   %11s   %18s   %13llu   %6llu", RC.Index,
                       formatSeconds(RC.Finish).c_str(),
                       formatBytes(RC.MaxBytesSent).c_str(),
                       (unsigned long long)RC.InterNodeMessages,
                       (unsigned long long)RC.IntraNodeMessages);
    if (Torus)
      OS << llvm::format("   %4u   %13s", RC.Hops,
                         formatBytes(RC.MaxLinkLoad).c_str());
    OS << "\n";
  }
}

int runCost(const CostOptions &O) {
  llvm::Expected<Plan> P = readPlanFile(O.File);
  if (!P)
    return reportError(P.takeError(), ErrorKind::Usage);
  // A prediction for a plan that does not do its collective is meaningless.
  if (!O.NoVerify) {
    VerifyOptions VO;
    VO.Mode = O.Mode;
    VerifyResult V = verifyPlan(*P, VO);
    if (!V.Valid) {
      printError("'" + O.File +
                 "' failed verification; no cost is predicted for it "
                 "(--no-verify to price it anyway):");
      for (const Diagnostic &D : V.Errors)
        llvm::errs() << "  " << D.str() << "\n";
      return ExitInvalid;
    }
  }
  CostReport R = evaluateCost(*P, O.Bytes.Value, O.Cost);
  O.Format == OutputFormat::Json ? printJson(O, *P, R) : printText(O, *P, R);
  return ExitSuccess;
}

} // namespace

void addCostCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<CostOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "cost", "Predict a plan's time under the alpha-beta-gamma model (a "
              "critical path over the plan's rounds; on a torus with link "
              "sharing under minimal routing, with an optional node "
              "injection limit) beside the lower bound");
  Cmd->add_option("file", O->File, "plan file")->required();
  addBytesOption(*Cmd, O->Bytes, "message size");
  addCostOptions(*Cmd, O->Cost);
  Cmd->add_flag("--per-round", O->PerRound, "show the per-round breakdown");
  Cmd->add_flag("--no-verify", O->NoVerify,
                "price the plan without verifying it first");
  addVerifyModeOption(*Cmd, "--verify-mode", O->Mode);
  addFormatOption(*Cmd, O->Format);
  Cmd->callback([O, &Exit] { Exit = runCost(*O); });
}

} // namespace collplan::cli
