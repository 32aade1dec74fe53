//===- CirculantMpichTable.h - MPICH's p = 17 circulant schedule -*- C++ -*-=//
//
// A test vector from outside collplan: the receive and send schedules of all
// 17 processors for p = 17 (q = 5, skips 1 2 3 5 9 17), as MPICH prints them
// in the comment "Example send/receive schedule with p=17" of
// src/mpi/coll/algorithms/circ_graph/circ_graph.c (pmodels/mpich, main
// branch, commit 6a79bf6575c3b5b41cabbd3d59340634d6f9412d), which cites
// Träff's TOPC paper. The numbers are MPICH's, with its brackets (marking
// current-phase blocks) and column separators dropped; column 0 is the root,
// whose receive row MPICH prints but never executes.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_TESTS_ALGORITHMS_CIRCULANTMPICHTABLE_H
#define COLLPLAN_TESTS_ALGORITHMS_CIRCULANTMPICHTABLE_H

#include <cstdint>

namespace collplan::test::mpich17 {

constexpr uint32_t P = 17;
constexpr unsigned Q = 5;
constexpr uint64_t Skip[Q + 1] = {1, 2, 3, 5, 9, 17};

/// Recv[k][r]: the block (phase-relative) relative rank r receives from
/// r - skip[k] in round k of a phase.
constexpr int32_t Recv[Q][P] = {
    {-4, 0, -5, -4, -3, -5, -2, -5, -4, -3, -1, -5, -4, -3, -5, -2, -5},
    {-5, -4, 1, -5, -4, -3, -3, -2, -5, -4, -3, -1, -5, -4, -3, -3, -2},
    {-2, -2, -2, 2, 0, -4, -4, -3, -2, -2, -4, -3, -1, -1, -4, -4, -3},
    {-1, -3, -3, -2, -2, 3, 0, 1, 2, -5, -2, -2, -2, -2, -1, -1, -1},
    {-3, -1, -1, -1, -1, -1, -1, -1, -1, 4, 0, 1, 2, 0, 3, 0, 1},
};

/// Send[k][r]: the block relative rank r sends to r + skip[k] in round k.
constexpr int32_t Send[Q][P] = {
    {0, -5, -4, -3, -5, -2, -5, -4, -3, -1, -5, -4, -3, -5, -2, -5, -4},
    {1, -5, -4, -3, -3, -2, -5, -4, -3, -1, -5, -4, -3, -3, -2, -5, -4},
    {2, 0, -4, -4, -3, -2, -2, -4, -3, -1, -1, -4, -4, -3, -2, -2, -2},
    {3, 0, 1, 2, -5, -2, -2, -2, -2, -1, -1, -1, -1, -3, -3, -2, -2},
    {4, 0, 1, 2, 0, 3, 0, 1, -3, -1, -1, -1, -1, -1, -1, -1, -1},
};

} // namespace collplan::test::mpich17

#endif // COLLPLAN_TESTS_ALGORITHMS_CIRCULANTMPICHTABLE_H
