//===- Interposer.cpp - libcollplan_mpi.so: MPI collectives from plans ----===//
//
// Preloaded into an unmodified MPI program (mpirun -x LD_PRELOAD=... -x
// COLLPLAN_PLANS=DIR), this library defines MPI_Allreduce,
// MPI_Reduce_scatter_block, MPI_Allgather, MPI_Allgatherv, MPI_Bcast and
// MPI_Reduce through the MPI profiling interface. Each call looks for a plan in
// DIR (PlanDirectory.h names the files), runs it with the executor over the MPI
// transport on a private duplicate of the call's communicator, and otherwise
// calls the PMPI_ version: no COLLPLAN_PLANS, an intercommunicator, a
// derived or unsupported datatype, a user-defined operator, no plan that
// fits. A process reads only its own rank's program of a plan (with the
// header and the whole plan's hash: RankSlice.h), so its memory does not grow
// with P. The first time a communicator uses a plan its ranks compare plan
// hashes, so ranks reading different files fail with a message naming both.
//
// COLLPLAN_VERBOSE=1 logs, to stderr, the first use of each plan and the
// first fallback of each kind; COLLPLAN_VERBOSE=2 logs every call.
// Not thread-safe: calls from several threads at once are not supported.
//
//===----------------------------------------------------------------------===//

#include "runtime/Executor.h"
#include "runtime/interposer/PlanDirectory.h"
#include "runtime/mpi/MpiTransport.h"

#include "plan/ir/BlockLayout.h"
#include "plan/serialize/PlanFile.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>

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
    if (verbosity() >= 1)
      log("COLLPLAN_PLANS=" + std::string(Path) + ": " +
          std::to_string(Opened->size()) + " plan file(s)");
    D = std::make_unique<PlanDirectory>(std::move(*Opened));
    return D;
  }();
  return Dir.get();
}

std::optional<Datatype> datatypeOf(MPI_Datatype T, bool Reducing) {
  struct Entry {
    MPI_Datatype Mpi;
    Datatype Ours;
  };
  // The fixed-width types, then C's named types by their size here.
  auto Sized = [](size_t Size, bool Signed) {
    switch (Size) {
    case 1:
      return Signed ? Datatype::Int8 : Datatype::UInt8;
    case 2:
      return Signed ? Datatype::Int16 : Datatype::UInt16;
    case 4:
      return Signed ? Datatype::Int32 : Datatype::UInt32;
    default:
      return Signed ? Datatype::Int64 : Datatype::UInt64;
    }
  };
  const Entry Table[] = {
      {MPI_INT8_T, Datatype::Int8},
      {MPI_INT16_T, Datatype::Int16},
      {MPI_INT32_T, Datatype::Int32},
      {MPI_INT64_T, Datatype::Int64},
      {MPI_UINT8_T, Datatype::UInt8},
      {MPI_UINT16_T, Datatype::UInt16},
      {MPI_UINT32_T, Datatype::UInt32},
      {MPI_UINT64_T, Datatype::UInt64},
      {MPI_FLOAT, Datatype::Float},
      {MPI_DOUBLE, Datatype::Double},
      {MPI_SIGNED_CHAR, Datatype::Int8},
      {MPI_UNSIGNED_CHAR, Datatype::UInt8},
      {MPI_SHORT, Sized(sizeof(short), true)},
      {MPI_UNSIGNED_SHORT, Sized(sizeof(short), false)},
      {MPI_INT, Sized(sizeof(int), true)},
      {MPI_UNSIGNED, Sized(sizeof(int), false)},
      {MPI_LONG, Sized(sizeof(long), true)},
      {MPI_UNSIGNED_LONG, Sized(sizeof(long), false)},
      {MPI_LONG_LONG, Sized(sizeof(long long), true)},
      {MPI_UNSIGNED_LONG_LONG, Sized(sizeof(long long), false)},
  };
  for (const Entry &E : Table)
    if (E.Mpi == T)
      return E.Ours;
  // Moving bytes without combining them: any byte-like type will do.
  if (!Reducing && (T == MPI_BYTE || T == MPI_CHAR))
    return Datatype::UInt8;
  return std::nullopt;
}

std::optional<ReduceOp> reduceOpOf(MPI_Op Op) {
  const std::pair<MPI_Op, ReduceOp> Table[] = {
      {MPI_SUM, ReduceOp::Sum},   {MPI_PROD, ReduceOp::Prod},
      {MPI_MIN, ReduceOp::Min},   {MPI_MAX, ReduceOp::Max},
      {MPI_BAND, ReduceOp::Band}, {MPI_BOR, ReduceOp::Bor},
      {MPI_BXOR, ReduceOp::Bxor}, {MPI_LAND, ReduceOp::Land},
      {MPI_LOR, ReduceOp::Lor},   {MPI_LXOR, ReduceOp::Lxor}};
  for (const auto &[Mpi, Ours] : Table)
    if (Mpi == Op)
      return Ours;
  return std::nullopt;
}

/// What a communicator keeps between calls: a private duplicate (our
/// messages never meet the application's), its transport, the plans whose
/// hash its ranks agreed on, and one executor per plan.
struct CommState {
  MPI_Comm Dup = MPI_COMM_NULL;
  std::unique_ptr<MpiTransport> Transport;
  std::set<const RankSlice *> Agreed;
  std::map<const RankSlice *, std::unique_ptr<Executor>> Executors;
};

int deleteCommState(MPI_Comm Comm, int, void *Attr, void *) {
  auto *S = static_cast<CommState *>(Attr);
  // MPI_COMM_WORLD's attributes go at finalize, when freeing is too late.
  if (S->Dup != MPI_COMM_NULL && Comm != MPI_COMM_WORLD &&
      Comm != MPI_COMM_SELF)
    PMPI_Comm_free(&S->Dup);
  delete S;
  return MPI_SUCCESS;
}

CommState &stateOf(MPI_Comm Comm) {
  static int Keyval = MPI_KEYVAL_INVALID;
  if (Keyval == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteCommState, &Keyval,
                            nullptr);
  void *Attr = nullptr;
  int Found = 0;
  PMPI_Comm_get_attr(Comm, Keyval, &Attr, &Found);
  if (Found)
    return *static_cast<CommState *>(Attr);
  auto *S = new CommState;
  PMPI_Comm_dup(Comm, &S->Dup);
  S->Transport = std::make_unique<MpiTransport>(S->Dup);
  PMPI_Comm_set_attr(Comm, Keyval, S);
  return *S;
}

/// One interposed call, described independently of its MPI signature.
struct Call {
  const char *Function;
  Collective Kind;
  MPI_Comm Comm;
  uint64_t Bytes;
  std::optional<ReduceOp> Op;
  /// Broadcast and reduce: the call's root, which the plan's must equal.
  std::optional<uint32_t> Root;
  /// What else the plan must fit (the layout of the call's counts).
  std::function<bool(const PlanHeader &)> Accept = [](const PlanHeader &) {
    return true;
  };
};

/// Runs the call from a plan. Returns false (before any communication)
/// when the call should go to PMPI_; sets Result otherwise.
bool runFromPlan(const Call &C, const CallArgs &Args, int &Result) {
  PlanDirectory *Dir = planDirectory();
  if (!Dir)
    return false;
  int Inter = 0, Size = 1;
  PMPI_Comm_test_inter(C.Comm, &Inter);
  if (Inter)
    return false;
  PMPI_Comm_size(C.Comm, &Size);
  std::string What = std::string(C.Function) + " of " +
                     std::to_string(C.Bytes) + " bytes on " +
                     std::to_string(Size) + " ranks";
  auto Fits = [&](const PlanHeader &H) {
    return H.Root == C.Root && C.Accept(H);
  };
  int Rank = 0;
  PMPI_Comm_rank(C.Comm, &Rank);
  std::optional<FoundPlan> Found =
      Dir->find(C.Kind, uint32_t(Size), uint32_t(Rank), C.Bytes, C.Op, Fits,
                [](const std::string &W) { logOnce(W); });
  if (!Found) {
    logOnce(What + ": no plan fits, calling PMPI_" +
            std::string(C.Function).substr(4));
    return false;
  }
  const RankSlice &P = *Found->Slice;
  const std::string &Path = Found->Entry->Path;
  CommState &S = stateOf(C.Comm);
  auto Fail = [&](const std::string &Message) {
    log(std::string(C.Function) + ": " + Message);
    Result = MPI_ERR_OTHER;
    PMPI_Comm_call_errhandler(C.Comm, MPI_ERR_OTHER);
    return true;
  };
  if (!S.Agreed.count(&P)) {
    if (llvm::Error Err = checkSameHash(*S.Transport, P.Hash))
      return Fail(llvm::toString(std::move(Err)) + " (plan " + Path + ")");
    S.Agreed.insert(&P);
  }
  std::unique_ptr<Executor> &Ex = S.Executors[&P];
  if (!Ex)
    Ex = std::make_unique<Executor>(P.Header, P.Prog, P.Rank);
  logOnce(What + ": plan " + Path + " (" + P.Header.Algorithm + ", hash " +
          planHashHex(P.Hash) + ")");
  if (llvm::Error Err = Ex->run(*S.Transport, Args))
    return Fail(llvm::toString(std::move(Err)));
  Result = MPI_SUCCESS;
  return true;
}

/// A predefined operator on a type it is defined on, as ours.
struct TypedOp {
  Datatype Type;
  ReduceOp Op;
};

/// The call's type and operator when a plan may combine them.
std::optional<TypedOp> typedOpOf(MPI_Datatype Type, MPI_Op Op) {
  std::optional<Datatype> T = datatypeOf(Type, true);
  std::optional<ReduceOp> O = reduceOpOf(Op);
  if (!T || !O || !supports(*T, *O))
    return std::nullopt;
  return TypedOp{*T, *O};
}

/// The executor's view of the call's buffers: MPI_IN_PLACE (Input null) is the
/// contract's in place.
CallArgs argsOf(const void *SendBuf, void *RecvBuf, uint64_t Count,
                Datatype Type, std::optional<ReduceOp> Op = std::nullopt) {
  CallArgs A;
  A.Input = SendBuf == MPI_IN_PLACE ? nullptr : SendBuf;
  A.Output = RecvBuf;
  A.Count = Count;
  A.Type = Type;
  if (Op)
    A.Op = Operator::predefined(*Op);
  return A;
}

/// The call's result when a plan ran it; nothing when it goes to PMPI_.
std::optional<int> fromPlan(const Call &C, const CallArgs &Args) {
  int Result = MPI_SUCCESS;
  if (runFromPlan(C, Args, Result))
    return Result;
  return std::nullopt;
}

} // namespace

extern "C" {

COLLPLAN_EXPORT int MPI_Allreduce(const void *SendBuf, void *RecvBuf, int Count,
                                  MPI_Datatype Type, MPI_Op Op, MPI_Comm Comm) {
  std::optional<TypedOp> T = typedOpOf(Type, Op);
  if (T && Count >= 0) {
    Call C{"MPI_Allreduce",
           Collective::Allreduce,
           Comm,
           uint64_t(Count) * sizeOf(T->Type),
           T->Op,
           std::nullopt};
    if (std::optional<int> Result = fromPlan(
            C, argsOf(SendBuf, RecvBuf, uint64_t(Count), T->Type, T->Op)))
      return *Result;
  }
  return PMPI_Allreduce(SendBuf, RecvBuf, Count, Type, Op, Comm);
}

COLLPLAN_EXPORT int MPI_Reduce_scatter_block(const void *SendBuf, void *RecvBuf,
                                             int RecvCount, MPI_Datatype Type,
                                             MPI_Op Op, MPI_Comm Comm) {
  std::optional<TypedOp> T = typedOpOf(Type, Op);
  int Size = 1;
  PMPI_Comm_size(Comm, &Size);
  if (T && RecvCount >= 0) {
    uint64_t N = uint64_t(RecvCount) * uint64_t(Size);
    // Equal blocks give every rank exactly RecvCount elements.
    Call C{"MPI_Reduce_scatter_block",
           Collective::ReduceScatter,
           Comm,
           N * sizeOf(T->Type),
           T->Op,
           std::nullopt,
           [](const PlanHeader &H) { return H.Weights.empty(); }};
    if (std::optional<int> Result =
            fromPlan(C, argsOf(SendBuf, RecvBuf, N, T->Type, T->Op)))
      return *Result;
  }
  return PMPI_Reduce_scatter_block(SendBuf, RecvBuf, RecvCount, Type, Op, Comm);
}

COLLPLAN_EXPORT int MPI_Allgather(const void *SendBuf, int SendCount,
                                  MPI_Datatype SendType, void *RecvBuf,
                                  int RecvCount, MPI_Datatype RecvType,
                                  MPI_Comm Comm) {
  bool InPlace = SendBuf == MPI_IN_PLACE;
  std::optional<Datatype> T = datatypeOf(RecvType, false);
  int Size = 1;
  PMPI_Comm_size(Comm, &Size);
  if (T && RecvCount >= 0 &&
      (InPlace || (SendType == RecvType && SendCount == RecvCount))) {
    uint64_t N = uint64_t(RecvCount) * uint64_t(Size);
    Call C{"MPI_Allgather",
           Collective::Allgather,
           Comm,
           N * sizeOf(*T),
           std::nullopt,
           std::nullopt,
           [](const PlanHeader &H) { return H.Weights.empty(); }};
    if (std::optional<int> Result =
            fromPlan(C, argsOf(SendBuf, RecvBuf, N, *T)))
      return *Result;
  }
  return PMPI_Allgather(SendBuf, SendCount, SendType, RecvBuf, RecvCount,
                        RecvType, Comm);
}

COLLPLAN_EXPORT int MPI_Allgatherv(const void *SendBuf, int SendCount,
                                   MPI_Datatype SendType, void *RecvBuf,
                                   const int RecvCounts[], const int Displs[],
                                   MPI_Datatype RecvType, MPI_Comm Comm) {
  bool InPlace = SendBuf == MPI_IN_PLACE;
  std::optional<Datatype> T = datatypeOf(RecvType, false);
  int Size = 1, Rank = 0, Inter = 0;
  PMPI_Comm_size(Comm, &Size);
  PMPI_Comm_rank(Comm, &Rank);
  // On an intercommunicator RecvCounts has the remote group's size: do not
  // read it by local ranks (runFromPlan would refuse the call anyway).
  PMPI_Comm_test_inter(Comm, &Inter);
  if (T && !Inter &&
      (InPlace || (SendType == RecvType && SendCount == RecvCounts[Rank]))) {
    uint64_t N = 0;
    for (int R = 0; R < Size; ++R)
      N += uint64_t(std::max(RecvCounts[R], 0));
    // The plan's weights must place every rank's part where the call does.
    auto Fits = [=](const PlanHeader &H) {
      BlockLayout L(H, N);
      for (int R = 0; R < Size; ++R) {
        BlockSet Own = H.ownedBy(uint32_t(R));
        if (L.size(Own) != uint64_t(RecvCounts[R]) ||
            L.begin(Own.ranges()[0].Begin) != uint64_t(Displs[R]))
          return false;
      }
      return true;
    };
    Call C{"MPI_Allgatherv", Collective::Allgatherv, Comm, N * sizeOf(*T),
           std::nullopt,     std::nullopt,           Fits};
    if (std::optional<int> Result =
            fromPlan(C, argsOf(SendBuf, RecvBuf, N, *T)))
      return *Result;
  }
  return PMPI_Allgatherv(SendBuf, SendCount, SendType, RecvBuf, RecvCounts,
                         Displs, RecvType, Comm);
}

COLLPLAN_EXPORT int MPI_Bcast(void *Buffer, int Count, MPI_Datatype Type,
                              int Root, MPI_Comm Comm) {
  std::optional<Datatype> T = datatypeOf(Type, false);
  if (T && Count >= 0 && Root >= 0) {
    Call C{"MPI_Bcast",  Collective::Broadcast,
           Comm,         uint64_t(Count) * sizeOf(*T),
           std::nullopt, uint32_t(Root)};
    if (std::optional<int> Result =
            fromPlan(C, argsOf(nullptr, Buffer, uint64_t(Count), *T)))
      return *Result;
  }
  return PMPI_Bcast(Buffer, Count, Type, Root, Comm);
}

COLLPLAN_EXPORT int MPI_Reduce(const void *SendBuf, void *RecvBuf, int Count,
                               MPI_Datatype Type, MPI_Op Op, int Root,
                               MPI_Comm Comm) {
  std::optional<TypedOp> T = typedOpOf(Type, Op);
  if (T && Count >= 0 && Root >= 0) {
    Call C{"MPI_Reduce", Collective::Reduce,
           Comm,         uint64_t(Count) * sizeOf(T->Type),
           T->Op,        uint32_t(Root)};
    // MPI_IN_PLACE is legal at the root only, where it means the input is
    // in RecvBuf: the contract's in place.
    if (std::optional<int> Result = fromPlan(
            C, argsOf(SendBuf, RecvBuf, uint64_t(Count), T->Type, T->Op)))
      return *Result;
  }
  return PMPI_Reduce(SendBuf, RecvBuf, Count, Type, Op, Root, Comm);
}

} // extern "C"
