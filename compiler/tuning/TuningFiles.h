//===- TuningFiles.h - Decision tables as MPI libraries' tuning files ----===//
//
// `collplan tune` turns the tuner's choice by message size into files other
// programs read: an Open MPI coll_tuned dynamic rules file and an MPICH JSON
// selection file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE). The same
// decision table (DecisionRange, whyText) feeds the plan directory's rules,
// which plan/dispatch writes (PlanDirectoryWriter.h). A library's file may
// name only that library's own algorithms, so its table
// is chosen among the collplan families that have a counterpart there
// (libraryFamilies) and mapped by name; the numbering is Open MPI 4.1's.
// Either file can also come from measurements of the library's own
// algorithms on the job's ranks (measuredOpenMpiRules and measuredMpichRules,
// which collplan_tune_mpi --openmpi-rules and --mpich-json feed).
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TUNING_TUNINGFILES_H
#define COLLPLAN_TUNING_TUNINGFILES_H

#include "plan/dispatch/MeasuredRules.h"
#include "plan/ir/Collective.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

/// Calls of [MinBytes, MaxBytes) bytes (the whole vector, as the interposer
/// counts them) run Family with Params.
struct DecisionRange {
  uint64_t MinBytes = 0;
  uint64_t MaxBytes = UINT64_MAX; ///< Exclusive; UINT64_MAX: no bound.
  std::string Family;
  std::map<std::string, std::string> Params;
  /// The sizes priced that chose it (inclusive) and the predicted times
  /// there: the "why" of the index.
  uint64_t FirstSize = 0, LastSize = 0;
  double FirstTime = 0, LastTime = 0;
  /// The plan file serving the range (plan directory index only).
  std::string PlanFile;
};

/// One collective's decision table for communicators of Ranks ranks.
struct DecisionTable {
  Collective Kind = Collective::Allreduce;
  uint32_t Ranks = 0;
  std::vector<DecisionRange> Ranges;
};

enum class MpiLibrary { OpenMpi, Mpich };

/// The collplan families with a counterpart among Library's algorithms for
/// Kind (empty: none, the file has no rules for Kind).
std::vector<std::string> libraryFamilies(MpiLibrary Library, Collective Kind);

/// One of an MPI library's own algorithms for a collective: its number and
/// name as the library's control variable knows them (Open MPI's
/// coll_tuned_<collective>_algorithm, MPICH's
/// MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM).
struct LibraryAlgorithm {
  int Id;
  std::string Name;
};
/// Open MPI 4.1's coll_tuned algorithm standing for Family, if any
/// (`ompi_info --param coll tuned --level 9 --all`).
std::optional<LibraryAlgorithm> openMpiAlgorithm(Collective Kind,
                                                 llvm::StringRef Family);
/// Open MPI's collective id (COLLTYPE_T) of Kind, if the rules file may
/// hold rules for it.
std::optional<int> openMpiCollectiveId(Collective Kind);
/// One rule of an Open MPI rules file: calls of at least MinBytes bytes (up
/// to the next rule's) run coll_tuned algorithm Algorithm, 0 being Open
/// MPI's own fixed decision; Why follows it as a comment.
struct OpenMpiRule {
  uint64_t MinBytes = 0;
  int Algorithm = 0;
  std::string Why;
};
struct OpenMpiRuleTable {
  Collective Kind = Collective::Allreduce;
  uint32_t Ranks = 0;
  std::vector<OpenMpiRule> Rules;
};
/// The file Open MPI 4.1 reads for Tables (each Kind must have an
/// openMpiCollectiveId), after Header's lines as comments.
std::string openMpiRulesText(llvm::ArrayRef<OpenMpiRuleTable> Tables,
                             llvm::StringRef Header);

/// Open MPI's rules from measurements on the job's ranks: in each of Sizes,
/// LibrarySeconds is Open MPI's own decision and Plans are its coll_tuned
/// algorithms, each forced (DispatchRule::File: its name in Algorithms).
/// Each size keeps Open MPI's own decision (algorithm 0) unless an
/// algorithm is faster by more than Noise (libraryWins), and speaks for the
/// calls geometrically nearer it (measuredRange); equal neighbours merge.
OpenMpiRuleTable
measuredOpenMpiRules(Collective Kind, uint32_t Ranks,
                     llvm::ArrayRef<SizeMeasurement> Sizes,
                     llvm::ArrayRef<LibraryAlgorithm> Algorithms, double Noise);

/// MPICH's algorithm name ("MPIR_Allreduce_intra_ring") for Family.
std::optional<std::string> mpichAlgorithm(Collective Kind,
                                          llvm::StringRef Family);
/// MPICH's name of Kind in its selection files and control variables
/// ("allreduce", "reduce_scatter_block"), if collplan writes its rules.
std::optional<std::string> mpichCollectiveName(Collective Kind);
/// The selection file's name of MPICH's intracommunicator algorithm Name
/// (its control variable's: "recursive_doubling") for Kind:
/// "MPIR_Allreduce_intra_recursive_doubling".
std::string mpichSelectionName(Collective Kind, llvm::StringRef Name);
/// One rule of an MPICH selection file: calls of at least MinBytes bytes
/// (up to the next rule's) run Algorithm (a selection-file name).
struct MpichRule {
  uint64_t MinBytes = 0;
  std::string Algorithm;
};
struct MpichRuleTable {
  Collective Kind = Collective::Allreduce;
  std::vector<MpichRule> Rules;
};
/// The MPICH 4.0 JSON selection tree for Tables (intracommunicators; each
/// Kind must have an mpichCollectiveName).
std::string mpichSelectionText(llvm::ArrayRef<MpichRuleTable> Tables);

/// MPICH's rules from measurements on the job's ranks, as
/// measuredOpenMpiRules (Plans' DispatchRule::File: the algorithm's control
/// variable name). The file cannot say "MPICH's own decision": it replaces
/// MPICH's own tree. Where no algorithm beats the library's own call by more
/// than Noise, the rule names the algorithm whose time is nearest that
/// call's, the one MPICH's own decision ran as far as the times tell (at
/// this level it picks among these algorithms).
MpichRuleTable measuredMpichRules(Collective Kind,
                                  llvm::ArrayRef<SizeMeasurement> Sizes,
                                  double Noise);

/// The rules file: comments (the numbering, where each range came from),
/// then the table Open MPI 4.1 reads. Tables of collectives Open MPI has no
/// rule for are listed in the comments only. Preamble is put in comments at
/// the top (the command that made it).
std::string openMpiRulesFile(llvm::ArrayRef<DecisionTable> Tables,
                             llvm::StringRef Preamble);
/// The MPICH JSON selection tree for Tables (intracommunicators).
std::string mpichSelectionJson(llvm::ArrayRef<DecisionTable> Tables);
/// Why R was chosen: "fastest predicted at 8 B .. 2 KiB (28 us .. 31 us)",
/// for the plan directory's index.
std::string whyText(const DecisionRange &R);

} // namespace collplan

#endif // COLLPLAN_TUNING_TUNINGFILES_H
