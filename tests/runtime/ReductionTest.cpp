//===- ReductionTest.cpp - Reduction kernels against scalar arithmetic ----===//

#include "Oracle.h"

#include "runtime/Reduction.h"

#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
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
      // B = A (op) B, the operands in the same order.
      std::vector<char> Onto = B;
      reduceOnto(Onto.data(), A.data(), N, T, Op);
      CHECK(Onto == Want);
      CHECK(A == A0);
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

namespace {

/// Random finite operands with exponents over a wide range (so sums round),
/// subnormals and signed zeros among them; wrapping values for integers.
template <typename E> std::vector<E> wideOperands(size_t N, uint64_t Seed) {
  std::mt19937_64 Gen(Seed);
  std::vector<E> V(N);
  for (size_t I = 0; I < N; ++I) {
    if constexpr (std::is_integral_v<E>) {
      V[I] = E(Gen());
    } else {
      std::uniform_real_distribution<double> Mantissa(-2.0, 2.0);
      std::uniform_int_distribution<int> Exponent(-40, 40);
      E X = E(std::ldexp(Mantissa(Gen), Exponent(Gen)));
      if (I % 11 == 3)
        X = std::numeric_limits<E>::denorm_min() * E(I % 5);
      if (I % 13 == 5)
        X = -E(0);
      V[I] = X;
    }
  }
  return V;
}

/// The sum the test expects, one element at a time, written here apart from
/// the kernels; signed integers sum in their unsigned type, as MPI wraps.
template <typename E> E scalarSum(E X, E Y) {
  if constexpr (std::is_integral_v<E>)
    return E(std::make_unsigned_t<E>(X) + std::make_unsigned_t<E>(Y));
  else
    return X + Y;
}

template <typename E> void checkSumsAtEveryWidth(Datatype T) {
  // Lengths around the vector widths (4 and 8 floats, 2 and 4 doubles, 8
  // ints) and the unrolled loops' blocks; offsets that leave the operands
  // off a 32-byte boundary, each by a different amount.
  for (size_t N : {1u, 3u, 7u, 9u, 15u, 17u, 31u, 33u, 63u, 65u, 1001u, 4099u})
    for (size_t OffOut : {0u, 1u, 3u})
      for (size_t OffX : {0u, 2u})
        for (size_t OffY : {0u, 1u, 5u}) {
          std::vector<E> X = wideOperands<E>(N + OffX, N * 7 + OffX);
          std::vector<E> Y = wideOperands<E>(N + OffY, N * 13 + OffY + 1);
          std::vector<E> Want(N);
          for (size_t I = 0; I < N; ++I)
            Want[I] = scalarSum(X[OffX + I], Y[OffY + I]);
          INFO(datatypeName(T).str() << " N=" << N << " offsets " << OffOut
                                     << "," << OffX << "," << OffY);
          std::vector<E> Out(N + OffOut, E(7));
          reduceTo(Out.data() + OffOut, X.data() + OffX, Y.data() + OffY, N, T,
                   ReduceOp::Sum);
          CHECK(std::memcmp(Out.data() + OffOut, Want.data(), N * sizeof(E)) ==
                0);
          // The element before the output is left alone.
          if (OffOut)
            CHECK(Out[OffOut - 1] == E(7));
          std::vector<E> Onto = Y;
          reduceOnto(Onto.data() + OffY, X.data() + OffX, N, T, ReduceOp::Sum);
          CHECK(std::memcmp(Onto.data() + OffY, Want.data(), N * sizeof(E)) ==
                0);
          reduceInto(X.data() + OffX, Y.data() + OffY, N, T, ReduceOp::Sum);
          CHECK(std::memcmp(X.data() + OffX, Want.data(), N * sizeof(E)) == 0);
        }
}

} // namespace

// The kernels are built for AVX2 and for baseline x86-64 and the loader picks
// one (runtime/Reduction.cpp); whichever runs here must give a scalar loop's
// bits, at every length and alignment.
TEST_CASE("the vector kernels give a scalar loop's bits at any length and "
          "offset") {
#if defined(__x86_64__) && defined(__GNUC__)
  MESSAGE("this machine runs the "
          << std::string(__builtin_cpu_supports("avx2") ? "AVX2" : "baseline")
          << " kernels");
#endif
  checkSumsAtEveryWidth<float>(Datatype::Float);
  checkSumsAtEveryWidth<double>(Datatype::Double);
  checkSumsAtEveryWidth<int32_t>(Datatype::Int32);
  checkSumsAtEveryWidth<int64_t>(Datatype::Int64);
  checkSumsAtEveryWidth<uint8_t>(Datatype::UInt8);
}
