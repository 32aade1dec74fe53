//===- CompileCommand.cpp - collplan compile ------------------------------===//
//
// compile = (select or build) -> verify -> report -> write. Nothing is
// written unless the plan verified (or --no-verify was given), and the file is
// written whole or not at all.
//
//===----------------------------------------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "compiler/cost/CostModel.h"
#include "compiler/select/Tuner.h"
#include "compiler/verify/Verifier.h"
#include "plan/ir/Error.h"
#include "plan/serialize/PlanFile.h"
#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"
#include "tools/collplan/PlanOutput.h"
#include "tools/collplan/RequestOptions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace collplan::cli {

namespace {

struct CompileOptions {
  RequestOptions Job;
  std::string Algorithm = "auto";
  ByteSizeOption Bytes;
  std::string Weights;
  std::string WeightsFile;
  std::string Output;
  bool NoVerify = false;
  VerifyMode Mode = VerifyMode::Auto;
  bool Explain = false;
  bool Quiet = false;
  OutputFormat Format = OutputFormat::Text;
};

/// A failure with the exit code it maps to.
using Failure = RequestProblem;

double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

/// At most this many bytes per weight (per rank, or per pair for alltoallv)
/// in a weights file: a 20-digit count and its separators, with room for
/// padding.
constexpr uint64_t WeightsFileBytesPerRank = 24;
constexpr uint64_t WeightsFileSlack = 4096;

/// "1,2,3", or a file of counts separated by commas and any whitespace (one
/// per line, or several per line). Ranks bounds the file's size.
std::optional<Failure> parseWeights(const CompileOptions &O, uint64_t Parts,
                                    std::vector<uint64_t> &Out) {
  std::string Text = O.Weights;
  if (!O.WeightsFile.empty()) {
    llvm::Expected<std::string> File =
        readInputFile("--weights-file", O.WeightsFile,
                      Parts * WeightsFileBytesPerRank + WeightsFileSlack);
    if (!File)
      return Failure{ExitUsage, llvm::toString(File.takeError())};
    Text = std::move(*File);
  }
  llvm::StringRef Rest(Text);
  const char *Separators = ", \t\n\v\f\r";
  while (true) {
    Rest = Rest.ltrim(Separators);
    if (Rest.empty())
      break;
    size_t End = Rest.find_first_of(Separators);
    llvm::StringRef W = Rest.substr(0, End);
    Rest = Rest.substr(std::min(End, Rest.size()));
    uint64_t V = 0;
    if (W.getAsInteger(10, V)) {
      if (W.size() > 40)
        W = W.substr(0, 40);
      return Failure{ExitUsage,
                     "weight '" + W.str() + "' is not a non-negative integer"};
    }
    if (Out.size() >= std::max<uint64_t>(Parts, MaxRanks))
      return Failure{ExitUsage, "more weights than the rank limit"};
    Out.push_back(V);
  }
  return std::nullopt;
}

std::optional<Failure> buildRequest(const CompileOptions &O,
                                    CompileRequest &Request) {
  if (std::optional<Failure> F =
          collplan::cli::buildRequest(O.Job, "", O.Bytes.Value, Request))
    return F;
  if (std::optional<Failure> F = parseWeights(
          O, weightCount(Request.Kind, Request.ranks()), Request.Weights))
    return F;
  // Without weights an allgatherv or alltoallv plan serves equal counts, at
  // any size.
  if (Request.Weights.empty())
    Request.Weights.assign(weightCount(Request.Kind, Request.ranks()), 1);
  return std::nullopt;
}

void printSummary(const CompileOptions &O, const Plan &P,
                  const std::optional<VerifyResult> &Verified,
                  double VerifySeconds, double CompileSeconds,
                  const CostReport &Cost, llvm::ArrayRef<Candidate> Ranked) {
  const PlanHeader &H = P.Header;
  if (O.Format == OutputFormat::Json) {
    llvm::json::OStream J(llvm::outs(), 2);
    J.object([&] {
      J.attribute("collective", collectiveName(H.Kind));
      J.attribute("algorithm", H.Algorithm);
      J.attributeObject("params", [&] {
        for (const auto &[K, V] : H.Params)
          J.attribute(K, V);
      });
      J.attribute("ranks", int64_t(H.Ranks));
      J.attribute("topology", H.Topo.str());
      J.attribute("ppn", int64_t(H.Topo.ranksPerNode()));
      J.attribute("blocks", int64_t(H.Blocks));
      J.attribute("rounds", int64_t(Cost.Rounds.size()));
      J.attribute("requires_commutative", H.RequiresCommutative);
      J.attribute("bytes", int64_t(O.Bytes.Value));
      J.attribute("predicted_time", Cost.Time);
      J.attribute("lower_bound", Cost.LowerBound);
      J.attribute("compile_seconds", CompileSeconds);
      if (Verified) {
        J.attribute("verified", Verified->Valid);
        J.attribute("verify_mode", verifyModeName(Verified->Stats.ModeUsed));
        J.attribute("identical_results", Verified->IdenticalResults);
        J.attribute("reproducible", Verified->Reproducible);
        J.attribute("verify_seconds", VerifySeconds);
      } else {
        J.attribute("verified", nullptr);
      }
      J.attribute("output", O.Output.empty() ? llvm::json::Value(nullptr)
                                             : llvm::json::Value(O.Output));
      if (!Ranked.empty())
        J.attributeArray("candidates", [&] {
          for (const Candidate &C : Ranked)
            J.object([&] {
              J.attribute("algorithm", C.Algo->name());
              J.attributeObject("params", [&] {
                for (const auto &[K, V] : C.Params)
                  J.attribute(K, V);
              });
              if (C.Skipped.empty())
                J.attribute("predicted_time", C.PredictedTime);
              else
                J.attribute("skipped", C.Skipped);
            });
        });
    });
    llvm::outs() << "\n";
    return;
  }
  llvm::raw_ostream &OS = llvm::outs();
  OS << collectiveName(H.Kind) << " with " << H.Algorithm;
  for (const auto &[K, V] : H.Params)
    OS << " " << K << "=" << V;
  OS << " on P = " << H.Ranks << " (" << H.Topo.str();
  if (H.Topo.kind() == TopologyKind::Torus && H.Topo.ranksPerNode() > 1)
    OS << ", ppn " << H.Topo.ranksPerNode();
  OS << "): " << Cost.Rounds.size() << " rounds, " << H.Blocks << " blocks, "
     << (!reduces(H.Kind)        ? "no operator (nothing is combined)"
         : H.RequiresCommutative ? "needs a commutative operator"
                                 : "any associative operator")
     << "\n";
  OS << "  compiled in " << formatSeconds(CompileSeconds);
  if (Verified)
    OS << "; verified (" << verifyModeName(Verified->Stats.ModeUsed) << ") in "
       << formatSeconds(VerifySeconds);
  else
    OS << "; not verified (--no-verify)";
  if (Verified && !Verified->IdenticalResults)
    OS << "\n  results may differ in the last bits between ranks (floating "
          "point): "
       << Verified->DifferentOrders;
  if (Verified && reduces(H.Kind))
    OS << (Verified->Reproducible
               ? "\n  reproducible: every reduced block follows the canonical "
                 "tree, at any message size"
               : "\n  not reproducible across message sizes: " +
                     Verified->NonCanonical);
  OS << "\n  predicted time for " << formatBytes(double(O.Bytes.Value)) << ": "
     << formatSeconds(Cost.Time)
     << "   lower bound: " << formatSeconds(Cost.LowerBound) << " (x"
     << llvm::format("%.2f",
                     Cost.LowerBound > 0 ? Cost.Time / Cost.LowerBound : 1.0)
     << ")\n";
  if (!O.Output.empty())
    OS << "  wrote " << O.Output << "\n";
}

/// The sizes `--explain` shows the best choice at: 8 B to 1 GiB.
std::vector<uint64_t> explainSizes() {
  std::vector<uint64_t> Sizes;
  for (uint64_t B = 8; B <= (uint64_t(1) << 30); B *= 2)
    Sizes.push_back(B);
  return Sizes;
}

/// Where the best candidate changes with the message size: the L/B switch
/// point of a family, the crossover between families. The compilation
/// priced every candidate at these sizes already.
void printChoiceBySize(Compilation &C) {
  std::vector<SizeRange> Ranges = choiceBySize(C, explainSizes());
  llvm::outs() << "best by message size (these plans, priced at each size):\n";
  for (const SizeRange &R : Ranges) {
    llvm::outs() << "  " << llvm::right_justify(formatBytes(double(R.From)), 9)
                 << " .. " << llvm::left_justify(formatBytes(double(R.To)), 9)
                 << "  " << R.Algo->name();
    for (const auto &[K, V] : R.Params)
      llvm::outs() << " " << K << "=" << V;
    llvm::outs() << "\n";
  }
}

int runCompile(const CompileOptions &O) {
  CompileRequest Request;
  if (std::optional<Failure> F = buildRequest(O, Request)) {
    printError(F->Message);
    return F->Code;
  }
  std::optional<PlanFormat> OutFormat;
  if (!O.Output.empty() && !(OutFormat = formatForPath(O.Output))) {
    printError("cannot tell the plan format of '" + O.Output +
               "': use a .yaml, .json or .cplan extension");
    return ExitUsage;
  }

  auto Start = std::chrono::steady_clock::now();
  auto Building = progressReporter("building ranks");
  auto Progress = [&](uint32_t Built, uint32_t Total) {
    if (!O.Quiet)
      Building(Built, Total);
  };
  // One pipeline for both: the tuner prices the candidates of one family
  // (its open parameters) or of every family (auto), and builds the best.
  std::vector<const Algorithm *> Families;
  if (O.Algorithm != "auto") {
    const Algorithm *Named = findAlgorithm(O.Algorithm);
    if (!Named) {
      std::string Known;
      for (const Algorithm *A : allAlgorithms())
        Known += " " + A->name().str();
      printError("unknown algorithm '" + O.Algorithm + "'; known: auto" +
                 Known);
      return ExitUsage;
    }
    Families.push_back(Named);
  }
  auto Pricing = progressReporter("pricing candidates");
  // --explain's table by size comes from the same pricing pass.
  std::vector<uint64_t> MoreSizes;
  if (O.Explain)
    MoreSizes = explainSizes();
  llvm::Expected<Compilation> Compiled = compile(
      Request, Families, Progress,
      [&](uint32_t Done, uint32_t Total) {
        if (!O.Quiet)
          Pricing(Done, Total);
      },
      MoreSizes);
  if (!Compiled)
    return reportError(Compiled.takeError(), ErrorKind::CannotCompile);
  llvm::ArrayRef<Candidate> Ranked;
  if (Compiled->Candidates.size() > 1)
    Ranked = Compiled->Candidates;
  const Algorithm *Algo = Compiled->Chosen;
  double CompileSeconds = secondsSince(Start);

  if (O.Explain) {
    for (const auto &[Name, Takers] : Compiled->ParamTakers)
      llvm::outs() << "--param " << Name << " taken by "
                   << llvm::join(Takers, ", ")
                   << " (families without it ignore it)\n";
    if (!Ranked.empty()) {
      llvm::outs() << candidateTable(Ranked);
      printChoiceBySize(*Compiled);
    }
    std::string Why = Algo->explain(Request, Compiled->best().Header);
    if (!Why.empty())
      llvm::outs() << Why << (llvm::StringRef(Why).endswith("\n") ? "" : "\n");
  }
  // The other candidates' plans are not needed any more.
  Compiled->keepOnlyChosen();
  Plan &P = Compiled->best();
  const Candidate &Chosen = Compiled->Candidates[Compiled->ChosenIndex];

  // A text plan over the readers' limit could never be read back: refused
  // before verifying.
  std::optional<VerifyResult> Verified;
  double VerifySeconds = 0;
  FinalizedPlan Finalized;
  if (!O.NoVerify) {
    if (int Code =
            finalizeOrReport(P, OutFormat, O.Mode, O.Quiet, Finalized,
                             Chosen.Verdict ? &*Chosen.Verdict : nullptr))
      return Code;
    Verified = Finalized.Verdict;
    VerifySeconds = Finalized.VerifySeconds;
  } else if (OutFormat) {
    if (llvm::Error E = checkPlanFileSize(P, *OutFormat))
      return reportError(std::move(E), ErrorKind::Usage);
    Finalized.Bytes = encodePlan(P, *OutFormat);
  }

  CostReport Cost = Chosen.Report
                        ? *Chosen.Report
                        : evaluateCost(P, Request.Bytes, Request.Cost);
  if (!O.Output.empty())
    if (int Code = writeFinalized(Finalized, O.Output))
      return Code;
  if (!O.Quiet || O.Format == OutputFormat::Json)
    printSummary(O, P, Verified, VerifySeconds, CompileSeconds, Cost, Ranked);
  return ExitSuccess;
}

} // namespace

void addCompileCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<CompileOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "compile", "Compile a plan, verify it and write it (-o); prints the "
                 "predicted time beside the lower bound");
  addRequestOptions(*Cmd, O->Job);
  Cmd->add_option("--algorithm,-a", O->Algorithm,
                  "an algorithm from 'collplan list', or auto: the one the "
                  "cost model predicts fastest")
      ->capture_default_str();
  addBytesOption(*Cmd, O->Bytes,
                 "message size the cost model and tuned parameters use");
  Cmd->add_option("--weights", O->Weights,
                  "allgatherv: per-rank element counts, w0,w1,...; "
                  "alltoallv: P*P per-pair counts, sender-major");
  Cmd->add_option(
         "--weights-file", O->WeightsFile,
         "allgatherv: a file of per-rank counts (alltoallv: per-pair), "
         "separated by commas or whitespace (one per line is fine); at most "
         "24 bytes per count")
      ->excludes("--weights");
  Cmd->add_option("-o,--output", O->Output,
                  "plan file to write: .yaml, .json or .cplan (binary); "
                  "omitted: compile, verify and report only");
  Cmd->add_flag("--no-verify", O->NoVerify, "skip verification");
  addVerifyModeOption(*Cmd, "--verify-mode", O->Mode);
  Cmd->add_flag("--explain", O->Explain,
                "show why the algorithm and its parameters were chosen");
  Cmd->add_flag("--quiet,-q", O->Quiet, "print nothing on success");
  addFormatOption(*Cmd, O->Format);
  Cmd->callback([O, &Exit] { Exit = runCompile(*O); });
}

} // namespace collplan::cli
