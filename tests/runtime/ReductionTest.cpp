//===- ReductionTest.cpp - Reduction kernels against scalar arithmetic ----===//

#include "Oracle.h"

#include "runtime/Reduction.h"

#include <doctest/doctest.h>

#include <climits>
#include <cstdint>
#include <vector>

using namespace collplan;
using namespace collplan::runtime;
using namespace collplan::runtime::test;

TEST_CASE("names round-trip and MPI's type rules hold") {
  for (Datatype T : allDatatypes())
    CHECK(parseDatatype(datatypeName(T)) == T);
  for (ReduceOp Op : allReduceOps())
    CHECK(parseReduceOp(reduceOpName(Op)) == Op);
  CHECK(!parseDatatype("int128"));
  CHECK(!parseReduceOp("maxloc"));
  CHECK(sizeOf(Datatype::UInt16) == 2);
  CHECK(sizeOf(Datatype::Double) == 8);
  CHECK(!supports(Datatype::Float, ReduceOp::Band));
  CHECK(!supports(Datatype::Double, ReduceOp::Land));
  CHECK(supports(Datatype::Double, ReduceOp::Min));
  CHECK(supports(Datatype::Int8, ReduceOp::Lor));
}

TEST_CASE("every kernel matches element-wise scalar arithmetic") {
  // 37 elements: not a multiple of any vector width, so tails run too.
  const uint64_t N = 37;
  for (Datatype T : allDatatypes())
    for (ReduceOp Op : allReduceOps()) {
      if (!supports(T, Op))
        continue;
      size_t ES = sizeOf(T);
      std::vector<char> A(N * ES), B(N * ES), Want(N * ES);
      for (uint64_t I = 0; I < N; ++I) {
        oracleInput(T, Op, 0, I, &A[I * ES]);
        oracleInput(T, Op, 1, I, &B[I * ES]);
      }
      visitDatatype(T, [&](auto Z) {
        using E = decltype(Z);
        for (uint64_t I = 0; I < N; ++I) {
          E X, Y;
          std::memcpy(&X, &A[I * ES], ES);
          std::memcpy(&Y, &B[I * ES], ES);
          E R = oracleCombine<E>(X, Y, Op);
          std::memcpy(&Want[I * ES], &R, ES);
        }
      });
      INFO(datatypeName(T).str() << " " << reduceOpName(Op).str());
      // Out = A (op) B leaves both operands as they were.
      std::vector<char> Out(N * ES), A0 = A, B0 = B;
      reduceTo(Out.data(), A.data(), B.data(), N, T, Op);
      CHECK(Out == Want);
      CHECK(A == A0);
      CHECK(B == B0);
      reduceInto(A.data(), B.data(), N, T, Op);
      CHECK(A == Want);
    }
}

TEST_CASE("signed sums and products wrap like two's complement") {
  int32_t A[2] = {INT32_MAX, INT32_MIN}, B[2] = {1, -1};
  reduceInto(A, B, 2, Datatype::Int32, ReduceOp::Sum);
  CHECK(A[0] == INT32_MIN);
  CHECK(A[1] == INT32_MAX);
  int8_t C[1] = {64}, D[1] = {2};
  reduceInto(C, D, 1, Datatype::Int8, ReduceOp::Prod);
  CHECK(C[0] == -128);
  int64_t E[1] = {INT64_MIN}, F[1] = {-1};
  reduceInto(E, F, 1, Datatype::Int64, ReduceOp::Prod);
  CHECK(E[0] == INT64_MIN);
}

TEST_CASE("logical operators yield 0 or 1; min and max order floats") {
  uint16_t A[3] = {7, 0, 5}, B[3] = {3, 9, 0};
  reduceInto(A, B, 3, Datatype::UInt16, ReduceOp::Land);
  CHECK(A[0] == 1);
  CHECK(A[1] == 0);
  CHECK(A[2] == 0);
  int32_t C[2] = {7, 0}, D[2] = {3, 0};
  reduceInto(C, D, 2, Datatype::Int32, ReduceOp::Lxor);
  CHECK(C[0] == 0);
  CHECK(C[1] == 0);
  double X[2] = {-1.5, 2.0}, Y[2] = {-2.5, 3.0};
  reduceInto(X, Y, 2, Datatype::Double, ReduceOp::Min);
  CHECK(X[0] == -2.5);
  CHECK(X[1] == 2.0);
  reduceInto(X, Y, 2, Datatype::Double, ReduceOp::Max);
  CHECK(X[0] == -2.5);
  CHECK(X[1] == 3.0);
}
