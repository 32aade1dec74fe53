//===- SelectOptions.cpp - The request `select` and `tune` share ----------===//

#include "tools/collplan/SelectOptions.h"

#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"

namespace collplan::cli {

void addSelectRequestOptions(CLI::App &Cmd, SelectRequestOptions &O) {
  Cmd.add_option("--collective,-c", O.Collective,
                 "allreduce, reduce-scatter, allgather, broadcast or reduce")
      ->capture_default_str();
  Cmd.add_option("--ranks,-P", O.Ranks,
                 "number of ranks; may be omitted when the topology fixes it");
  Cmd.add_option("--topology,-t", O.Topology,
                 "flat, nodes:NxPPN or torus:AxB... (nodes of a torus)")
      ->capture_default_str();
  Cmd.add_option("--ppn", O.Ppn, "ranks per node");
  Cmd.add_option("--mapping", O.Mapping,
                 "rank to node mapping: block or round-robin")
      ->capture_default_str();
  Cmd.add_option("--root", O.Root, "root rank of broadcast and reduce");
  addCostOptions(Cmd, O.Cost);
  Cmd.add_option("--param", O.Params,
                 "fix an algorithm parameter NAME=VALUE (families that know "
                 "it take it); repeatable")
      ->type_name("NAME=VALUE");
  Cmd.add_option("--algorithms,-a", O.Algorithms,
                 "only these families (comma separated); default: every "
                 "family implementing the collective")
      ->delimiter(',');
  Cmd.add_flag("--non-commutative", O.NonCommutative,
               "the reduction operator is not commutative");
  Cmd.add_flag("--allow-rank-dependent-rounding", O.AllowRankDependentRounding,
               "also choose allreduce plans whose ranks combine a block in "
               "different orders");
}

std::optional<RequestProblem>
buildSelectRequest(const SelectRequestOptions &O, const std::string &Kind,
                   uint64_t Bytes, CompileRequest &Request,
                   std::vector<const Algorithm *> &Families) {
  std::string Name = Kind.empty() ? O.Collective : Kind;
  std::optional<Collective> C = parseCollective(Name);
  if (!C)
    return RequestProblem{ExitUsage,
                          "unknown collective '" + Name +
                              "'; expected allreduce, reduce-scatter, "
                              "allgather, broadcast or reduce"};
  if (*C == Collective::Allgatherv)
    return RequestProblem{ExitUsage,
                          "allgatherv is not tuned: its plans depend on "
                          "every call's counts (compile it with --weights)"};
  Request.Kind = *C;
  std::optional<RankMapping> Mapping = parseMapping(O.Mapping);
  if (!Mapping)
    return RequestProblem{ExitUsage, "unknown --mapping '" + O.Mapping +
                                         "'; expected block or round-robin"};
  llvm::Expected<Topology> Topo =
      Topology::parse(O.Topology, O.Ranks, O.Ppn, *Mapping);
  if (!Topo) {
    ErrorReport R = takeErrorReport(Topo.takeError(), ErrorKind::Usage);
    return RequestProblem{exitCodeFor(R.Kind), R.Message};
  }
  Request.Topo = *Topo;
  Request.Root = O.Root;
  Request.Bytes = Bytes;
  Request.Cost = O.Cost;
  Request.CommutativeOperator = !O.NonCommutative;
  Request.IdenticalResults = !O.AllowRankDependentRounding;
  Request.Params.clear();
  for (const std::string &KV : O.Params) {
    auto [Key, Value] = llvm::StringRef(KV).split('=');
    if (Key.empty() || Value.empty() || KV.find('=') == std::string::npos)
      return RequestProblem{ExitUsage,
                            "--param '" + KV + "': expected NAME=VALUE"};
    if (!Request.Params.emplace(Key.str(), Value.str()).second)
      return RequestProblem{ExitUsage, "--param " + Key.str() +
                                           " is given twice; give each "
                                           "parameter once"};
  }
  Families.clear();
  for (const std::string &A : O.Algorithms) {
    const Algorithm *F = findAlgorithm(A);
    if (!F)
      return RequestProblem{ExitUsage, "unknown algorithm '" + A +
                                           "' (see 'collplan list')"};
    if (F->supports(Request.Kind))
      Families.push_back(F);
  }
  if (!O.Algorithms.empty() && Families.empty())
    return RequestProblem{ExitCannotCompile,
                          "none of --algorithms implements " + Name};
  return std::nullopt;
}

} // namespace collplan::cli
