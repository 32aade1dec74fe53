//===- RequestOptions.h - Job shape for compile, select, tune ---*- C++ -*-===//
//
// Every command that asks the tuner for plans describes one job the same
// way: the collective, the ranks and their nodes (a topology, or a
// hostfile's explicit map), the root, the cost parameters, the parameters
// fixed by hand and what the operator allows. Each command adds its own
// options beside these (compile: one algorithm and the counts; select and
// tune: the families to compare and the message sizes).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TOOLS_REQUESTOPTIONS_H
#define COLLPLAN_TOOLS_REQUESTOPTIONS_H

#include "compiler/algorithms/Algorithm.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace collplan::cli {

struct RequestOptions {
  std::string Collective = "allreduce";
  std::optional<uint64_t> Ranks;
  std::string Topology = "flat";
  std::optional<uint64_t> Ppn;
  std::string Mapping = "block";
  std::string Hostfile;
  std::optional<uint32_t> Root;
  CostParams Cost;
  std::vector<std::string> Params;
  bool NonCommutative = false;
  bool AllowRankDependentRounding = false;
  bool Reproducible = false;
};

/// --collective, --ranks, --topology, --ppn, --mapping, --hostfile, --root,
/// the cost flags (with --params), --param, --non-commutative,
/// --allow-rank-dependent-rounding, --reproducible.
void addRequestOptions(CLI::App &Cmd, RequestOptions &O);

/// A usage problem: exit code and message.
struct RequestProblem {
  int Code;
  std::string Message;
};

/// The request O describes for collective Kind (O.Collective when empty) at
/// Bytes.
std::optional<RequestProblem> buildRequest(const RequestOptions &O,
                                           const std::string &Kind,
                                           uint64_t Bytes,
                                           CompileRequest &Request);

/// What select and tune take: the job and the families to compare.
struct SelectRequestOptions {
  RequestOptions Job;
  std::vector<std::string> Algorithms;
};

/// addRequestOptions and --algorithms.
void addSelectRequestOptions(CLI::App &Cmd, SelectRequestOptions &O);

/// buildRequest, refusing allgatherv (its plans depend on every call's
/// counts), and the families to try (empty: every family implementing it).
std::optional<RequestProblem>
buildSelectRequest(const SelectRequestOptions &O, const std::string &Kind,
                   uint64_t Bytes, CompileRequest &Request,
                   std::vector<const Algorithm *> &Families);

} // namespace collplan::cli

#endif // COLLPLAN_TOOLS_REQUESTOPTIONS_H
