/* OmpiAlgorithmSpy.c - which allreduce algorithm Open MPI ran.
 *
 * Preloaded into an Open MPI 4.1 job, it defines the coll/base allreduce
 * algorithms that coll/tuned calls through the PLT, prints one line per
 * call naming the algorithm and the vector's bytes, and forwards to Open
 * MPI's own. It shows which algorithm Open MPI's decision (fixed, or a
 * dynamic rules file) picked for each size. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

typedef int (*Algorithm7)(const void *, void *, int, void *, void *, void *,
                          void *);
typedef int (*Algorithm8)(const void *, void *, int, void *, void *, void *,
                          void *, unsigned);

/* The count of elements: the tests send MPI_INT, 4 bytes each. */
static void report(const char *Name, int Count) {
  fprintf(stderr, "ompi-spy: allreduce %s count %d\n", Name, Count);
}

#define SPY7(Suffix)                                                           \
  int ompi_coll_base_allreduce_intra_##Suffix(                                 \
      const void *S, void *R, int N, void *T, void *O, void *C, void *M) {     \
    static Algorithm7 Real;                                                    \
    if (!Real)                                                                 \
      Real = (Algorithm7)dlsym(RTLD_NEXT,                                      \
                               "ompi_coll_base_allreduce_intra_" #Suffix);     \
    report(#Suffix, N);                                                        \
    return Real(S, R, N, T, O, C, M);                                          \
  }

SPY7(basic_linear)
SPY7(nonoverlapping)
SPY7(recursivedoubling)
SPY7(ring)
SPY7(redscat_allgather)

int ompi_coll_base_allreduce_intra_ring_segmented(const void *S, void *R, int N,
                                                  void *T, void *O, void *C,
                                                  void *M, unsigned Seg) {
  static Algorithm8 Real;
  if (!Real)
    Real = (Algorithm8)dlsym(RTLD_NEXT,
                             "ompi_coll_base_allreduce_intra_ring_segmented");
  report("ring_segmented", N);
  return Real(S, R, N, T, O, C, M, Seg);
}
