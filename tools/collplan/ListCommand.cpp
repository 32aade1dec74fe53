//===- ListCommand.cpp - collplan list ------------------------------------===//

#include "compiler/algorithms/Algorithm.h"
#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace collplan::cli {

namespace {

struct ListOptions {
  OutputFormat Format = OutputFormat::Text;
};

/// Every algorithm takes every topology; the cost model reads it (node-aware
/// and torus terms), and topology-aware algorithms also shape their plans.
const char *const Topologies = "flat, nodes:NxPPN, torus:AxB...";

void listText() {
  llvm::raw_ostream &OS = llvm::outs();
  for (const Algorithm *A : allAlgorithms()) {
    OS << A->name() << "\n    " << A->summary() << "\n    collectives:";
    for (Collective C : A->collectives())
      OS << " " << collectiveName(C);
    OS << "\n    topologies:  " << Topologies << "\n";
    std::vector<Restriction> Needs = A->restrictions();
    for (size_t I = 0; I < Needs.size(); ++I)
      OS << (I ? ", " : "    requires:    ") << Needs[I].str()
         << (I + 1 == Needs.size() ? "\n" : "");
    for (const ParamInfo &P : A->params()) {
      OS << "    --param " << P.Name << "=" << P.Domain.str();
      for (size_t I = 0; I < P.Only.size(); ++I)
        OS << (I ? ", " : " (") << collectiveName(P.Only[I])
           << (I + 1 == P.Only.size() ? " only)" : "");
      OS << "\n        " << P.Help << " (default: " << P.Default << ")\n";
    }
    OS << "\n";
  }
  OS << "'auto' (the default for compile) picks the algorithm the cost model "
        "predicts fastest.\n";
}

void listJson() {
  llvm::json::OStream J(llvm::outs(), 2);
  J.array([&] {
    for (const Algorithm *A : allAlgorithms())
      J.object([&] {
        J.attribute("name", A->name());
        J.attribute("summary", A->summary());
        J.attributeArray("collectives", [&] {
          for (Collective C : A->collectives())
            J.value(collectiveName(C));
        });
        J.attribute("topologies", Topologies);
        J.attributeArray("restrictions", [&] {
          for (const Restriction &R : A->restrictions())
            J.object([&] {
              J.attribute("requires", requirementName(R.Needs));
              if (!R.WhenParam.empty())
                J.attribute("when", R.WhenParam + "=" + R.WhenValue);
            });
        });
        J.attributeArray("params", [&] {
          for (const ParamInfo &P : A->params())
            J.object([&] {
              J.attribute("name", P.Name);
              J.attribute("help", P.Help);
              J.attribute("default", P.Default);
              if (!P.Only.empty())
                J.attributeArray("collectives", [&] {
                  for (Collective C : P.Only)
                    J.value(collectiveName(C));
                });
              if (P.Domain.Choices.empty()) {
                J.attribute("type", "integer");
                J.attribute("min", P.Domain.Min);
              } else {
                J.attributeArray("choices", [&] {
                  for (const std::string &C : P.Domain.Choices)
                    J.value(C);
                });
              }
            });
        });
      });
  });
  llvm::outs() << "\n";
}

} // namespace

void addListCommand(CLI::App &App, int &Exit) {
  auto Opts = std::make_shared<ListOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "list", "List the algorithms, the collectives and topologies each "
              "supports, and their parameters");
  addFormatOption(*Cmd, Opts->Format);
  Cmd->callback([Opts, &Exit] {
    Opts->Format == OutputFormat::Json ? listJson() : listText();
    Exit = ExitSuccess;
  });
}

} // namespace collplan::cli
