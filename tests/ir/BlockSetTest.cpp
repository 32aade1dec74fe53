// BlockSet against a brute-force oracle: a std::set of block indices.

#include "plan/ir/BlockSet.h"

#include <doctest/doctest.h>

#include <random>
#include <set>

using namespace collplan;

namespace {

std::set<uint64_t> toSet(const BlockSet &S) {
  std::set<uint64_t> Out;
  S.forEachBlock([&](uint64_t B) { Out.insert(B); });
  return Out;
}

/// Canonical form: sorted, non-empty, disjoint and non-adjacent ranges.
bool isCanonical(const BlockSet &S) {
  auto Ranges = S.ranges();
  for (size_t I = 0; I < Ranges.size(); ++I) {
    if (Ranges[I].empty())
      return false;
    if (I && Ranges[I - 1].End >= Ranges[I].Begin)
      return false;
  }
  return true;
}

BlockSet randomSet(std::mt19937_64 &Rng, std::set<uint64_t> &Oracle) {
  BlockSet S;
  int N = Rng() % 5;
  for (int I = 0; I < N; ++I) {
    uint64_t B = Rng() % 40, E = B + Rng() % 8;
    S.insert(B, E);
    for (uint64_t X = B; X < E; ++X)
      Oracle.insert(X);
  }
  return S;
}

} // namespace

TEST_CASE("BlockSet operations agree with a set of indices") {
  std::mt19937_64 Rng(42);
  for (int Trial = 0; Trial < 5000; ++Trial) {
    std::set<uint64_t> OA, OB;
    BlockSet A = randomSet(Rng, OA), B = randomSet(Rng, OB);
    REQUIRE(isCanonical(A));
    CHECK(toSet(A) == OA);
    CHECK(A.count() == OA.size());

    std::set<uint64_t> Inter, Diff, Union = OA;
    for (uint64_t X : OA)
      (OB.count(X) ? Inter : Diff).insert(X);
    Union.insert(OB.begin(), OB.end());

    BlockSet I = A.intersect(B), D = A.subtract(B), U = A;
    U.insert(B);
    CHECK(isCanonical(I));
    CHECK(isCanonical(D));
    CHECK(isCanonical(U));
    CHECK(toSet(I) == Inter);
    CHECK(toSet(D) == Diff);
    CHECK(toSet(U) == Union);
    CHECK(A.overlaps(B) == !Inter.empty());
    CHECK(A.containsAll(B) == std::includes(OA.begin(), OA.end(), OB.begin(),
                                            OB.end()));
    for (uint64_t X = 0; X < 50; ++X)
      CHECK(A.contains(X) == (OA.count(X) == 1));
  }
}

TEST_CASE("BlockSet::wrapped covers Count blocks modulo the modulus") {
  for (uint64_t M = 1; M <= 9; ++M)
    for (uint64_t Start = 0; Start < 2 * M; ++Start)
      for (uint64_t Count = 0; Count <= M + 1; ++Count) {
        std::set<uint64_t> Oracle;
        for (uint64_t K = 0; K < std::min(Count, M); ++K)
          Oracle.insert((Start + K) % M);
        BlockSet S = BlockSet::wrapped(Start, Count, M);
        CHECK(isCanonical(S));
        CHECK(toSet(S) == Oracle);
      }
}

TEST_CASE("BlockSet::str uses inclusive ranges") {
  BlockSet S = BlockSet::range(0, 2);
  S.insert(5, 6);
  S.insert(7, 10);
  CHECK(S.str() == "0-1,5,7-9");
  CHECK(BlockSet().str() == "-");
}
