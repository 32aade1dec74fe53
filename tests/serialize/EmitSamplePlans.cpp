//===- EmitSamplePlans.cpp - Sample plans for the schema test -------------===//
//
// Writes sample plans as NAME.yaml and NAME.json into the directory given, for
// validate_plan_schema.py to check against schemas/plan.schema.json with an
// independent validator.
//
//===----------------------------------------------------------------------===//

#define DOCTEST_CONFIG_DISABLE
#include "PlanSamples.h"

#include "plan/serialize/PlanFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace collplan;

static bool emit(llvm::StringRef Dir, llvm::StringRef Name, const Plan &P) {
  for (PlanFormat F : {PlanFormat::Yaml, PlanFormat::Json}) {
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, Name + "." + formatName(F));
    if (llvm::Error E = writePlanFile(P, Path, F)) {
      llvm::errs() << llvm::toString(std::move(E)) << "\n";
      return false;
    }
  }
  return true;
}

static std::optional<Plan> compile(llvm::StringRef Name, Collective C,
                                   Topology T) {
  CompileRequest Request;
  Request.Kind = C;
  Request.Topo = T;
  llvm::Expected<Plan> P = compilePlan(*findAlgorithm(Name), Request);
  if (!P) {
    llvm::errs() << llvm::toString(P.takeError()) << "\n";
    return std::nullopt;
  }
  return std::move(*P);
}

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    llvm::errs() << "usage: emit-sample-plans DIRECTORY\n";
    return 2;
  }
  llvm::StringRef Dir = Argv[1];
  bool Ok = emit(Dir, "hand-built", test::handBuiltPlan());
  struct Sample {
    const char *Name;
    Collective Kind;
    Topology Topo;
  } Samples[] = {
      {"ring-allreduce-5", Collective::Allreduce, Topology::flat(5)},
      {"ring-allgather-nodes", Collective::Allgather,
       Topology::nodes(2, 3, RankMapping::RoundRobin)},
      {"ring-reduce-scatter-torus", Collective::ReduceScatter,
       Topology::torus({2, 2}, 2)},
      {"ring-allreduce-1", Collective::Allreduce, Topology::flat(1)},
      {"ring-allreduce-hostfile", Collective::Allreduce,
       Topology::explicitNodes({0, 0, 1, 2, 2, 2})},
  };
  for (const Sample &S : Samples) {
    std::optional<Plan> P = compile("ring", S.Kind, S.Topo);
    Ok = P && emit(Dir, S.Name, *P) && Ok;
  }
  return Ok ? 0 : 1;
}
