//===- MeasuredMpichRulesTest.cpp - MPICH's selection from measurements --===//
//
// Hand-worked: four measured sizes of an allreduce, MPICH's own decision
// against three forced algorithms (MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM's
// names), noise band 5 %, and a reduce_scatter_block table; the rules and
// the whole JSON text MPICH 4.0 reads are worked out here from the times.
//
//===----------------------------------------------------------------------===//

#include "compiler/tuning/TuningFiles.h"

#include <doctest/doctest.h>

using namespace collplan;

namespace {

SizeMeasurement size(uint64_t Bytes, double Own,
                     std::vector<std::pair<std::string, double>> Forced) {
  SizeMeasurement M;
  M.Bytes = Bytes;
  M.LibrarySeconds = Own;
  for (auto &[Name, Seconds] : Forced) {
    DispatchRule R;
    R.File = Name;
    M.Plans.emplace_back(R, Seconds);
  }
  return M;
}

} // namespace

TEST_CASE("MPICH's selection names of its intracommunicator algorithms") {
  CHECK(mpichSelectionName(Collective::Allreduce, "recursive_doubling") ==
        "MPIR_Allreduce_intra_recursive_doubling");
  CHECK(mpichSelectionName(Collective::ReduceScatter, "recursive_halving") ==
        "MPIR_Reduce_scatter_block_intra_recursive_halving");
  CHECK(mpichSelectionName(Collective::Broadcast, "binomial") ==
        "MPIR_Bcast_intra_binomial");
}

TEST_CASE("each size names the fastest algorithm where it beats MPICH's own "
          "decision by more than the noise band, else the one timed nearest "
          "MPICH's own") {
  std::vector<SizeMeasurement> Sizes = {
      // Nothing 5 % faster than 10 us: MPICH's own, nearest recursive
      // doubling (10.2 us, 0.2 us away; smp 1 us away).
      size(1024, 10e-6,
           {{"smp", 11e-6},
            {"recursive_doubling", 10.2e-6},
            {"reduce_scatter_allgather", 13e-6}}),
      // Reduce-scatter + allgather 80 us against 100 us.
      size(65536, 100e-6,
           {{"smp", 120e-6},
            {"recursive_doubling", 150e-6},
            {"reduce_scatter_allgather", 80e-6}}),
      // 398 us against 400 us: inside the band, MPICH's own; nearest it
      // reduce-scatter + allgather, which merges with the rule above.
      size(262144, 400e-6,
           {{"smp", 500e-6},
            {"recursive_doubling", 600e-6},
            {"reduce_scatter_allgather", 398e-6}}),
      // Smp 0.8 ms against 1 ms.
      size(1048576, 1e-3,
           {{"smp", 0.8e-3},
            {"recursive_doubling", 2e-3},
            {"reduce_scatter_allgather", 0.9e-3}}),
  };
  MpichRuleTable T = measuredMpichRules(Collective::Allreduce, Sizes, 0.05);
  // Boundaries: the geometric middles sqrt(1024 * 65536) = 8192 and
  // sqrt(262144 * 1048576) = 524288.
  REQUIRE(T.Rules.size() == 3);
  CHECK(T.Rules[0].MinBytes == 0);
  CHECK(T.Rules[0].Algorithm == "MPIR_Allreduce_intra_recursive_doubling");
  CHECK(T.Rules[1].MinBytes == 8192);
  CHECK(T.Rules[1].Algorithm ==
        "MPIR_Allreduce_intra_reduce_scatter_allgather");
  CHECK(T.Rules[2].MinBytes == 524288);
  CHECK(T.Rules[2].Algorithm == "MPIR_Allreduce_intra_smp");

  // Reduce_scatter_block goes by total_msg_size; one rule is "any".
  MpichRuleTable R{Collective::ReduceScatter,
                   {{0, "MPIR_Reduce_scatter_block_intra_pairwise"}}};
  // The tree MPICH 4.0 reads, written out by hand: an upper bound
  // (inclusive) one below the next rule's first size, the last "any";
  // allreduce's table under built-in operators, recursive doubling for
  // user-defined ones.
  const char *Want = R"({
  "collective=allreduce": {
    "comm_type=intra": {
      "is_op_built_in=yes": {
        "avg_msg_size<=8191": {
          "algorithm=MPIR_Allreduce_intra_recursive_doubling": {}
        },
        "avg_msg_size<=524287": {
          "algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}
        },
        "avg_msg_size=any": {
          "algorithm=MPIR_Allreduce_intra_smp": {}
        }
      },
      "is_op_built_in=no": {
        "algorithm=MPIR_Allreduce_intra_recursive_doubling": {}
      }
    }
  },
  "collective=reduce_scatter_block": {
    "comm_type=intra": {
      "total_msg_size=any": {
        "algorithm=MPIR_Reduce_scatter_block_intra_pairwise": {}
      }
    }
  }
}
)";
  CHECK(mpichSelectionText({T, R}) == Want);
}
