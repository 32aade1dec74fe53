//===- CalibrationPlans.cpp - The plans calibration times -----------------===//

#include "compiler/select/CalibrationPlans.h"

#include "compiler/algorithms/Algorithm.h"
#include "plan/ir/Error.h"

namespace collplan {

llvm::Expected<std::vector<Plan>> calibrationPlans(const Topology &Topo) {
  struct Choice {
    const char *Family;
    Collective Kind;
    std::map<std::string, std::string> Params;
  };
  const Choice Choices[] = {
      {"ring", Collective::Allreduce, {}},
      {"recursive-doubling", Collective::Allreduce, {}},
      {"rabenseifner", Collective::Allreduce, {}},
      {"binomial", Collective::Broadcast, {}},
      {"circulant", Collective::Broadcast, {{"blocks", "4"}}},
  };
  std::vector<Plan> Plans;
  for (const Choice &C : Choices) {
    const Algorithm *A = findAlgorithm(C.Family);
    if (!A)
      return makeError(ErrorKind::CannotCompile, "no algorithm called %s",
                       C.Family);
    CompileRequest Req;
    Req.Kind = C.Kind;
    Req.Topo = Topo;
    Req.Params = C.Params;
    if (C.Kind == Collective::Broadcast)
      Req.Root = 0;
    llvm::Expected<Plan> P = compilePlan(*A, Req);
    if (!P)
      return P.takeError();
    Plans.push_back(std::move(*P));
  }
  return Plans;
}

} // namespace collplan
