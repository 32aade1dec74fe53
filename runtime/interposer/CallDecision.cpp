//===- CallDecision.cpp - Which path an interposed call takes -------------===//

#include "runtime/interposer/CallDecision.h"

#include "plan/serialize/PlanFile.h"

#include <cstdio>
#include <cstdlib>
#include <set>

using namespace collplan;
using namespace collplan::runtime;

namespace collplan::interposer {
namespace {

int verbosity() {
  static int Level = [] {
    const char *V = std::getenv("COLLPLAN_VERBOSE");
    return V ? std::atoi(V) : 0;
  }();
  return Level;
}

int worldRank() {
  int R = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &R);
  return R;
}

void log(const std::string &Message) {
  std::fprintf(stderr, "collplan: rank %d: %s\n", worldRank(), Message.c_str());
}

/// Logs once per distinct message at verbosity 1, always at 2.
void logOnce(const std::string &Message) {
  static std::set<std::string> Seen;
  if (verbosity() >= 2 || (verbosity() >= 1 && Seen.insert(Message).second))
    log(Message);
}

/// Logs once per distinct message whatever the verbosity, always at 2.
void warnOnce(const std::string &Message) {
  static std::set<std::string> Seen;
  if (verbosity() >= 2 || Seen.insert(Message).second)
    log(Message);
}

/// What the ranks agree on when a library rule covers the call: every
/// plan's hash differs from it (up to a 2^-64 chance).
constexpr uint64_t LibraryHash = 1;

/// The line a call the directory sends to the library on purpose logs.
const char *const TunedToLibrary =
    "tuned: the library's own call measured faster here";

PlanDirectory *planDirectory() {
  static std::unique_ptr<PlanDirectory> Dir = [] {
    std::unique_ptr<PlanDirectory> D;
    const char *Path = std::getenv("COLLPLAN_PLANS");
    if (!Path || !*Path)
      return D;
    llvm::Expected<PlanDirectory> Opened = PlanDirectory::open(Path);
    if (!Opened) {
      log(llvm::toString(Opened.takeError()) + "; using MPI's collectives");
      return D;
    }
    auto IsOne = [](const char *Name) {
      const char *V = std::getenv(Name);
      return V && std::string(V) == "1";
    };
    Opened->TrustUnverified = IsOne("COLLPLAN_TRUST_UNVERIFIED");
    // The user's word on rounding overrides the index's; asked for both,
    // the stricter holds.
    auto IsZero = [](const char *Name) {
      const char *V = std::getenv(Name);
      return V && std::string(V) == "0";
    };
    Rounding &Asked = Opened->AskedRounding;
    if (IsOne("COLLPLAN_ALLOW_RANK_DEPENDENT_ROUNDING"))
      Asked = Rounding::RankDependent;
    if (IsZero("COLLPLAN_REPRODUCIBLE") && Asked == Rounding::Reproducible)
      Asked = Rounding::Identical;
    if (IsOne("COLLPLAN_REPRODUCIBLE"))
      Asked = Rounding::Reproducible;
    if (verbosity() >= 1)
      log("COLLPLAN_PLANS=" + std::string(Path) + ": " +
          std::to_string(Opened->size()) + " plan file(s)");
    // A misnamed plan would silently never run: say so, once per job.
    if (worldRank() == 0)
      for (const std::string &Warning : Opened->misnamed())
        log(Warning);
    D = std::make_unique<PlanDirectory>(std::move(*Opened));
    return D;
  }();
  return Dir.get();
}

/// Whether some communicator has a pinned plan (pinPlan).
bool Pinning = false;

/// Whether calls may run from plans at all: a directory, or a pin.
bool servesPlans() { return Pinning || planDirectory(); }

std::set<CommState *> &liveStates() {
  static std::set<CommState *> States;
  return States;
}

/// At verbosity 1, one line per communicator from its rank 0: calls run from
/// plans, and calls left to MPI by reason.
void summarize(CommState &S) {
  if (S.Summarized)
    return;
  S.Summarized = true;
  uint64_t NoPlan = 0, Tuned = 0, Skipped = 0;
  for (const auto &Entry : S.Decisions) {
    NoPlan += Entry.second.NoPlanCalls;
    Tuned += Entry.second.LibraryCalls;
    Skipped += Entry.second.SkippedCalls;
  }
  if (NoPlan)
    S.Fallbacks["no plan fits"] += NoPlan;
  if (Skipped)
    S.Fallbacks["the agreement backed off"] += Skipped;
  if (Tuned)
    S.Fallbacks[TunedToLibrary] += Tuned;
  uint64_t ToMpi = 0;
  std::string Reasons;
  for (const auto &[Reason, N] : S.Fallbacks) {
    ToMpi += N;
    Reasons +=
        (Reasons.empty() ? " (" : ", ") + std::to_string(N) + " " + Reason;
  }
  if (verbosity() < 1 || S.Rank != 0 || S.FromPlans + ToMpi == 0)
    return;
  log(S.Name + ": " + std::to_string(S.FromPlans) + " call(s) from plans, " +
      std::to_string(ToMpi) + " by MPI's own collectives" +
      (Reasons.empty() ? "" : Reasons + ")"));
}

/// The communicator of the last call and its state. An application calls
/// its collectives on one communicator over and over, and
/// PMPI_Comm_get_attr is a locked hash lookup on every call; this makes the
/// repeated case a comparison. Cleared when that state is deleted, since a
/// freed communicator's handle may be reused by a new one.
MPI_Comm LastComm = MPI_COMM_NULL;
CommState *LastState = nullptr;

int deleteCommState(MPI_Comm Comm, int, void *Attr, void *) {
  auto *S = static_cast<CommState *>(Attr);
  if (S == LastState) {
    LastComm = MPI_COMM_NULL;
    LastState = nullptr;
  }
  // A freed handle may be reused, and its decisions go with it.
  LastToMpi.Repeats = nullptr;
  summarize(*S);
  // MPI_COMM_WORLD's attributes go at finalize, when freeing is too late.
  if (S->Dup != MPI_COMM_NULL && Comm != MPI_COMM_WORLD &&
      Comm != MPI_COMM_SELF)
    PMPI_Comm_free(&S->Dup);
  liveStates().erase(S);
  delete S;
  return MPI_SUCCESS;
}

CommState &stateOf(MPI_Comm Comm) {
  if (LastState && Comm == LastComm)
    return *LastState;
  static int Keyval = MPI_KEYVAL_INVALID;
  if (Keyval == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteCommState, &Keyval,
                            nullptr);
  void *Attr = nullptr;
  int Found = 0;
  PMPI_Comm_get_attr(Comm, Keyval, &Attr, &Found);
  if (Found) {
    LastComm = Comm;
    LastState = static_cast<CommState *>(Attr);
    return *LastState;
  }
  auto *S = new CommState;
  int Rank = 0, Size = 1, Inter = 0, NameLength = 0;
  PMPI_Comm_rank(Comm, &Rank);
  PMPI_Comm_size(Comm, &Size);
  PMPI_Comm_test_inter(Comm, &Inter);
  S->Rank = uint32_t(Rank);
  S->Size = uint32_t(Size);
  S->Inter = Inter != 0;
  char Name[MPI_MAX_OBJECT_NAME] = {};
  PMPI_Comm_get_name(Comm, Name, &NameLength);
  S->Name = (NameLength > 0 ? std::string(Name) : "a communicator") + " of " +
            std::to_string(Size) + " ranks";
  PMPI_Comm_set_attr(Comm, Keyval, S);
  liveStates().insert(S);
  LastComm = Comm;
  LastState = S;
  return *S;
}

/// Counts and logs a call left to MPI's own collective for Reason; every rank
/// of the call reaches the same reason.
void leaveToMpi(const Call &C, CommState &S, const std::string &Reason,
                bool Logged = false) {
  ++S.Fallbacks[Reason];
  if (verbosity() >= 2)
    log(C.describe(S) + ": " + Reason + ", calling " + C.mpiFunction());
  else if (verbosity() >= 1 && !Logged)
    logOnce(std::string(C.Function) + ": " + Reason + ", calling " +
            C.mpiFunction());
}

std::string hashName(uint64_t Hash) {
  if (Hash == LibraryHash)
    return "the library's own call (a measured rule)";
  return Hash ? planHashHex(Hash) : std::string("none (no plan)");
}

/// How a decision finds this rank's plan, warning through Warn.
using LookupFn = llvm::function_ref<std::optional<FoundPlan>(
    const std::function<void(const std::string &)> &Warn)>;

/// The decision for calls shaped like C on S's communicator, made the first
/// time one is seen: every rank looks its plan up (the directory's plan for
/// C.Key, or Lookup's), then one allreduce of the hash and its complement
/// gives the highest and lowest hash found.
Decision &decide(CommState &S, const Call &C,
                 std::optional<LookupFn> Lookup = std::nullopt) {
  if (S.LastDecision && S.LastDecision->first == C.Key)
    return S.LastDecision->second;
  auto It = S.Decisions.find(C.Key);
  if (It != S.Decisions.end()) {
    S.LastDecision = &*It;
    return It->second;
  }
  // A plan file the job cannot use is always worth a line (once).
  auto Warn = [&](const std::string &Warning) {
    warnOnce(std::string(C.Function) + ": " + Warning);
  };
  // Without a directory only a pinned communicator's calls come here.
  std::optional<FoundPlan> Found =
      S.Pinned           ? S.Pinned
      : !planDirectory() ? std::nullopt
      : Lookup           ? (*Lookup)(Warn)
                         : planDirectory()->find(C.Key, S.Rank, Warn);
  uint64_t Mine = !Found             ? 0
                  : Found->library() ? LibraryHash
                                     : Found->Slice->Hash;
  // Compared as signed integers, the top bit flipped so that the order is
  // the unsigned one: MPI_MAX on unsigned 64-bit types takes the signed
  // maximum in MPICH 4.0.2 (and on MPI_UNSIGNED_LONG in Open MPI 4.1.4).
  const uint64_t Flip = uint64_t(1) << 63;
  int64_t Ordered = int64_t(Mine ^ Flip);
  int64_t Sent[2] = {Ordered, ~Ordered}, Highest[2] = {0, 0};
  PMPI_Allreduce(Sent, Highest, 2, MPI_INT64_T, MPI_MAX, C.Comm);
  uint64_t Max = uint64_t(Highest[0]) ^ Flip,
           Min = uint64_t(~Highest[1]) ^ Flip;
  Decision D;
  if (Min != Max)
    D.Error =
        "the ranks found different plans for " + C.describe(S) +
        ": this rank " +
        (Found ? "has " + Found->Entry->Path + " (hash " + hashName(Mine) + ")"
               : std::string("has no plan that fits")) +
        "; the hashes on the communicator range from " + hashName(Min) +
        " to " + hashName(Max) +
        ". Give every rank the same COLLPLAN_PLANS directory";
  else
    D.Found = Found;
  if (verbosity() >= 1 && D.Found && D.Found->library())
    log(C.describe(S) + ": " + TunedToLibrary + ", calling " + C.mpiFunction());
  else if (verbosity() >= 1 && D.Found)
    log(C.describe(S) + ": plan " + Found->Entry->Path + " (" +
        Found->Slice->Header.Algorithm + ", hash " + planHashHex(Mine) + ")");
  else if (verbosity() >= 1 && D.Error.empty())
    log(C.describe(S) + ": no plan fits, calling " + C.mpiFunction());
  // Asked for reproducible sums, the user hears of each shape the library
  // serves instead, whatever the verbosity.
  bool Rounds = C.Key.Type && C.Key.Op && roundsByOrder(*C.Key.Type, *C.Key.Op);
  if (Rounds && D.Error.empty() && !D.Found && planDirectory() &&
      planDirectory()->AskedRounding == Rounding::Reproducible && S.Rank == 0 &&
      verbosity() < 1)
    log(C.describe(S) + ": no reproducible plan fits, calling " +
        C.mpiFunction() + " (its bits may differ from other sizes')");
  S.LastDecision = &*S.Decisions.emplace(C.Key, std::move(D)).first;
  return S.LastDecision->second;
}

/// Fails the call on every rank whose ranks found different plans.
int failDisagreement(const Call &C, const Decision &D) {
  // Every rank of the call is here: let each say why before the first
  // error handler that aborts (MPICH's default) ends the job.
  log(std::string(C.Function) + ": " + D.Error);
  PMPI_Barrier(C.Comm);
  PMPI_Comm_call_errhandler(C.Comm, MPI_ERR_OTHER);
  return MPI_ERR_OTHER;
}

/// Runs D's plan for C, making the communicator's duplicate, transport and
/// the plan's executor on first use.
int runPlan(Call &C, CommState &S, Decision &D, RunFn Run) {
  if (!S.Transport) {
    // A duplicate, not MPI_Comm_create_group, though Open MPI 4.1's dup
    // leaves libnbc's poller registered until finalize: create_group agrees
    // on the context id with messages in the parent's own tag space, where
    // the program's wildcard receives could take them
    // (docs/measured-tuning.md).
    PMPI_Comm_dup(C.Comm, &S.Dup);
    S.Transport = std::make_unique<MpiTransport>(S.Dup);
  }
  if (!D.Ex) {
    const RankSlice &P = *D.Found->Slice;
    std::unique_ptr<Executor> &Ex = S.Executors[&P];
    if (!Ex)
      Ex = std::make_unique<Executor>(P.Header, P.Prog, P.Rank);
    D.Ex = Ex.get();
  }
  ++S.FromPlans;
  if (verbosity() >= 2)
    log(C.describe(S) + ": plan " + D.Found->Entry->Path);
  if (llvm::Error Err = Run(*D.Ex, *S.Transport, S)) {
    log(std::string(C.Function) + ": " + llvm::toString(std::move(Err)));
    PMPI_Comm_call_errhandler(C.Comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
  }
  return MPI_SUCCESS;
}

} // namespace

LastCallToMpi LastToMpi;

void refuse(const Call &C, const std::string &Reason) {
  if (servesPlans())
    leaveToMpi(C, stateOf(C.Comm), Reason);
}

std::optional<int> fromPlan(Call &C, RunFn Run) {
  if (!servesPlans())
    return std::nullopt;
  CommState &S = stateOf(C.Comm);
  C.Key.Ranks = S.Size;
  if (S.Inter) {
    leaveToMpi(C, S, "an intercommunicator");
    return std::nullopt;
  }
  Decision &D = decide(S, C);
  if (!D.Error.empty())
    return failDisagreement(C, D);
  // Calls MPI serves: a repeat goes straight there (every call is logged
  // at verbosity 2).
  if ((!D.Found || D.Found->library()) && C.Raw && verbosity() < 2) {
    LastToMpi = {*C.Raw, D.Found ? &D.LibraryCalls : &D.NoPlanCalls};
  }
  if (!D.Found) {
    // As leaveToMpi(C, S, "no plan fits", /*Logged=*/true), counted in D.
    ++D.NoPlanCalls;
    if (verbosity() >= 2)
      log(C.describe(S) + ": no plan fits, calling " + C.mpiFunction());
    return std::nullopt;
  }
  if (D.Found->library()) {
    ++D.LibraryCalls;
    if (verbosity() >= 2)
      log(C.describe(S) + ": " + TunedToLibrary + ", calling " +
          C.mpiFunction());
    return std::nullopt;
  }
  return runPlan(C, S, D, Run);
}

std::optional<int> fromAgreedPlan(Call &C, PartFitFn PartFit, RunFn Run) {
  if (!servesPlans())
    return std::nullopt;
  CommState &S = stateOf(C.Comm);
  C.Key.Ranks = S.Size;
  C.Key.Bytes = 0; // The communicator's candidate, for calls of any size.
  C.AnySize = true;
  if (S.Inter) {
    leaveToMpi(C, S, "an intercommunicator");
    return std::nullopt;
  }
  Decision &D = decide(S, C, LookupFn([&](const auto &Warn) {
                         return planDirectory()->findForRanks(
                             C.Key.Kind, S.Size, S.Rank, Warn);
                       }));
  if (!D.Error.empty())
    return failDisagreement(C, D);
  if (!D.Found) {
    ++D.NoPlanCalls;
    if (verbosity() >= 2)
      log(C.describe(S) + ": no plan fits, calling " + C.mpiFunction());
    return std::nullopt;
  }
  // Backed off (fromAgreedPlan's comment): to MPI without agreeing.
  if (D.SkipCalls) {
    --D.SkipCalls;
    ++D.SkippedCalls;
    return std::nullopt;
  }
  // Every call: each rank's verdict on its own part and the size it implies
  // (0: its part is empty at any size), agreed by one allreduce of three
  // integers: any rank refusing (1: its counts, 2: a size outside the
  // rule's range), the largest size, the smallest.
  std::optional<uint64_t> Mine = PartFit(D.Found->Slice->Header, S.Rank);
  const DispatchRule &Rule = D.Found->Entry->Rule;
  int64_t Verdict = !Mine ? 1
                    : *Mine && (*Mine < Rule.MinBytes || *Mine >= Rule.MaxBytes)
                        ? 2
                        : 0;
  int64_t Sent[3] = {Verdict, Mine && *Mine ? int64_t(*Mine) : -1,
                     Mine && *Mine ? -int64_t(*Mine) : INT64_MIN};
  int64_t Agreed[3] = {0, 0, 0};
  PMPI_Allreduce(Sent, Agreed, 3, MPI_INT64_T, MPI_MAX, C.Comm);
  // Some rank knows a size whenever Agreed[1] >= 0, so Agreed[2] is then
  // minus the smallest.
  const char *Refused =
      Agreed[0] == 1            ? "the ranks' counts are not the plan's weights"
      : Agreed[1] < 0           ? "nothing to move"
      : Agreed[1] != -Agreed[2] ? "the ranks' counts are not the plan's weights"
      : Agreed[0] == 2          ? "outside the plan's sizes"
                                : nullptr;
  if (Refused) {
    leaveToMpi(C, S, Refused);
    // Every rank saw the same Agreed: the same row, the same gaps.
    if (++D.AgreedToMpi >= AgreedToMpiRow) {
      D.NextGap =
          std::min(std::max<uint64_t>(D.NextGap * 2, 1), MaxAgreementGap);
      D.SkipCalls = D.NextGap;
    }
    return std::nullopt;
  }
  D.AgreedToMpi = 0;
  D.NextGap = 0;
  C.Key.Bytes = uint64_t(Agreed[1]);
  C.AnySize = false;
  return runPlan(C, S, D, Run);
}

void pinPlan(MPI_Comm Comm, const FoundPlan &Plan) {
  Pinning = true;
  stateOf(Comm).Pinned = Plan;
}

void summarizeAll() {
  for (CommState *S : liveStates())
    summarize(*S);
}

} // namespace collplan::interposer
