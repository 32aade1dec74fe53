/* PmpiFloor.c - the least a PMPI tool can cost: each collective the
 * interposer serves, forwarded to its PMPI_ name and nothing else.
 *
 * tools/bench-tune.sh --floor preloads it beside plain MPI and collplan's
 * interposer, so that what any interposer pays for being one (a preloaded
 * library, one more call) is measured in the same interleaved runs as what
 * collplan's dispatch adds on top (docs/measured-tuning.md). */

#include <mpi.h>

int MPI_Allreduce(const void *In, void *Out, int Count, MPI_Datatype Type,
                  MPI_Op Op, MPI_Comm Comm) {
  return PMPI_Allreduce(In, Out, Count, Type, Op, Comm);
}

int MPI_Allgather(const void *In, int InCount, MPI_Datatype InType, void *Out,
                  int OutCount, MPI_Datatype OutType, MPI_Comm Comm) {
  return PMPI_Allgather(In, InCount, InType, Out, OutCount, OutType, Comm);
}

int MPI_Bcast(void *Buffer, int Count, MPI_Datatype Type, int Root,
              MPI_Comm Comm) {
  return PMPI_Bcast(Buffer, Count, Type, Root, Comm);
}

int MPI_Reduce(const void *In, void *Out, int Count, MPI_Datatype Type,
               MPI_Op Op, int Root, MPI_Comm Comm) {
  return PMPI_Reduce(In, Out, Count, Type, Op, Root, Comm);
}

int MPI_Reduce_scatter_block(const void *In, void *Out, int Count,
                             MPI_Datatype Type, MPI_Op Op, MPI_Comm Comm) {
  return PMPI_Reduce_scatter_block(In, Out, Count, Type, Op, Comm);
}
