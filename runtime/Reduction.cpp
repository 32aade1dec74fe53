//===- Reduction.cpp - Reduction kernels per element type and operator ----===//

#include "runtime/Reduction.h"

#include "llvm/Support/ErrorHandling.h"

#include <type_traits>

namespace collplan::runtime {

namespace {

// Signed overflow is undefined in C++; MPI libraries wrap. Doing the
// arithmetic in an unsigned type wraps by definition. Types narrower than
// int use unsigned int: their unsigned type would be promoted to (signed)
// int, and 65535 * 65535 overflows it.
template <typename T, bool = std::is_integral_v<T>> struct ArithOf {
  using Type = T;
};
template <typename T> struct ArithOf<T, true> {
  using Type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                  std::make_unsigned_t<T>>;
};
template <typename T> using Arith = typename ArithOf<T>::Type;

template <typename T, ReduceOp Op>
void kernel(T *__restrict InOut, const T *__restrict In, size_t Count) {
  using A = Arith<T>;
  for (size_t I = 0; I < Count; ++I) {
    T X = InOut[I], Y = In[I];
    if constexpr (Op == ReduceOp::Sum)
      InOut[I] = T(A(X) + A(Y));
    else if constexpr (Op == ReduceOp::Prod)
      InOut[I] = T(A(X) * A(Y));
    else if constexpr (Op == ReduceOp::Min)
      InOut[I] = Y < X ? Y : X;
    else if constexpr (Op == ReduceOp::Max)
      InOut[I] = Y > X ? Y : X;
    else if constexpr (Op == ReduceOp::Land)
      InOut[I] = T((X != 0) & (Y != 0));
    else if constexpr (Op == ReduceOp::Lor)
      InOut[I] = T((X != 0) | (Y != 0));
    else if constexpr (Op == ReduceOp::Lxor)
      InOut[I] = T((X != 0) ^ (Y != 0));
    else if constexpr (std::is_integral_v<T>) {
      if constexpr (Op == ReduceOp::Band)
        InOut[I] = X & Y;
      else if constexpr (Op == ReduceOp::Bor)
        InOut[I] = X | Y;
      else
        InOut[I] = X ^ Y;
    }
  }
}

template <typename T>
void dispatchOp(void *InOut, const void *In, size_t Count, ReduceOp Op) {
  T *D = static_cast<T *>(InOut);
  const T *S = static_cast<const T *>(In);
  switch (Op) {
  case ReduceOp::Sum:
    return kernel<T, ReduceOp::Sum>(D, S, Count);
  case ReduceOp::Prod:
    return kernel<T, ReduceOp::Prod>(D, S, Count);
  case ReduceOp::Min:
    return kernel<T, ReduceOp::Min>(D, S, Count);
  case ReduceOp::Max:
    return kernel<T, ReduceOp::Max>(D, S, Count);
  case ReduceOp::Land:
    return kernel<T, ReduceOp::Land>(D, S, Count);
  case ReduceOp::Lor:
    return kernel<T, ReduceOp::Lor>(D, S, Count);
  case ReduceOp::Lxor:
    return kernel<T, ReduceOp::Lxor>(D, S, Count);
  case ReduceOp::Band:
    return kernel<T, ReduceOp::Band>(D, S, Count);
  case ReduceOp::Bor:
    return kernel<T, ReduceOp::Bor>(D, S, Count);
  case ReduceOp::Bxor:
    return kernel<T, ReduceOp::Bxor>(D, S, Count);
  }
}

} // namespace

void reduceInto(void *InOut, const void *In, size_t Count, Datatype T,
                ReduceOp Op) {
  visitDatatype(
      T, [&](auto Zero) { dispatchOp<decltype(Zero)>(InOut, In, Count, Op); });
}

} // namespace collplan::runtime
