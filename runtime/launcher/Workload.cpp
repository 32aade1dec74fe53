//===- Workload.cpp - Generated inputs and their expected results ---------===//

#include "runtime/launcher/Workload.h"

#include "plan/ir/BlockLayout.h"
#include "plan/ir/Hash.h"

#include <cstring>
#include <sstream>
#include <type_traits>

namespace collplan::runtime {

namespace {

/// A value every type represents exactly, as a double, and the raw bits for
/// the bitwise operators.
double valueFor(ReduceOp Op, bool Signed, uint64_t H) {
  switch (Op) {
  case ReduceOp::Sum:
    return Signed ? double(int(H % 17) - 8) : double(H % 17);
  case ReduceOp::Prod: {
    static const double Factors[] = {1, 2, 1, 0.5, 1, -1, 1, 2};
    double F = Factors[H % 8];
    if (!Signed && F < 0)
      return 1;
    return F;
  }
  case ReduceOp::Land:
  case ReduceOp::Lor:
  case ReduceOp::Lxor:
    // Mostly non-zero, so "and" is not always 0 and "or" not always 1.
    return H % 5 == 0 ? 0 : double(H % 7 + 1);
  default:
    return Signed ? double(int(H % 200) - 100) : double(H % 200);
  }
}

template <typename T> T valueOf(ReduceOp Op, uint64_t H) {
  if constexpr (std::is_integral_v<T>) {
    if (Op == ReduceOp::Band || Op == ReduceOp::Bor || Op == ReduceOp::Bxor)
      return T(H >> 7);
    double V = valueFor(Op, std::is_signed_v<T>, H);
    if (V == 0.5)
      V = 3; // Integers: any small factor is exact (products wrap).
    return T(int64_t(V));
  } else {
    return T(valueFor(Op, true, H));
  }
}

template <typename T> T combine(T A, T B, ReduceOp Op) {
  if constexpr (std::is_integral_v<T>) {
    // Unsigned and at least as wide as int, so it wraps, never promoted to
    // a signed int that would overflow (uint16 65535 * 65535).
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                 std::make_unsigned_t<T>>;
    switch (Op) {
    case ReduceOp::Sum:
      return T(U(U(A) + U(B)));
    case ReduceOp::Prod:
      return T(U(U(A) * U(B)));
    case ReduceOp::Band:
      return T(A & B);
    case ReduceOp::Bor:
      return T(A | B);
    case ReduceOp::Bxor:
      return T(A ^ B);
    case ReduceOp::Land:
      return T(A && B);
    case ReduceOp::Lor:
      return T(A || B);
    case ReduceOp::Lxor:
      return T(bool(A) != bool(B));
    default:
      break;
    }
  } else {
    if (Op == ReduceOp::Sum)
      return A + B;
    if (Op == ReduceOp::Prod)
      return A * B;
  }
  if (Op == ReduceOp::Min)
    return B < A ? B : A;
  return B > A ? B : A; // Max.
}

template <typename T>
void generateTyped(ReduceOp Op, uint32_t Rank, uint64_t Begin, uint64_t N,
                   T *Out) {
  for (uint64_t I = 0; I < N; ++I)
    Out[I] = valueOf<T>(Op, splitmix64((uint64_t(Rank) << 40) ^ (Begin + I)));
}

template <typename T>
std::vector<char> expectedTyped(const PlanHeader &H, uint32_t Rank,
                                uint64_t Count, ReduceOp Op) {
  BlockLayout Layout(H, Count);
  std::vector<T> All(Count);
  auto ValueAt = [&](uint32_t R, uint64_t I) {
    return valueOf<T>(Op, splitmix64((uint64_t(R) << 40) ^ I));
  };
  // The contract's promise, element by element: every contribution
  // combined in rank order, or the input of the block's contributor. By
  // element and by each rank's ranges of blocks, never block by block: a
  // header may claim far more blocks (2^40) than the vector has elements.
  if (reduces(H.Kind)) {
    for (uint64_t I = 0; I < Count; ++I) {
      T Acc = ValueAt(0, I);
      for (uint32_t R = 1; R < H.Ranks; ++R)
        Acc = combine<T>(Acc, ValueAt(R, I), Op);
      All[I] = Acc;
    }
  } else {
    for (uint32_t R = 0; R < H.Ranks; ++R)
      for (const BlockRange &Rg : H.inputBlocks(R).ranges())
        for (uint64_t I = Layout.begin(Rg.Begin); I < Layout.begin(Rg.End); ++I)
          All[I] = ValueAt(R, I);
  }
  // The output blocks packed, in block order (alltoall's column: one run
  // per sender).
  BlockSet Output = H.outputBlocks(Rank);
  std::vector<char> Out(Layout.size(Output) * sizeof(T));
  size_t At = 0;
  for (const BlockRange &Rg : Output.ranges()) {
    uint64_t Begin = Layout.begin(Rg.Begin), End = Layout.begin(Rg.End);
    if (End > Begin)
      std::memcpy(Out.data() + At, All.data() + Begin,
                  (End - Begin) * sizeof(T));
    At += (End - Begin) * sizeof(T);
  }
  return Out;
}

} // namespace

void generateInput(Datatype T, ReduceOp Op, uint32_t Rank, uint64_t Begin,
                   uint64_t N, void *Out) {
  visitDatatype(T, [&](auto Zero) {
    using E = decltype(Zero);
    generateTyped<E>(Op, Rank, Begin, N, static_cast<E *>(Out));
  });
}

std::vector<char> inputFor(const PlanHeader &H, uint32_t Rank, uint64_t Count,
                           Datatype T, ReduceOp Op) {
  BlockLayout Layout(H, Count);
  BlockSet Input = H.inputBlocks(Rank);
  uint64_t Begin = Input.empty() ? 0 : Layout.begin(Input.ranges()[0].Begin);
  uint64_t N = Layout.size(Input);
  std::vector<char> In(N * sizeOf(T));
  generateInput(T, Op, Rank, Begin, N, In.data());
  return In;
}

std::vector<char> expectedOutput(const PlanHeader &H, uint32_t Rank,
                                 uint64_t Count, Datatype T, ReduceOp Op) {
  return visitDatatype(T, [&](auto Zero) {
    return expectedTyped<decltype(Zero)>(H, Rank, Count, Op);
  });
}

std::string compareOutput(const std::vector<char> &Output,
                          const std::vector<char> &Expected, Datatype T) {
  if (Output.size() != Expected.size())
    return "the output has " + std::to_string(Output.size()) +
           " bytes, expected " + std::to_string(Expected.size());
  size_t ES = sizeOf(T);
  for (size_t I = 0; I < Output.size(); I += ES) {
    if (std::memcmp(&Output[I], &Expected[I], ES) == 0)
      continue;
    std::ostringstream OS;
    visitDatatype(T, [&](auto Zero) {
      using E = decltype(Zero);
      E Got, Want;
      std::memcpy(&Got, &Output[I], ES);
      std::memcpy(&Want, &Expected[I], ES);
      if constexpr (sizeof(E) == 1)
        OS << "element " << I / ES << " is " << int(Got) << ", expected "
           << int(Want);
      else
        OS << "element " << I / ES << " is " << Got << ", expected " << Want;
      return 0;
    });
    return OS.str();
  }
  return "";
}

} // namespace collplan::runtime
