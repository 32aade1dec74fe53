//===- TuningFiles.cpp - Decision tables as MPI libraries' tuning files --===//

#include "compiler/tuning/TuningFiles.h"

#include "plan/ir/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <cctype>
#include <climits>
#include <cmath>

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

std::optional<LibraryAlgorithm> openMpiAlgorithm(Collective Kind,
                                                 llvm::StringRef Family) {
  const Counterpart *C = counterpart(Kind, Family);
  if (!C || !C->OpenMpiId)
    return std::nullopt;
  return LibraryAlgorithm{C->OpenMpiId, C->OpenMpiName};
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
      std::optional<LibraryAlgorithm> A = openMpiAlgorithm(T.Kind, R.Family);
      // libraryFamilies() limited the choice, so every family maps.
      W.Rules.push_back({R.MinBytes, A ? A->Id : 0,
                         rangeText(R) + ": " + (A ? A->Name : "ignore") +
                             " (collplan " + R.Family + paramText(R.Params) +
                             "; " + whyText(R) + ")"});
    }
  }
  return openMpiRulesText(Written, Header);
}

namespace {

/// A run of measured sizes naming the same algorithm (Name; empty: the
/// library's own decision) from MinBytes, and the times that chose it.
struct MeasuredRule {
  uint64_t MinBytes = 0;
  std::string Name;
  std::string Why;
};

/// At each of Sizes the fastest forced algorithm if it beats the library's
/// own call by more than Noise (libraryWins), else Own(M); each size speaks
/// for the calls geometrically nearer it (measuredRange), equal neighbours
/// merged. Library names the library's own call in the why.
std::vector<MeasuredRule>
measuredRuleRuns(llvm::ArrayRef<SizeMeasurement> Sizes, double Noise,
                 llvm::StringRef Library,
                 llvm::function_ref<std::string(const SizeMeasurement &)> Own) {
  std::vector<MeasuredRule> Out;
  for (size_t I = 0; I < Sizes.size(); ++I) {
    const SizeMeasurement &M = Sizes[I];
    const auto *Best = M.fastestPlan();
    MeasuredRule R{measuredRange(Sizes, I).first, "", ""};
    std::string Why = "measured at " + bytesText(M.Bytes) + ": ";
    std::string Forced =
        Best ? Best->first.File + " " + timeText(Best->second) : "none";
    std::string Mine =
        Library.str() + "'s own decision " + timeText(M.LibrarySeconds);
    if (Best && !libraryWins(M, Noise)) {
      R.Name = Best->first.File;
      Why += Forced + ", " + Mine;
    } else {
      R.Name = Own(M);
      Why += Mine + ", the fastest forced " + Forced;
    }
    if (!Out.empty() && Out.back().Name == R.Name) {
      Out.back().Why += "; " + Why;
      continue;
    }
    R.Why = std::move(Why);
    Out.push_back(std::move(R));
  }
  return Out;
}

} // namespace

OpenMpiRuleTable measuredOpenMpiRules(
    Collective Kind, uint32_t Ranks, llvm::ArrayRef<SizeMeasurement> Sizes,
    llvm::ArrayRef<LibraryAlgorithm> Algorithms, double Noise) {
  OpenMpiRuleTable T{Kind, Ranks, {}};
  for (MeasuredRule &R :
       measuredRuleRuns(Sizes, Noise, "Open MPI", [](const SizeMeasurement &) {
         return std::string();
       })) {
    int Id = 0; // Open MPI's own decision.
    if (!R.Name.empty()) {
      auto A = llvm::find_if(Algorithms, [&](const LibraryAlgorithm &A) {
        return A.Name == R.Name;
      });
      assert(A != Algorithms.end() && "a measured algorithm Open MPI lacks");
      Id = A->Id;
    }
    T.Rules.push_back({R.MinBytes, Id, std::move(R.Why)});
  }
  return T;
}

MpichRuleTable measuredMpichRules(Collective Kind,
                                  llvm::ArrayRef<SizeMeasurement> Sizes,
                                  double Noise) {
  // MPICH's own decision, as the algorithm timed nearest it.
  auto Nearest = [](const SizeMeasurement &M) {
    const std::pair<DispatchRule, double> *Near = nullptr;
    for (const auto &P : M.Plans)
      if (!Near || std::abs(P.second - M.LibrarySeconds) <
                       std::abs(Near->second - M.LibrarySeconds))
        Near = &P;
    return Near ? Near->first.File : std::string();
  };
  MpichRuleTable T{Kind, {}};
  for (MeasuredRule &R : measuredRuleRuns(Sizes, Noise, "MPICH", Nearest))
    if (!R.Name.empty()) // A size no algorithm served names none.
      T.Rules.push_back({R.MinBytes, mpichSelectionName(Kind, R.Name)});
  if (!T.Rules.empty())
    T.Rules.front().MinBytes = 0;
  return T;
}

std::optional<std::string> mpichCollectiveName(Collective Kind) {
  switch (Kind) {
  case Collective::Allreduce:
    return "allreduce";
  case Collective::Allgather:
    return "allgather";
  case Collective::Broadcast:
    return "bcast";
  case Collective::Reduce:
    return "reduce";
  case Collective::ReduceScatter: // MPI_Reduce_scatter_block's.
    return "reduce_scatter_block";
  default:
    return std::nullopt;
  }
}

std::string mpichSelectionName(Collective Kind, llvm::StringRef Name) {
  std::string Collective = *mpichCollectiveName(Kind);
  Collective[0] = char(std::toupper(Collective[0]));
  return "MPIR_" + Collective + "_intra_" + Name.str();
}

std::string mpichSelectionText(llvm::ArrayRef<MpichRuleTable> Tables) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  llvm::json::OStream J(OS, 2);
  J.object([&] {
    for (const MpichRuleTable &T : Tables) {
      if (T.Rules.empty())
        continue;
      // MPICH's csel: the whole vector is avg_msg_size for allreduce, bcast
      // and reduce, total_msg_size for allgather and reduce_scatter_block.
      bool Total = T.Kind == Collective::Allgather ||
                   T.Kind == Collective::ReduceScatter;
      const char *Size = Total ? "total_msg_size" : "avg_msg_size";
      auto BySize = [&] {
        for (size_t I = 0; I < T.Rules.size(); ++I) {
          // MPICH reads the bound with atoi: past INT_MAX, "any".
          bool Last = I + 1 == T.Rules.size() ||
                      T.Rules[I + 1].MinBytes - 1 > uint64_t(INT_MAX);
          std::string Key =
              std::string(Size) +
              (Last ? "=any"
                    : "<=" + std::to_string(T.Rules[I + 1].MinBytes - 1));
          J.attributeObject(Key, [&] {
            J.attributeObject("algorithm=" + T.Rules[I].Algorithm, [] {});
          });
          if (Last)
            break;
        }
      };
      J.attributeObject("collective=" + *mpichCollectiveName(T.Kind), [&] {
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

std::string mpichSelectionJson(llvm::ArrayRef<DecisionTable> Tables) {
  std::vector<MpichRuleTable> Written;
  for (const DecisionTable &T : Tables) {
    // The cost model's table chooses among libraryFamilies, which MPICH has
    // for these four.
    if (T.Kind != Collective::Allreduce && T.Kind != Collective::Allgather &&
        T.Kind != Collective::Broadcast && T.Kind != Collective::Reduce)
      continue;
    MpichRuleTable &W = Written.emplace_back();
    W.Kind = T.Kind;
    for (const DecisionRange &R : T.Ranges)
      W.Rules.push_back(
          {R.MinBytes, mpichAlgorithm(T.Kind, R.Family).value_or("auto")});
  }
  return mpichSelectionText(Written);
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
