//===- Interposer.cpp - libcollplan_mpi*.so: MPI collectives from plans ---===//
//
// Preloaded into an unmodified MPI program (mpirun -x LD_PRELOAD=... -x
// COLLPLAN_PLANS=DIR), this library serves MPI_Allreduce,
// MPI_Reduce_scatter_block, MPI_Allgather, MPI_Allgatherv, MPI_Bcast and
// MPI_Reduce through the MPI profiling interface (the symbols themselves are
// in EntryPoints.cpp). The same source is built once per MPI ABI found:
// libcollplan_mpi.so against Open MPI, libcollplan_mpich.so against MPICH
// (MpiAbi.h). A call runs from a plan in DIR (plan/dispatch names the
// files), with the executor over the MPI transport on a private duplicate of
// the call's communicator, or calls the PMPI_ version. A process reads only
// its own rank's program of a plan (with the header and the whole plan's
// hash: RankSlice.h), so its memory does not grow with P.
//
// Every rank of a call must take the same path, or the job hangs. So the
// choice depends only on what MPI guarantees is equal on every rank of a
// call: the communicator, the size in bytes of the type signature, the
// counts, the root, and for reductions the datatype and operator. A buffer
// whose datatype is not plain contiguous bytes is packed into a staging area
// (MpiTypes.h) instead of being sent down another path. The first call of
// each shape on a communicator looks its plan up on every rank, and the ranks
// agree on it with one allreduce of the plan's hash: all run it, all call
// PMPI_, or, when they found different plans (or one found none), all fail
// with a message naming both. The decision is kept per communicator, so a
// later call of that shape costs a map lookup (a key comparison when it
// repeats the communicator and shape of the call before it).
//
// COLLPLAN_VERBOSE=1 logs to stderr each decision (once per communicator and
// call shape), each reason for calling MPI's own collective once, and a
// summary per communicator when it is freed or at MPI_Finalize;
// COLLPLAN_VERBOSE=2 logs every call. Nothing is formatted when logging is
// off. Not thread-safe: calls from several threads at once are not supported.
//
//===----------------------------------------------------------------------===//

#include "runtime/Executor.h"
#include "runtime/interposer/Interposed.h"
#include "runtime/interposer/MpiTypes.h"
#include "runtime/interposer/PlanDirectory.h"
#include "runtime/mpi/MpiTransport.h"

#include "plan/serialize/PlanFile.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

using namespace collplan;
using namespace collplan::runtime;

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
    // Floating-point allreduces may then run plans whose ranks combine in
    // different orders.
    Opened->AllowRankDependentRounding =
        IsOne("COLLPLAN_ALLOW_RANK_DEPENDENT_ROUNDING");
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

/// What the ranks of a communicator agreed to do with calls of one shape.
struct Decision {
  std::optional<FoundPlan> Found; ///< Nothing: call PMPI_.
  /// Non-empty when the ranks found different plans: every such call fails.
  std::string Error;
  /// The executor of Found's plan once a call has run it (owned by
  /// CommState::Executors), so a repeated call skips that lookup.
  Executor *Ex = nullptr;
  /// Calls left to MPI because no plan fits, counted here rather than in
  /// CommState::Fallbacks (a string key on every call); summarize() adds
  /// them in.
  uint64_t NoPlanCalls = 0;
  /// Calls a library rule sent to MPI on purpose, counted the same way.
  uint64_t LibraryCalls = 0;
};

/// What a communicator keeps between calls: its decisions, the private
/// duplicate our messages travel on (made when the first plan runs, so they
/// never meet the application's), one executor per plan, staging areas, and
/// the counts the summary reports.
struct CommState {
  uint32_t Rank = 0, Size = 1;
  bool Inter = false;
  std::string Name;
  MPI_Comm Dup = MPI_COMM_NULL;
  std::unique_ptr<MpiTransport> Transport;
  std::map<CallShape, Decision> Decisions;
  /// The entry of Decisions the last call used: an application repeats one
  /// call shape, and an equality test of the key is cheaper than a search
  /// of the map. Map entries never move, and are never erased.
  std::pair<const CallShape, Decision> *LastDecision = nullptr;
  std::map<const RankSlice *, std::unique_ptr<Executor>> Executors;
  std::vector<char> Staging, SendStaging;
  uint64_t FromPlans = 0;
  std::map<std::string, uint64_t> Fallbacks; ///< By reason.
  bool Summarized = false;
};

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
  uint64_t NoPlan = 0, Tuned = 0;
  for (const auto &Entry : S.Decisions) {
    NoPlan += Entry.second.NoPlanCalls;
    Tuned += Entry.second.LibraryCalls;
  }
  if (NoPlan)
    S.Fallbacks["no plan fits"] += NoPlan;
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

/// The arguments that fix a call's shape, its communicator given: an
/// application repeats one call, and when MPI's own collective serves it (a
/// library rule, or no plan fits) building the shape and finding the
/// decision again was the interposer's whole cost on a small call, some 250
/// instructions beside Open MPI's 0.2 us allgather of 64 B on 2 ranks
/// (callgrind). Kept only for predefined datatypes, whose handles never
/// change meaning.
struct RawCall {
  Collective Kind = Collective::Allreduce;
  MPI_Comm Comm = MPI_COMM_NULL;
  int Count = 0;
  MPI_Datatype Type = MPI_DATATYPE_NULL;
  MPI_Op Op = MPI_OP_NULL;
  int Root = 0;

  bool operator==(const RawCall &O) const {
    return Kind == O.Kind && Comm == O.Comm && Count == O.Count &&
           Type == O.Type && Op == O.Op && Root == O.Root;
  }
};

/// The last call MPI's own collective served, and its decision; cleared
/// with its communicator's state (a freed handle may be reused).
RawCall LastToMpi;
Decision *LastToMpiDecision = nullptr;

/// Whether R repeats the last call MPI's own collective served: then it
/// goes there again, counted as its decision counts.
bool repeatsCallToMpi(const RawCall &R) {
  if (!LastToMpiDecision || !(R == LastToMpi))
    return false;
  Decision &D = *LastToMpiDecision;
  ++(D.Found ? D.LibraryCalls : D.NoPlanCalls);
  return true;
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
  if (LastToMpi.Comm == Comm)
    LastToMpiDecision = nullptr;
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

/// One interposed call, described independently of its MPI signature.
struct Call {
  const char *Function;
  MPI_Comm Comm;
  CallShape Key;
  /// Its raw arguments, when a repeat may skip the shape (RawCall).
  std::optional<RawCall> Raw;

  Call(const char *Function, MPI_Comm Comm, Collective Kind)
      : Function(Function), Comm(Comm) {
    Key.Kind = Kind;
  }

  std::string describe(const CommState &S) const {
    return std::string(Function) + " of " + std::to_string(Key.Bytes) +
           " bytes on " + std::to_string(S.Size) + " ranks";
  }
  std::string mpiFunction() const {
    return "PMPI_" + std::string(Function).substr(4);
  }
};

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

/// Leaves the call to MPI for a reason found before any plan lookup.
void refuse(const Call &C, const std::string &Reason) {
  if (planDirectory())
    leaveToMpi(C, stateOf(C.Comm), Reason);
}

std::string hashName(uint64_t Hash) {
  if (Hash == LibraryHash)
    return "the library's own call (a measured rule)";
  return Hash ? planHashHex(Hash) : std::string("none (no plan)");
}

/// The decision for calls shaped like C on S's communicator, made the first
/// time one is seen: every rank looks its plan up, then one allreduce of the
/// hash and its complement gives the highest and lowest hash found.
Decision &decide(CommState &S, const Call &C) {
  if (S.LastDecision && S.LastDecision->first == C.Key)
    return S.LastDecision->second;
  auto It = S.Decisions.find(C.Key);
  if (It != S.Decisions.end()) {
    S.LastDecision = &*It;
    return It->second;
  }
  std::optional<FoundPlan> Found = planDirectory()->find(
      C.Key, S.Rank,
      // A plan file the job cannot use is always worth a line (once).
      [&](const std::string &Warning) {
        warnOnce(std::string(C.Function) + ": " + Warning);
      });
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
  S.LastDecision = &*S.Decisions.emplace(C.Key, std::move(D)).first;
  return S.LastDecision->second;
}

/// How a plan runs one call: the executor, the transport, and the state
/// whose staging areas it may use.
using RunFn =
    llvm::function_ref<llvm::Error(Executor &, Transport &, CommState &)>;

/// The call's result when its ranks agreed on a plan and ran it; nothing when
/// they all go to PMPI_.
std::optional<int> fromPlan(Call &C, RunFn Run) {
  if (!planDirectory())
    return std::nullopt;
  CommState &S = stateOf(C.Comm);
  C.Key.Ranks = S.Size;
  if (S.Inter) {
    leaveToMpi(C, S, "an intercommunicator");
    return std::nullopt;
  }
  Decision &D = decide(S, C);
  auto Fail = [&](const std::string &Message) -> int {
    log(std::string(C.Function) + ": " + Message);
    PMPI_Comm_call_errhandler(C.Comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
  };
  if (!D.Error.empty()) {
    // Every rank of the call is here: let each say why before the first
    // error handler that aborts (MPICH's default) ends the job.
    log(std::string(C.Function) + ": " + D.Error);
    PMPI_Barrier(C.Comm);
    PMPI_Comm_call_errhandler(C.Comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
  }
  // Calls MPI serves: a repeat goes straight there (every call is logged
  // at verbosity 2).
  if ((!D.Found || D.Found->library()) && C.Raw && verbosity() < 2) {
    LastToMpi = *C.Raw;
    LastToMpiDecision = &D;
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
  if (!S.Transport) {
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
  if (llvm::Error Err = Run(*D.Ex, *S.Transport, S))
    return Fail(llvm::toString(std::move(Err)));
  return MPI_SUCCESS;
}

/// Room for Bytes bytes in Area, kept between calls.
char *room(std::vector<char> &Area, uint64_t Bytes) {
  if (Area.size() < Bytes)
    Area.resize(Bytes);
  return Area.data();
}

/// The executor's view of a reduction: MPI_IN_PLACE (SendBuf) is the
/// contract's in place.
CallArgs reductionArgs(const void *SendBuf, void *RecvBuf, uint64_t Count,
                       Datatype Type, ReduceOp Op) {
  CallArgs A;
  A.Input = SendBuf == MPI_IN_PLACE ? nullptr : SendBuf;
  A.Output = RecvBuf;
  A.Count = Count;
  A.Type = Type;
  A.Op = Operator::predefined(Op);
  return A;
}

/// The executor's view of a data movement: bytes. Input null is in place.
CallArgs byteArgs(const void *Input, void *Output, uint64_t Bytes) {
  CallArgs A;
  A.Input = Input;
  A.Output = Output;
  A.Count = Bytes;
  A.Type = Datatype::UInt8;
  return A;
}

/// A predefined operator on a type it is defined on, as ours.
struct TypedOp {
  Datatype Type;
  ReduceOp Op;
};

/// The call's type and operator when a plan may combine them; otherwise the
/// call is left to MPI (MPI requires the same datatype and operator on every
/// rank of a reduction, so every rank refuses alike).
std::optional<TypedOp> typedOpOf(const Call &C, MPI_Datatype Type, MPI_Op Op,
                                 int Count) {
  std::optional<Datatype> T = reducibleTypeOf(Type);
  std::optional<ReduceOp> O = reduceOpOf(Op);
  if (Count < 0)
    refuse(C, "a negative count");
  else if (!O)
    refuse(C, "a user-defined operator");
  else if (!T)
    refuse(C, "a datatype plans do not reduce (derived or pair type)");
  else if (!supports(*T, *O))
    refuse(C, "an operator not defined on the datatype");
  else
    return TypedOp{*T, *O};
  return std::nullopt;
}

bool isIntercommunicator(MPI_Comm Comm) {
  int Inter = 0;
  PMPI_Comm_test_inter(Comm, &Inter);
  return Inter != 0;
}

/// The input of a gather: null when in place, the send buffer when its bytes
/// can be read directly, else its bytes packed into the send staging area.
const void *gatherInput(const void *SendBuf, int SendCount,
                        MPI_Datatype SendType, CommState &S, MPI_Comm Comm) {
  if (SendBuf == MPI_IN_PLACE)
    return nullptr;
  TypeLayout L = layoutOf(SendType);
  if (L.Contiguous)
    return SendBuf;
  char *Packed = room(S.SendStaging, uint64_t(SendCount) * L.Size);
  packBytes(SendBuf, uint64_t(SendCount), SendType, L, Packed, Comm);
  return Packed;
}

/// A handle of this build's mpi.h from the word the entry point received:
/// Open MPI's are pointers; the MPICH ABI's are ints in the word's low half
/// (the caller leaves the upper half unspecified).
template <typename Handle> Handle handle(interposer::HandleWord W) {
  if constexpr (std::is_pointer_v<Handle>)
    return reinterpret_cast<Handle>(W);
  else
    return static_cast<Handle>(static_cast<uint32_t>(W));
}

} // namespace

namespace collplan::interposer {

int allreduce(const void *SendBuf, void *RecvBuf, int Count, HandleWord TypeW,
              HandleWord OpW, HandleWord CommW) {
  auto Type = handle<MPI_Datatype>(TypeW);
  auto Op = handle<MPI_Op>(OpW);
  auto Comm = handle<MPI_Comm>(CommW);
  RawCall Raw{Collective::Allreduce, Comm, Count, Type, Op, 0};
  if (repeatsCallToMpi(Raw))
    return PMPI_Allreduce(SendBuf, RecvBuf, Count, Type, Op, Comm);
  Call C("MPI_Allreduce", Comm, Collective::Allreduce);
  if (std::optional<TypedOp> T = typedOpOf(C, Type, Op, Count)) {
    C.Raw = Raw; // A type plans reduce is predefined.
    C.Key.Bytes = uint64_t(Count) * sizeOf(T->Type);
    C.Key.Op = T->Op;
    // Every rank ends with the result: a floating-point sum or product
    // needs a plan whose ranks combine in one order (fit()).
    C.Key.Type = T->Type;
    if (std::optional<int> Result =
            fromPlan(C, [&](Executor &Ex, Transport &Tr, CommState &) {
              return Ex.run(Tr, reductionArgs(SendBuf, RecvBuf, uint64_t(Count),
                                              T->Type, T->Op));
            }))
      return *Result;
  }
  return PMPI_Allreduce(SendBuf, RecvBuf, Count, Type, Op, Comm);
}

int reduceScatterBlock(const void *SendBuf, void *RecvBuf, int RecvCount,
                       HandleWord TypeW, HandleWord OpW, HandleWord CommW) {
  auto Type = handle<MPI_Datatype>(TypeW);
  auto Op = handle<MPI_Op>(OpW);
  auto Comm = handle<MPI_Comm>(CommW);
  // Without counts the call asks for equal parts (fit()): RecvCount
  // elements each.
  RawCall Raw{Collective::ReduceScatter, Comm, RecvCount, Type, Op, 0};
  if (repeatsCallToMpi(Raw))
    return PMPI_Reduce_scatter_block(SendBuf, RecvBuf, RecvCount, Type, Op,
                                     Comm);
  Call C("MPI_Reduce_scatter_block", Comm, Collective::ReduceScatter);
  if (std::optional<TypedOp> T = typedOpOf(C, Type, Op, RecvCount)) {
    C.Raw = Raw;
    int Size = 1;
    PMPI_Comm_size(Comm, &Size);
    uint64_t N = uint64_t(RecvCount) * uint64_t(Size);
    C.Key.Bytes = N * sizeOf(T->Type);
    C.Key.Op = T->Op;
    if (std::optional<int> Result = fromPlan(C, [&](Executor &Ex, Transport &Tr,
                                                    CommState &) {
          return Ex.run(Tr, reductionArgs(SendBuf, RecvBuf, N, T->Type, T->Op));
        }))
      return *Result;
  }
  return PMPI_Reduce_scatter_block(SendBuf, RecvBuf, RecvCount, Type, Op, Comm);
}

int reduce(const void *SendBuf, void *RecvBuf, int Count, HandleWord TypeW,
           HandleWord OpW, int Root, HandleWord CommW) {
  auto Type = handle<MPI_Datatype>(TypeW);
  auto Op = handle<MPI_Op>(OpW);
  auto Comm = handle<MPI_Comm>(CommW);
  RawCall Raw{Collective::Reduce, Comm, Count, Type, Op, Root};
  if (repeatsCallToMpi(Raw))
    return PMPI_Reduce(SendBuf, RecvBuf, Count, Type, Op, Root, Comm);
  Call C("MPI_Reduce", Comm, Collective::Reduce);
  std::optional<TypedOp> T = typedOpOf(C, Type, Op, Count);
  if (T && Root < 0)
    refuse(C, "a negative root");
  else if (T) {
    C.Raw = Raw;
    C.Key.Bytes = uint64_t(Count) * sizeOf(T->Type);
    C.Key.Op = T->Op;
    C.Key.Root = uint32_t(Root);
    // MPI_IN_PLACE is legal at the root only, where it means the input is
    // in RecvBuf: the contract's in place.
    if (std::optional<int> Result =
            fromPlan(C, [&](Executor &Ex, Transport &Tr, CommState &) {
              return Ex.run(Tr, reductionArgs(SendBuf, RecvBuf, uint64_t(Count),
                                              T->Type, T->Op));
            }))
      return *Result;
  }
  return PMPI_Reduce(SendBuf, RecvBuf, Count, Type, Op, Root, Comm);
}

int bcast(void *Buffer, int Count, HandleWord TypeW, int Root,
          HandleWord CommW) {
  auto Type = handle<MPI_Datatype>(TypeW);
  auto Comm = handle<MPI_Comm>(CommW);
  RawCall Raw{Collective::Broadcast, Comm, Count, Type, MPI_OP_NULL, Root};
  if (repeatsCallToMpi(Raw))
    return PMPI_Bcast(Buffer, Count, Type, Root, Comm);
  Call C("MPI_Bcast", Comm, Collective::Broadcast);
  if (Count < 0 || Root < 0) {
    refuse(C, "a negative count or root");
    return PMPI_Bcast(Buffer, Count, Type, Root, Comm);
  }
  // Ranks may describe the same bytes with different datatypes: the plan
  // moves the bytes, packed where a rank's type is not contiguous.
  TypeLayout L = layoutOf(Type);
  if (L.Predefined)
    C.Raw = Raw;
  C.Key.Bytes = uint64_t(Count) * L.Size;
  C.Key.Root = uint32_t(Root);
  if (std::optional<int> Result =
          fromPlan(C, [&](Executor &Ex, Transport &Tr, CommState &S) {
            if (L.Contiguous)
              return Ex.run(Tr, byteArgs(nullptr, Buffer, C.Key.Bytes));
            char *Stage = room(S.Staging, C.Key.Bytes);
            bool AtRoot = S.Rank == uint32_t(Root);
            if (AtRoot)
              packBytes(Buffer, uint64_t(Count), Type, L, Stage, Comm);
            llvm::Error E = Ex.run(Tr, byteArgs(nullptr, Stage, C.Key.Bytes));
            if (!E && !AtRoot)
              unpackBytes(Stage, uint64_t(Count), Type, L, Buffer, Comm);
            return E;
          }))
    return *Result;
  return PMPI_Bcast(Buffer, Count, Type, Root, Comm);
}

int allgather(const void *SendBuf, int SendCount, HandleWord SendTypeW,
              void *RecvBuf, int RecvCount, HandleWord RecvTypeW,
              HandleWord CommW) {
  auto SendType = handle<MPI_Datatype>(SendTypeW);
  auto RecvType = handle<MPI_Datatype>(RecvTypeW);
  auto Comm = handle<MPI_Comm>(CommW);
  // The shape is the receive signature's (below).
  RawCall Raw{Collective::Allgather, Comm, RecvCount, RecvType, MPI_OP_NULL, 0};
  if (repeatsCallToMpi(Raw))
    return PMPI_Allgather(SendBuf, SendCount, SendType, RecvBuf, RecvCount,
                          RecvType, Comm);
  Call C("MPI_Allgather", Comm, Collective::Allgather);
  if (RecvCount < 0 || (SendBuf != MPI_IN_PLACE && SendCount < 0)) {
    refuse(C, "a negative count");
    return PMPI_Allgather(SendBuf, SendCount, SendType, RecvBuf, RecvCount,
                          RecvType, Comm);
  }
  int Size = 1;
  PMPI_Comm_size(Comm, &Size);
  // Each rank's part has the receive signature's bytes, whatever the types.
  TypeLayout L = layoutOf(RecvType);
  if (L.Predefined)
    C.Raw = Raw;
  uint64_t Part = uint64_t(RecvCount) * L.Size;
  C.Key.Bytes = Part * uint64_t(Size);
  if (std::optional<int> Result =
          fromPlan(C, [&](Executor &Ex, Transport &Tr, CommState &S) {
            uint64_t Elements = uint64_t(RecvCount) * uint64_t(Size);
            if (L.Contiguous)
              return Ex.run(Tr, byteArgs(gatherInput(SendBuf, SendCount,
                                                     SendType, S, Comm),
                                         RecvBuf, C.Key.Bytes));
            char *Stage = room(S.Staging, C.Key.Bytes);
            if (SendBuf == MPI_IN_PLACE)
              packBytes(static_cast<char *>(RecvBuf) +
                            MPI_Aint(S.Rank) * RecvCount * L.Extent,
                        uint64_t(RecvCount), RecvType, L, Stage + S.Rank * Part,
                        Comm);
            llvm::Error E = Ex.run(
                Tr, byteArgs(gatherInput(SendBuf, SendCount, SendType, S, Comm),
                             Stage, C.Key.Bytes));
            if (!E)
              unpackBytes(Stage, Elements, RecvType, L, RecvBuf, Comm);
            return E;
          }))
    return *Result;
  return PMPI_Allgather(SendBuf, SendCount, SendType, RecvBuf, RecvCount,
                        RecvType, Comm);
}

int allgatherv(const void *SendBuf, int SendCount, HandleWord SendTypeW,
               void *RecvBuf, const int RecvCounts[], const int Displs[],
               HandleWord RecvTypeW, HandleWord CommW) {
  auto SendType = handle<MPI_Datatype>(SendTypeW);
  auto RecvType = handle<MPI_Datatype>(RecvTypeW);
  auto Comm = handle<MPI_Comm>(CommW);
  Call C("MPI_Allgatherv", Comm, Collective::Allgatherv);
  // On an intercommunicator RecvCounts has the remote group's size: do not
  // read it by local ranks.
  if (isIntercommunicator(Comm)) {
    refuse(C, "an intercommunicator");
    return PMPI_Allgatherv(SendBuf, SendCount, SendType, RecvBuf, RecvCounts,
                           Displs, RecvType, Comm);
  }
  int Size = 1;
  PMPI_Comm_size(Comm, &Size);
  // The counts are the same on every rank; the displacements and the
  // receive type's layout are each rank's own.
  TypeLayout L = layoutOf(RecvType);
  std::vector<uint64_t> Begin(size_t(Size) + 1, 0);
  bool DirectLayout = L.Contiguous;
  C.Key.Counts.resize(size_t(Size));
  for (int R = 0; R < Size; ++R) {
    C.Key.Counts[R] = uint64_t(std::max(RecvCounts[R], 0)) * L.Size;
    Begin[R + 1] = Begin[R] + C.Key.Counts[R];
    DirectLayout &=
        uint64_t(std::max(Displs[R], 0)) * L.Size == Begin[R] && Displs[R] >= 0;
  }
  C.Key.Bytes = Begin[Size];
  auto PartOf = [&](int R) {
    return static_cast<char *>(RecvBuf) + MPI_Aint(Displs[R]) * L.Extent;
  };
  if (std::optional<int> Result =
          fromPlan(C, [&](Executor &Ex, Transport &Tr, CommState &S) {
            if (DirectLayout)
              return Ex.run(Tr, byteArgs(gatherInput(SendBuf, SendCount,
                                                     SendType, S, Comm),
                                         RecvBuf, C.Key.Bytes));
            char *Stage = room(S.Staging, C.Key.Bytes);
            int Me = int(S.Rank);
            if (SendBuf == MPI_IN_PLACE)
              packBytes(PartOf(Me), uint64_t(RecvCounts[Me]), RecvType, L,
                        Stage + Begin[Me], Comm);
            llvm::Error E = Ex.run(
                Tr, byteArgs(gatherInput(SendBuf, SendCount, SendType, S, Comm),
                             Stage, C.Key.Bytes));
            for (int R = 0; !E && R < Size; ++R)
              unpackBytes(Stage + Begin[R], uint64_t(RecvCounts[R]), RecvType,
                          L, PartOf(R), Comm);
            return E;
          }))
    return *Result;
  return PMPI_Allgatherv(SendBuf, SendCount, SendType, RecvBuf, RecvCounts,
                         Displs, RecvType, Comm);
}

int finalize() {
  for (CommState *S : liveStates())
    summarize(*S);
  return PMPI_Finalize();
}

} // namespace collplan::interposer
