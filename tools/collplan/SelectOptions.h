//===- SelectOptions.h - The request `select` and `tune` share ---*- C++
//-*-===//
//
// Both commands ask the tuner about one job shape: the collective(s), the
// topology, the cost parameters, the families to consider and the
// parameters fixed by hand; only the message size differs (one size for
// select, a range for tune).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TOOLS_SELECTOPTIONS_H
#define COLLPLAN_TOOLS_SELECTOPTIONS_H

#include "compiler/algorithms/Algorithm.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace collplan::cli {

struct SelectRequestOptions {
  std::string Collective = "allreduce";
  std::optional<uint64_t> Ranks;
  std::string Topology = "flat";
  std::optional<uint64_t> Ppn;
  std::string Mapping = "block";
  std::optional<uint32_t> Root;
  CostParams Cost;
  std::vector<std::string> Params;
  std::vector<std::string> Algorithms;
  bool NonCommutative = false;
  bool AllowRankDependentRounding = false;
};

/// --collective, --ranks, --topology, --ppn, --mapping, --root, the cost
/// flags (with --params), --param, --algorithms, --non-commutative,
/// --allow-rank-dependent-rounding.
void addSelectRequestOptions(CLI::App &Cmd, SelectRequestOptions &O);

/// A usage problem: exit code and message.
struct RequestProblem {
  int Code;
  std::string Message;
};

/// The request for collective Kind (O.Collective when empty) at Bytes, and
/// the families to try (empty: every family implementing it).
std::optional<RequestProblem>
buildSelectRequest(const SelectRequestOptions &O, const std::string &Kind,
                   uint64_t Bytes, CompileRequest &Request,
                   std::vector<const Algorithm *> &Families);

} // namespace collplan::cli

#endif // COLLPLAN_TOOLS_SELECTOPTIONS_H
