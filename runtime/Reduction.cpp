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

template <typename T, ReduceOp Op> T combineOne(T X, T Y) {
  using A = Arith<T>;
  if constexpr (Op == ReduceOp::Sum)
    return T(A(X) + A(Y));
  else if constexpr (Op == ReduceOp::Prod)
    return T(A(X) * A(Y));
  else if constexpr (Op == ReduceOp::Min)
    return Y < X ? Y : X;
  else if constexpr (Op == ReduceOp::Max)
    return Y > X ? Y : X;
  else if constexpr (Op == ReduceOp::Land)
    return T((X != 0) & (Y != 0));
  else if constexpr (Op == ReduceOp::Lor)
    return T((X != 0) | (Y != 0));
  else if constexpr (Op == ReduceOp::Lxor)
    return T((X != 0) ^ (Y != 0));
  else if constexpr (!std::is_integral_v<T>)
    return X; // Bitwise operators are not supported() on floating point.
  else if constexpr (Op == ReduceOp::Band)
    return X & Y;
  else if constexpr (Op == ReduceOp::Bor)
    return X | Y;
  else
    return X ^ Y;
}

// Separate loops rather than one with Out == X or Out == Y allowed:
// __restrict lets the compiler vectorise each without run-time overlap
// checks.
template <typename T, ReduceOp Op>
void kernel(T *__restrict InOut, const T *__restrict In, size_t Count) {
  for (size_t I = 0; I < Count; ++I)
    InOut[I] = combineOne<T, Op>(InOut[I], In[I]);
}

template <typename T, ReduceOp Op>
void kernel(T *__restrict Out, const T *__restrict X, const T *__restrict Y,
            size_t Count) {
  for (size_t I = 0; I < Count; ++I)
    Out[I] = combineOne<T, Op>(X[I], Y[I]);
}

template <typename T, ReduceOp Op>
void kernelOnto(T *__restrict InOut, const T *__restrict X, size_t Count) {
  for (size_t I = 0; I < Count; ++I)
    InOut[I] = combineOne<T, Op>(X[I], InOut[I]);
}

/// Calls K's kernel for the operator Op, an instantiation per (T, Op).
template <typename Kernel> void dispatchOp(ReduceOp Op, Kernel K) {
  switch (Op) {
  case ReduceOp::Sum:
    return K(std::integral_constant<ReduceOp, ReduceOp::Sum>());
  case ReduceOp::Prod:
    return K(std::integral_constant<ReduceOp, ReduceOp::Prod>());
  case ReduceOp::Min:
    return K(std::integral_constant<ReduceOp, ReduceOp::Min>());
  case ReduceOp::Max:
    return K(std::integral_constant<ReduceOp, ReduceOp::Max>());
  case ReduceOp::Land:
    return K(std::integral_constant<ReduceOp, ReduceOp::Land>());
  case ReduceOp::Lor:
    return K(std::integral_constant<ReduceOp, ReduceOp::Lor>());
  case ReduceOp::Lxor:
    return K(std::integral_constant<ReduceOp, ReduceOp::Lxor>());
  case ReduceOp::Band:
    return K(std::integral_constant<ReduceOp, ReduceOp::Band>());
  case ReduceOp::Bor:
    return K(std::integral_constant<ReduceOp, ReduceOp::Bor>());
  case ReduceOp::Bxor:
    return K(std::integral_constant<ReduceOp, ReduceOp::Bxor>());
  }
}

} // namespace

// Each kernel combines element I of its operands alone, so the vector width
// changes how many elements one instruction combines, never which operands
// an element's result comes from: a kernel built for AVX2 gives the bits the
// baseline (SSE2) one gives (docs/reproducibility.md). The library must run
// on any x86-64, so rather than building for the build machine (-march)
// both entry points are cloned, for AVX2 and for the baseline, and the
// loader picks one per machine (GCC's target_clones, an ifunc). flatten
// inlines every kernel into its clone, so the loops are built for the
// clone's target; Open MPI's own kernels (mca_op_avx) choose the same way.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&         \
    defined(__has_attribute)
#if __has_attribute(target_clones)
#define COLLPLAN_KERNEL_CLONES                                                 \
  __attribute__((target_clones("avx2", "default"), flatten))
#endif
#endif
#ifndef COLLPLAN_KERNEL_CLONES
#define COLLPLAN_KERNEL_CLONES
#endif

COLLPLAN_KERNEL_CLONES
void reduceInto(void *InOut, const void *In, size_t Count, Datatype T,
                ReduceOp Op) {
  visitDatatype(T, [&](auto Zero) {
    using E = decltype(Zero);
    dispatchOp(Op, [&](auto O) {
      kernel<E, O()>(static_cast<E *>(InOut), static_cast<const E *>(In),
                     Count);
    });
  });
}

COLLPLAN_KERNEL_CLONES
void reduceTo(void *Out, const void *X, const void *Y, size_t Count, Datatype T,
              ReduceOp Op) {
  visitDatatype(T, [&](auto Zero) {
    using E = decltype(Zero);
    dispatchOp(Op, [&](auto O) {
      kernel<E, O()>(static_cast<E *>(Out), static_cast<const E *>(X),
                     static_cast<const E *>(Y), Count);
    });
  });
}

COLLPLAN_KERNEL_CLONES
void reduceOnto(void *InOut, const void *X, size_t Count, Datatype T,
                ReduceOp Op) {
  visitDatatype(T, [&](auto Zero) {
    using E = decltype(Zero);
    dispatchOp(Op, [&](auto O) {
      kernelOnto<E, O()>(static_cast<E *>(InOut), static_cast<const E *>(X),
                         Count);
    });
  });
}

} // namespace collplan::runtime
