//===- Oracle.h - Test-only inputs and brute-force expected results -------===//
//
// Written for the tests, apart from runtime/launcher/Workload: the input of
// rank r at element i is a small value derived from (r, i), and the expected
// result folds the P inputs of each element in rank order with a scalar
// switch, never the runtime's kernels.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_RUNTIME_ORACLE_H
#define COLLPLAN_TESTS_RUNTIME_ORACLE_H

#include "plan/ir/BlockLayout.h"
#include "runtime/Reduction.h"

#include <cstring>
#include <vector>

namespace collplan::runtime::test {

/// Element i of rank r as a double every type holds exactly: powers of two
/// for products, small integers otherwise.
inline double oracleValue(ReduceOp Op, uint32_t R, uint64_t I) {
  uint64_t H = (R + 1) * 2654435761u ^ (I * 40503u + 17);
  H ^= H >> 13;
  switch (Op) {
  case ReduceOp::Sum:
    // Sums of P <= 8 stay below 127: Open MPI 4.1's AVX kernels saturate
    // int8/int16 sums where C (and our kernels) wrap; ReductionTest checks
    // wrapping on its own.
    return double(H % 16);
  case ReduceOp::Prod:
    return H % 3 == 0 ? 2.0 : (H % 3 == 1 ? 1.0 : -1.0);
  case ReduceOp::Land:
  case ReduceOp::Lor:
  case ReduceOp::Lxor:
    return H % 4 == 0 ? 0.0 : 1.0 + double(H % 3);
  default:
    return double(H % 97);
  }
}

template <typename T> T oracleCombine(T A, T B, ReduceOp Op) {
  switch (Op) {
  case ReduceOp::Sum:
    return T(A + B);
  case ReduceOp::Prod:
    return T(A * B);
  case ReduceOp::Min:
    return A < B ? A : B;
  case ReduceOp::Max:
    return A < B ? B : A;
  case ReduceOp::Land:
    return T((A != 0) && (B != 0));
  case ReduceOp::Lor:
    return T((A != 0) || (B != 0));
  case ReduceOp::Lxor:
    return T((A != 0) != (B != 0));
  default:
    if constexpr (std::is_integral_v<T>) {
      if (Op == ReduceOp::Band)
        return T(A & B);
      if (Op == ReduceOp::Bor)
        return T(A | B);
      return T(A ^ B);
    }
    return A;
  }
}

/// Bytes of element I of rank R as type T.
template <typename T>
void oracleStore(ReduceOp Op, uint32_t R, uint64_t I, char *Out) {
  T V = T(int64_t(oracleValue(Op, R, I)));
  if constexpr (!std::is_integral_v<T>)
    V = T(oracleValue(Op, R, I));
  std::memcpy(Out, &V, sizeof(T));
}

template <typename T>
void oracleReduce(ReduceOp Op, uint32_t P, uint64_t I, char *Out) {
  T Acc;
  oracleStore<T>(Op, 0, I, reinterpret_cast<char *>(&Acc));
  for (uint32_t R = 1; R < P; ++R) {
    T V;
    oracleStore<T>(Op, R, I, reinterpret_cast<char *>(&V));
    Acc = oracleCombine<T>(Acc, V, Op);
  }
  std::memcpy(Out, &Acc, sizeof(T));
}

/// Element I of the whole input vector of rank R, as bytes.
inline void oracleInput(Datatype T, ReduceOp Op, uint32_t R, uint64_t I,
                        char *Out) {
  visitDatatype(T, [&](auto Z) { oracleStore<decltype(Z)>(Op, R, I, Out); });
}

/// Element I of the fully reduced vector.
inline void oracleReduced(Datatype T, ReduceOp Op, uint32_t P, uint64_t I,
                          char *Out) {
  visitDatatype(T, [&](auto Z) { oracleReduce<decltype(Z)>(Op, P, I, Out); });
}

/// Fills the user input buffer of rank R (allgather: its owned blocks).
inline std::vector<char> oracleInputBuffer(const PlanHeader &H, uint32_t R,
                                           uint64_t Count, Datatype T,
                                           ReduceOp Op) {
  size_t ES = sizeOf(T);
  BlockLayout L(H, Count);
  uint64_t Begin = 0, N = Count;
  // Allgather(v): its owned blocks; alltoall(v): its row of the matrix.
  if (H.Kind == Collective::Allgather || H.Kind == Collective::Allgatherv ||
      H.Kind == Collective::Alltoall || H.Kind == Collective::Alltoallv) {
    BlockSet Own = H.ownedBy(R);
    Begin = L.begin(Own.ranges()[0].Begin);
    N = L.size(Own);
  }
  std::vector<char> Buf(N * ES);
  for (uint64_t I = 0; I < N; ++I)
    oracleInput(T, Op, R, Begin + I, &Buf[I * ES]);
  return Buf;
}

/// The expected output of rank R (empty for a non-root of reduce).
inline std::vector<char> oracleOutput(const PlanHeader &H, uint32_t R,
                                      uint64_t Count, Datatype T, ReduceOp Op) {
  size_t ES = sizeOf(T);
  BlockLayout L(H, Count);
  std::vector<char> Out;
  auto Push = [&](auto Fill, uint64_t I) {
    Out.resize(Out.size() + ES);
    Fill(I, &Out[Out.size() - ES]);
  };
  switch (H.Kind) {
  case Collective::Allreduce:
  case Collective::Reduce:
    if (H.Kind == Collective::Reduce && R != *H.Root)
      break;
    for (uint64_t I = 0; I < Count; ++I)
      Push([&](uint64_t I, char *O) { oracleReduced(T, Op, H.Ranks, I, O); },
           I);
    break;
  case Collective::ReduceScatter: {
    BlockSet Own = H.ownedBy(R);
    uint64_t B = L.begin(Own.ranges()[0].Begin);
    for (uint64_t I = B; I < B + L.size(Own); ++I)
      Push([&](uint64_t I, char *O) { oracleReduced(T, Op, H.Ranks, I, O); },
           I);
    break;
  }
  case Collective::Allgather:
  case Collective::Allgatherv:
    for (uint64_t B = 0; B < H.Blocks; ++B)
      for (uint64_t I = L.begin(B); I < L.begin(B + 1); ++I)
        Push([&](uint64_t I,
                 char *O) { oracleInput(T, Op, H.ownerOf(B), I, O); },
             I);
    break;
  case Collective::Broadcast:
    for (uint64_t I = 0; I < Count; ++I)
      Push([&](uint64_t I, char *O) { oracleInput(T, Op, *H.Root, I, O); }, I);
    break;
  case Collective::Alltoall:
  case Collective::Alltoallv: {
    // The column: from each sender S in turn, the run of blocks it
    // addresses to R in the P x P matrix, as S's input holds them.
    uint64_t PerPair = H.Blocks / (uint64_t(H.Ranks) * H.Ranks);
    for (uint32_t S = 0; S < H.Ranks; ++S)
      for (uint64_t B = (uint64_t(S) * H.Ranks + R) * PerPair, E = B + PerPair;
           B < E; ++B)
        for (uint64_t I = L.begin(B); I < L.begin(B + 1); ++I)
          Push([&](uint64_t I, char *O) { oracleInput(T, Op, S, I, O); }, I);
    break;
  }
  }
  return Out;
}

} // namespace collplan::runtime::test

#endif
