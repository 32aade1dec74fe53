//===- SelectCommand.cpp - collplan select --------------------------------===//
//
// select = the tuner's whole candidate list for one size, shown: every
// (family, setting) priced by the cost model (compile() already returns
// them all, fastest first, skipped ones with the reason), beside the lower
// bound. -o writes the best plan along compile's path (PlanOutput.h).
//
// Bytes sent per rank is rank 0's: pricing built its program for each
// candidate (cheap at any P), where the whole plan would be needed for the
// busiest rank's. For the symmetric families every rank sends as much.
//
//===----------------------------------------------------------------------===//

#include "compiler/cost/CostModel.h"
#include "compiler/select/Tuner.h"
#include "plan/ir/BlockLayout.h"
#include "plan/serialize/PlanFile.h"
#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"
#include "tools/collplan/PlanOutput.h"
#include "tools/collplan/RequestOptions.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace collplan::cli {

namespace {

struct SelectOptions {
  SelectRequestOptions Request;
  ByteSizeOption Bytes;
  std::string Output;
  VerifyMode Mode = VerifyMode::Auto;
  bool Quiet = false;
  OutputFormat Format = OutputFormat::Text;
};

/// A candidate as shown: the tuner's, with what select adds.
struct Row {
  const Candidate *C;
  std::optional<double> Rank0Sent;
};

/// Rank 0's bytes sent in C's plan, from the rank 0 program pricing built
/// (none when it did not: the family could not prepare it, or rank 0 alone
/// is past the operation limit).
std::optional<double> rankZeroSent(const Candidate &C, uint64_t Bytes) {
  const PlanHeader *H = C.Header  ? C.Header.get()
                        : C.Built ? &C.Built->Header
                                  : nullptr;
  const Program *P = C.RankZero ? C.RankZero.get()
                     : C.Built && !C.Built->Programs.empty()
                         ? &C.Built->Programs[0]
                         : nullptr;
  if (!H || !P)
    return std::nullopt;
  BlockLayout Layout(*H, Bytes);
  double Sent = 0;
  for (const Round &Rd : P->Rounds)
    for (const Op &O : Rd.Ops)
      if (O.Kind == OpKind::Send)
        Sent += double(Layout.size(O.Blocks));
  return Sent;
}

std::string paramText(const std::map<std::string, std::string> &Params) {
  std::string Out;
  for (const auto &[K, V] : Params)
    Out += (Out.empty() ? "" : " ") + K + "=" + V;
  return Out;
}

void printJson(const SelectOptions &O, const CompileRequest &Request,
               const Compilation &C, double Bound, llvm::ArrayRef<Row> Rows) {
  llvm::json::OStream J(llvm::outs(), 2);
  J.object([&] {
    J.attribute("collective", collectiveName(Request.Kind));
    J.attribute("ranks", int64_t(Request.ranks()));
    J.attribute("topology", Request.Topo.str());
    J.attribute("bytes", int64_t(Request.Bytes));
    J.attribute("lower_bound", Bound);
    J.attributeObject("best", [&] {
      J.attribute("algorithm", C.Chosen->name());
      J.attributeObject("params", [&] {
        for (const auto &[K, V] : C.best().Header.Params)
          J.attribute(K, V);
      });
    });
    J.attribute("output", O.Output.empty() ? llvm::json::Value(nullptr)
                                           : llvm::json::Value(O.Output));
    J.attributeArray("candidates", [&] {
      int64_t Rank = 0;
      for (const Row &R : Rows)
        J.object([&] {
          const Candidate &K = *R.C;
          J.attribute("algorithm", K.Algo->name());
          J.attributeObject("params", [&] {
            for (const auto &[Name, V] : K.Params)
              J.attribute(Name, V);
          });
          if (!K.Skipped.empty()) {
            J.attribute("rank", nullptr);
            J.attribute("skipped", K.Skipped);
            return;
          }
          J.attribute("rank", ++Rank);
          J.attribute("predicted_time", K.PredictedTime);
          J.attribute("ratio_to_lower_bound",
                      Bound > 0 ? K.PredictedTime / Bound : 1.0);
          J.attribute("rounds", int64_t(K.Rounds));
          J.attribute("rank0_bytes_sent", R.Rank0Sent
                                              ? llvm::json::Value(*R.Rank0Sent)
                                              : llvm::json::Value(nullptr));
          J.attribute("priced_from_rank0", K.FromRankZero);
        });
    });
  });
  llvm::outs() << "\n";
}

void printText(const SelectOptions &O, const CompileRequest &Request,
               const Compilation &C, double Bound, llvm::ArrayRef<Row> Rows) {
  llvm::raw_ostream &OS = llvm::outs();
  OS << collectiveName(Request.Kind) << " on P = " << Request.ranks() << " ("
     << Request.Topo.str() << "), " << formatBytes(double(Request.Bytes))
     << ": lower bound " << formatSeconds(Bound) << "\n";
  OS << "   #  " << llvm::left_justify("algorithm", 20)
     << llvm::right_justify("predicted", 12)
     << llvm::right_justify("x bound", 9) << llvm::right_justify("rounds", 8)
     << llvm::right_justify("rank 0 sends", 14) << "  parameters\n";
  int Rank = 0;
  for (const Row &R : Rows) {
    const Candidate &K = *R.C;
    if (!K.Skipped.empty())
      continue;
    OS << llvm::format("%4d", ++Rank) << "  "
       << llvm::left_justify(K.Algo->name(), 20)
       << llvm::right_justify(formatSeconds(K.PredictedTime), 12)
       << llvm::right_justify(
              llvm::formatv("{0:F2}", Bound > 0 ? K.PredictedTime / Bound : 1)
                  .str(),
              9)
       << llvm::format("%8u", K.Rounds)
       << llvm::right_justify(R.Rank0Sent ? formatBytes(*R.Rank0Sent) : "?", 14)
       << "  " << paramText(K.Params)
       << (K.FromRankZero ? "  (priced from rank 0, not built)" : "") << "\n";
  }
  for (const Row &R : Rows) {
    const Candidate &K = *R.C;
    if (K.Skipped.empty())
      continue;
    std::string Params = paramText(K.Params);
    OS << "   -  " << K.Algo->name() << (Params.empty() ? "" : " " + Params)
       << ": skipped: " << K.Skipped << "\n";
  }
  OS << "best: " << C.Chosen->name();
  for (const auto &[K, V] : C.best().Header.Params)
    OS << " " << K << "=" << V;
  if (!O.Output.empty())
    OS << "; wrote " << O.Output << " (verified, stamped)";
  OS << "\n";
}

int runSelect(const SelectOptions &O) {
  CompileRequest Request;
  std::vector<const Algorithm *> Families;
  if (std::optional<RequestProblem> F =
          buildSelectRequest(O.Request, "", O.Bytes.Value, Request, Families)) {
    printError(F->Message);
    return F->Code;
  }
  std::optional<PlanFormat> OutFormat;
  if (!O.Output.empty() && !(OutFormat = formatForPath(O.Output))) {
    printError("cannot tell the plan format of '" + O.Output +
               "': use a .yaml, .json or .cplan extension");
    return ExitUsage;
  }
  auto Pricing = progressReporter("pricing candidates");
  auto Building = progressReporter("building ranks");
  llvm::Expected<Compilation> Compiled = compile(
      Request, Families,
      [&](uint32_t Done, uint32_t Total) {
        if (!O.Quiet)
          Building(Done, Total);
      },
      [&](uint32_t Done, uint32_t Total) {
        if (!O.Quiet)
          Pricing(Done, Total);
      });
  if (!Compiled)
    return reportError(Compiled.takeError(), ErrorKind::CannotCompile);
  double Bound =
      lowerBound(Request.Kind, Request.Topo, Request.Bytes, Request.Cost);
  std::vector<Row> Rows;
  for (const Candidate &C : Compiled->Candidates)
    Rows.push_back({&C, C.Skipped.empty() ? rankZeroSent(C, Request.Bytes)
                                          : std::nullopt});

  Compiled->keepOnlyChosen();
  if (!O.Output.empty()) {
    const Candidate &Chosen = Compiled->Candidates[Compiled->ChosenIndex];
    if (int Code = writeVerifiedPlan(
            Compiled->best(), O.Output, *OutFormat, O.Mode, O.Quiet,
            Chosen.Verdict ? &*Chosen.Verdict : nullptr))
      return Code;
  }
  if (O.Format == OutputFormat::Json)
    printJson(O, Request, *Compiled, Bound, Rows);
  else if (!O.Quiet)
    printText(O, Request, *Compiled, Bound, Rows);
  return ExitSuccess;
}

} // namespace

void addSelectCommand(CLI::App &App, int &Exit) {
  auto O = std::make_shared<SelectOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "select", "Rank every algorithm and parameter setting for one message "
                "size by the cost model; -o writes the best plan");
  addSelectRequestOptions(*Cmd, O->Request);
  addBytesOption(*Cmd, O->Bytes, "message size to rank the candidates at");
  Cmd->add_option("-o,--output", O->Output,
                  "write the best plan (verified and stamped): .yaml, .json "
                  "or .cplan");
  addVerifyModeOption(*Cmd, "--verify-mode", O->Mode);
  Cmd->add_flag("--quiet,-q", O->Quiet, "print nothing on success (text)");
  addFormatOption(*Cmd, O->Format);
  Cmd->callback([O, &Exit] { Exit = runSelect(*O); });
}

} // namespace collplan::cli
