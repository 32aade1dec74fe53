//===- TuningFiles.cpp - Decision tables as MPI libraries' tuning files --===//

#include "compiler/tuning/TuningFiles.h"

#include "plan/ir/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <climits>

namespace collplan {

namespace {

/// One row of the map from a collplan family to a library's algorithm.
struct Counterpart {
  Collective Kind;
  const char *Family;
  int OpenMpiId; ///< 0: none in Open MPI.
  const char *OpenMpiName;
  const char *MpichName; ///< nullptr: none in MPICH.
};

// Open MPI 4.1.4 (Debian), from `ompi_info --param coll tuned --level 9
// --all`; MPICH 4.0.2 (Debian), whose selection parser aborts on a name it
// does not know: it has no ring allreduce (MPICH 4.1 added one), so none is
// written. Only algorithms that do what the
// collplan family does (the same messages between the same ranks on a flat
// machine) are listed: a library's file then says what the cost model chose
// among the library's own algorithms.
constexpr Counterpart Counterparts[] = {
    {Collective::Allreduce, "recursive-doubling", 3, "recursive_doubling",
     "MPIR_Allreduce_intra_recursive_doubling"},
    {Collective::Allreduce, "ring", 4, "ring", nullptr},
    {Collective::Allreduce, "rabenseifner", 6, "rabenseifner",
     "MPIR_Allreduce_intra_reduce_scatter_allgather"},
    {Collective::Allreduce, "smp", 0, nullptr, "MPIR_Allreduce_intra_smp"},
    {Collective::Allgather, "recursive-doubling", 3, "recursive_doubling",
     "MPIR_Allgather_intra_recursive_doubling"},
    {Collective::Allgather, "ring", 4, "ring", "MPIR_Allgather_intra_ring"},
    {Collective::Broadcast, "binomial", 6, "binomial",
     "MPIR_Bcast_intra_binomial"},
    {Collective::Reduce, "binomial", 5, "binomial",
     "MPIR_Reduce_intra_binomial"},
};

const Counterpart *counterpart(Collective Kind, llvm::StringRef Family) {
  for (const Counterpart &C : Counterparts)
    if (C.Kind == Kind && Family == C.Family)
      return &C;
  return nullptr;
}

std::string bytesText(uint64_t Bytes) {
  static const char *Units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  unsigned U = 0;
  uint64_t V = Bytes;
  while (U + 1 < std::size(Units) && V >= 1024 && V % 1024 == 0) {
    V /= 1024;
    ++U;
  }
  return std::to_string(V) + " " + Units[U];
}

std::string timeText(double Seconds) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  if (Seconds >= 1)
    OS << llvm::format("%.3f s", Seconds);
  else if (Seconds >= 1e-3)
    OS << llvm::format("%.3f ms", Seconds * 1e3);
  else
    OS << llvm::format("%.3f us", Seconds * 1e6);
  return Out;
}

std::string paramText(const std::map<std::string, std::string> &Params) {
  std::string Out;
  for (const auto &[K, V] : Params)
    Out += " " + K + "=" + V;
  return Out;
}

std::string rangeText(const DecisionRange &R) {
  return bytesText(R.MinBytes) + " .. " +
         (R.MaxBytes == UINT64_MAX ? std::string("inf")
                                   : bytesText(R.MaxBytes));
}

void commentLines(llvm::raw_ostream &OS, llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef, 8> Lines;
  Text.split(Lines, '\n');
  for (llvm::StringRef L : Lines)
    if (!L.empty())
      OS << "# " << L << "\n";
}

} // namespace

std::vector<std::string> libraryFamilies(MpiLibrary Library, Collective Kind) {
  std::vector<std::string> Out;
  for (const Counterpart &C : Counterparts)
    if (C.Kind == Kind &&
        (Library == MpiLibrary::OpenMpi ? C.OpenMpiId != 0
                                        : C.MpichName != nullptr))
      Out.push_back(C.Family);
  return Out;
}

std::optional<OpenMpiAlgorithm> openMpiAlgorithm(Collective Kind,
                                                 llvm::StringRef Family) {
  const Counterpart *C = counterpart(Kind, Family);
  if (!C || !C->OpenMpiId)
    return std::nullopt;
  return OpenMpiAlgorithm{C->OpenMpiId, C->OpenMpiName};
}

std::optional<int> openMpiCollectiveId(Collective Kind) {
  // COLLTYPE_T in ompi/mca/coll/base/coll_base_functions.h.
  switch (Kind) {
  case Collective::Allgather:
    return 0;
  case Collective::Allreduce:
    return 2;
  case Collective::Broadcast:
    return 7;
  case Collective::Reduce:
    return 11;
  case Collective::ReduceScatter: // MPI_Reduce_scatter_block's rules.
    return 13;
  default:
    return std::nullopt;
  }
}

std::optional<std::string> mpichAlgorithm(Collective Kind,
                                          llvm::StringRef Family) {
  const Counterpart *C = counterpart(Kind, Family);
  if (!C || !C->MpichName)
    return std::nullopt;
  return std::string(C->MpichName);
}

std::string openMpiRulesText(llvm::ArrayRef<OpenMpiRuleTable> Tables,
                             llvm::StringRef Header) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  commentLines(OS, Header);
  OS << R"(#
# Use: mpirun --mca coll_tuned_use_dynamic_rules 1 \
#             --mca coll_tuned_dynamic_rules_filename THIS_FILE ...
#
# Format (Open MPI 4.1): the number of collectives; for each, its id and
# the number of communicator sizes; for each size, the size and the number
# of message-size rules; each rule: the least message size in bytes it
# applies to, the algorithm (0: Open MPI's own fixed decision), the fan
# in/out (0: Open MPI's default) and the segment size (0: unsegmented). A
# rule holds up to the next rule's size; the first starts at 0; a
# communicator takes the rules of the largest size not above its own.
# Message size: the whole vector (count x type size) for allreduce, bcast,
# reduce and reduce_scatter_block; the gathered total for allgather.
# Collective ids (COLLTYPE_T): 0 allgather, 2 allreduce, 7 bcast, 11 reduce,
# 13 reduce_scatter_block.
#
)";
  OS << Tables.size() << "   # collectives\n";
  for (const OpenMpiRuleTable &T : Tables) {
    OS << *openMpiCollectiveId(T.Kind) << "   # " << collectiveName(T.Kind)
       << "\n1   # communicator sizes\n"
       << T.Ranks << "   # ranks\n"
       << T.Rules.size() << "   # message sizes\n";
    for (const OpenMpiRule &R : T.Rules)
      OS << R.MinBytes << " " << R.Algorithm << " 0 0   # " << R.Why << "\n";
  }
  return Out;
}

std::string openMpiRulesFile(llvm::ArrayRef<DecisionTable> Tables,
                             llvm::StringRef Preamble) {
  std::string Header;
  llvm::raw_string_ostream OS(Header);
  OS << "Open MPI coll_tuned dynamic rules, written by collplan tune.\n"
     << Preamble << R"(
Algorithm numbers (Open MPI 4.1.4, ompi_info --param coll tuned --level 9):
  allreduce: 1 basic_linear, 2 nonoverlapping, 3 recursive_doubling,
             4 ring, 5 segmented_ring, 6 rabenseifner
  allgather: 1 linear, 2 bruck, 3 recursive_doubling, 4 ring,
             5 neighbor, 6 two_proc
  bcast:     1 basic_linear, 2 chain, 3 pipeline, 4 split_binary_tree,
             5 binary_tree, 6 binomial, 7 knomial, 8 scatter_allgather,
             9 scatter_allgather_ring
  reduce:    1 linear, 2 chain, 3 pipeline, 4 binary, 5 binomial,
             6 in-order_binary, 7 rabenseifner
Each range was chosen by collplan's cost model among the collplan
families that do what an Open MPI algorithm does: recursive-doubling (3),
ring (4), rabenseifner (6) for allreduce; recursive-doubling (3), ring (4)
for allgather; binomial for bcast (6) and reduce (5).
)";
  std::vector<OpenMpiRuleTable> Written;
  for (const DecisionTable &T : Tables) {
    if (!openMpiCollectiveId(T.Kind) || T.Ranges.empty()) {
      OS << collectiveName(T.Kind)
         << ": no rules (no Open MPI counterpart of its families); Open "
            "MPI's fixed decision applies\n";
      continue;
    }
    OpenMpiRuleTable &W = Written.emplace_back();
    W.Kind = T.Kind;
    W.Ranks = T.Ranks;
    for (const DecisionRange &R : T.Ranges) {
      std::optional<OpenMpiAlgorithm> A = openMpiAlgorithm(T.Kind, R.Family);
      // libraryFamilies() limited the choice, so every family maps.
      W.Rules.push_back({R.MinBytes, A ? A->Id : 0,
                         rangeText(R) + ": " + (A ? A->Name : "ignore") +
                             " (collplan " + R.Family + paramText(R.Params) +
                             "; " + whyText(R) + ")"});
    }
  }
  return openMpiRulesText(Written, Header);
}

OpenMpiRuleTable measuredOpenMpiRules(
    Collective Kind, uint32_t Ranks, llvm::ArrayRef<SizeMeasurement> Sizes,
    llvm::ArrayRef<OpenMpiAlgorithm> Algorithms, double Noise) {
  OpenMpiRuleTable T{Kind, Ranks, {}};
  for (size_t I = 0; I < Sizes.size(); ++I) {
    const SizeMeasurement &M = Sizes[I];
    const auto *Best = M.fastestPlan();
    OpenMpiRule R{measuredRange(Sizes, I).first, 0, ""};
    std::string Why = "measured at " + bytesText(M.Bytes) + ": ";
    std::string Forced =
        Best ? Best->first.File + " " + timeText(Best->second) : "none";
    if (Best && !libraryWins(M, Noise)) {
      auto A = llvm::find_if(Algorithms, [&](const OpenMpiAlgorithm &A) {
        return A.Name == Best->first.File;
      });
      assert(A != Algorithms.end() && "a measured algorithm Open MPI lacks");
      R.Algorithm = A->Id;
      Why += Forced + ", Open MPI's own decision " + timeText(M.LibrarySeconds);
    } else {
      Why += "Open MPI's own decision " + timeText(M.LibrarySeconds) +
             ", the fastest forced " + Forced;
    }
    if (!T.Rules.empty() && T.Rules.back().Algorithm == R.Algorithm) {
      T.Rules.back().Why += "; " + Why;
      continue;
    }
    R.Why = std::move(Why);
    T.Rules.push_back(std::move(R));
  }
  return T;
}

std::string mpichSelectionJson(llvm::ArrayRef<DecisionTable> Tables) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  llvm::json::OStream J(OS, 2);
  J.object([&] {
    for (const DecisionTable &T : Tables) {
      if (T.Ranges.empty())
        continue;
      bool Total = T.Kind == Collective::Allgather;
      const char *Name = T.Kind == Collective::Broadcast   ? "bcast"
                         : T.Kind == Collective::Allgather ? "allgather"
                         : T.Kind == Collective::Reduce    ? "reduce"
                         : T.Kind == Collective::Allreduce ? "allreduce"
                                                           : nullptr;
      if (!Name)
        continue;
      const char *Size = Total ? "total_msg_size" : "avg_msg_size";
      auto BySize = [&] {
        for (size_t I = 0; I < T.Ranges.size(); ++I) {
          const DecisionRange &R = T.Ranges[I];
          std::optional<std::string> A = mpichAlgorithm(T.Kind, R.Family);
          // MPICH reads the bound with atoi: past INT_MAX, "any".
          bool Last =
              I + 1 == T.Ranges.size() || R.MaxBytes - 1 > uint64_t(INT_MAX);
          std::string Key =
              std::string(Size) +
              (Last ? "=any" : "<=" + std::to_string(R.MaxBytes - 1));
          J.attributeObject(Key, [&] {
            J.attributeObject("algorithm=" + A.value_or("auto"), [] {});
          });
          if (Last)
            break;
        }
      };
      J.attributeObject(std::string("collective=") + Name, [&] {
        J.attributeObject("comm_type=intra", [&] {
          if (T.Kind != Collective::Allreduce)
            return BySize();
          // MPICH's selection checks no algorithm's restrictions: its
          // reduce-scatter + allgather asserts a built-in operator and smp
          // a commutative one (seen aborting under MPICH 4.0.2). A
          // user-defined operator gets recursive doubling, which takes any.
          J.attributeObject("is_op_built_in=yes", BySize);
          J.attributeObject("is_op_built_in=no", [&] {
            J.attributeObject(
                "algorithm=MPIR_Allreduce_intra_recursive_doubling", [] {});
          });
        });
      });
    }
  });
  OS << "\n";
  return Out;
}

std::string whyText(const DecisionRange &R) {
  std::string Why = "fastest predicted at " + bytesText(R.FirstSize);
  if (R.LastSize != R.FirstSize)
    Why += " .. " + bytesText(R.LastSize);
  // Times are known where a plan was built (not for the libraries' files).
  if (R.FirstTime > 0) {
    Why += " (" + timeText(R.FirstTime);
    if (R.LastSize != R.FirstSize)
      Why += " .. " + timeText(R.LastTime);
    Why += ")";
  }
  return Why;
}

} // namespace collplan
