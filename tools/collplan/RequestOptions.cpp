//===- RequestOptions.cpp - The job shape compile, select and tune take ---===//

#include "tools/collplan/RequestOptions.h"

#include "plan/ir/Error.h"
#include "plan/ir/Hostfile.h"
#include "tools/collplan/Commands.h"
#include "tools/collplan/Options.h"

namespace collplan::cli {

void addRequestOptions(CLI::App &Cmd, RequestOptions &O) {
  Cmd.add_option("--collective,-c", O.Collective,
                 "allreduce, reduce-scatter, allgather, allgatherv, "
                 "broadcast or reduce")
      ->capture_default_str();
  Cmd.add_option("--ranks,-P", O.Ranks,
                 "number of ranks; may be omitted when the topology fixes it");
  Cmd.add_option("--topology,-t", O.Topology,
                 "flat, nodes:NxPPN or torus:AxB... (nodes of a torus)")
      ->capture_default_str();
  Cmd.add_option("--ppn", O.Ppn,
                 "ranks per node; with a torus, the torus describes the "
                 "nodes (torus:8x8 --ppn 4 is 256 ranks)");
  Cmd.add_option("--mapping", O.Mapping,
                 "rank to node mapping: block or round-robin")
      ->capture_default_str();
  Cmd.add_option("--hostfile", O.Hostfile,
                 "an irregular job's nodes: one host name per rank in rank "
                 "order (or Open MPI's 'NAME slots=N' lines); replaces "
                 "--topology, --ppn and --mapping");
  Cmd.add_option("--root", O.Root,
                 "root rank of broadcast and reduce (default 0)");
  addCostOptions(Cmd, O.Cost);
  Cmd.add_option("--param", O.Params,
                 "algorithm parameter NAME=VALUE (with several families, "
                 "those that know it take it); repeatable")
      ->type_name("NAME=VALUE");
  Cmd.add_flag("--non-commutative", O.NonCommutative,
               "the reduction operator is not commutative: fail if the "
               "plan needs one that is");
  Cmd.add_flag("--allow-rank-dependent-rounding", O.AllowRankDependentRounding,
               "when choosing among candidates, also take allreduce plans "
               "whose ranks combine a block in different orders (faster "
               "for some P; floating-point results may then differ in the "
               "last bits between ranks). A family named with -a and one "
               "setting (nap, circulant variant=census "
               "order=rank-dependent, swing "
               "variant=latency, ...) is always built as asked, with a "
               "warning when its ranks differ");
  Cmd.add_flag("--reproducible", O.Reproducible,
               "when choosing, take only plans whose every reduced element is "
               "combined in the canonical tree for P (recursive doubling's "
               "and halving's, docs/reproducibility.md): the same data then "
               "gives the same bits on every rank, at every message size, "
               "whichever such plan serves it. A family named with -a is "
               "built as asked, with a warning when it leaves that tree");
}

namespace {

/// At most this many bytes per rank in a hostfile: a long host name.
constexpr uint64_t HostfileBytesPerRank = 256;

/// The job --hostfile lists. It replaces --topology, --ppn and --mapping;
/// --ranks, if given, must count its ranks.
llvm::Expected<Topology> readHostfileTopology(const RequestOptions &O) {
  if (O.Topology != "flat" || O.Ppn || O.Mapping != "block")
    return makeError(ErrorKind::Usage,
                     "--hostfile gives the nodes and the rank -> node map: "
                     "it does not combine with --topology, --ppn or "
                     "--mapping");
  llvm::Expected<std::string> Text =
      readInputFile("--hostfile", O.Hostfile, MaxRanks * HostfileBytesPerRank);
  if (!Text)
    return Text.takeError();
  llvm::Expected<Topology> Topo = topologyFromHostfile(*Text, O.Hostfile);
  if (Topo && O.Ranks && *O.Ranks != Topo->ranks())
    return makeError(
        ErrorKind::Usage, "--hostfile '%s' lists %u ranks, --ranks says %llu",
        O.Hostfile.c_str(), Topo->ranks(), (unsigned long long)*O.Ranks);
  return Topo;
}

} // namespace

std::optional<RequestProblem> buildRequest(const RequestOptions &O,
                                           const std::string &Kind,
                                           uint64_t Bytes,
                                           CompileRequest &Request) {
  std::string Name = Kind.empty() ? O.Collective : Kind;
  std::optional<Collective> C = parseCollective(Name);
  if (!C)
    return RequestProblem{ExitUsage,
                          "unknown collective '" + Name +
                              "'; expected allreduce, reduce-scatter, "
                              "allgather, allgatherv, broadcast or reduce"};
  Request.Kind = *C;
  std::optional<RankMapping> Mapping = parseMapping(O.Mapping);
  if (!Mapping || *Mapping == RankMapping::Explicit)
    return RequestProblem{ExitUsage, "unknown --mapping '" + O.Mapping +
                                         "'; expected block or round-robin "
                                         "(an explicit map comes from "
                                         "--hostfile)"};
  llvm::Expected<Topology> Topo =
      O.Hostfile.empty() ? Topology::parse(O.Topology, O.Ranks, O.Ppn, *Mapping)
                         : readHostfileTopology(O);
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
  Request.Reproducible = O.Reproducible;
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
  return std::nullopt;
}

void addSelectRequestOptions(CLI::App &Cmd, SelectRequestOptions &O) {
  addRequestOptions(Cmd, O.Job);
  Cmd.add_option("--algorithms,-a", O.Algorithms,
                 "only these families (comma separated); default: every "
                 "family implementing the collective")
      ->delimiter(',');
}

std::optional<RequestProblem>
buildSelectRequest(const SelectRequestOptions &O, const std::string &Kind,
                   uint64_t Bytes, CompileRequest &Request,
                   std::vector<const Algorithm *> &Families) {
  if (std::optional<RequestProblem> P =
          buildRequest(O.Job, Kind, Bytes, Request))
    return P;
  // An allgatherv or alltoallv is chosen for equal counts (the plan serves
  // every size of them); other counts are compiled with --weights.
  Request.Weights.assign(weightCount(Request.Kind, Request.ranks()), 1);
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
                          "none of --algorithms implements " +
                              collectiveName(Request.Kind).str()};
  return std::nullopt;
}

} // namespace collplan::cli
