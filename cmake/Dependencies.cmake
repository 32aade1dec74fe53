# Every dependency is a Debian package (see README).

# LLVM ADT and Support. Only include and library paths come from llvm-config:
# its cxxflags carry -fno-exceptions and -std=c++14, which this project does
# not use.
find_program(LLVM_CONFIG NAMES llvm-config-14 llvm-config REQUIRED)
execute_process(COMMAND ${LLVM_CONFIG} --includedir
                OUTPUT_VARIABLE LLVM_INCLUDE_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${LLVM_CONFIG} --libdir
                OUTPUT_VARIABLE LLVM_LIBRARY_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)
find_library(LLVM_SUPPORT_LIB NAMES LLVMSupport PATHS ${LLVM_LIBRARY_DIR}
             NO_DEFAULT_PATH REQUIRED)
find_library(LLVM_DEMANGLE_LIB NAMES LLVMDemangle PATHS ${LLVM_LIBRARY_DIR}
             NO_DEFAULT_PATH REQUIRED)
add_library(llvm_support INTERFACE)
target_include_directories(llvm_support SYSTEM INTERFACE ${LLVM_INCLUDE_DIR})
find_package(Threads REQUIRED)
target_link_libraries(llvm_support INTERFACE ${LLVM_SUPPORT_LIB}
                      ${LLVM_DEMANGLE_LIB} Threads::Threads ${CMAKE_DL_LIBS})
# The static LLVMSupport queries terminal colours through terminfo
# (Process::FileDescriptorHasColors); llvm-config-14 --system-libs omits it.
find_library(TINFO_LIB NAMES tinfo ncurses)
if(TINFO_LIB)
  target_link_libraries(llvm_support INTERFACE ${TINFO_LIB})
endif()

find_package(yaml-cpp REQUIRED)
find_package(CLI11 REQUIRED)
find_package(doctest REQUIRED)

if(COLLPLAN_WITH_MPI)
  find_package(MPI REQUIRED COMPONENTS C)
endif()

# MPICH (Debian's mpich and libmpich-dev, beside Open MPI): the interposer is
# built a second time against it, for MPICH-ABI libraries (MPICH, Intel MPI,
# Cray MPICH, MVAPICH). Found through its pkg-config file, never through
# FindMPI, which returns the one MPI the alternatives make the default.
option(COLLPLAN_WITH_MPICH "Build the interposer for MPICH-ABI libraries too"
       ON)
if(COLLPLAN_WITH_MPICH)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(MPICH QUIET IMPORTED_TARGET mpich)
  endif()
  if(NOT MPICH_FOUND)
    message(STATUS "MPICH not found: libcollplan_mpich.so is not built")
    set(COLLPLAN_WITH_MPICH OFF)
  endif()
endif()

# SimGrid's SMPI (Debian libsimgrid-dev), for running plans on simulated
# machines (runtime/smpi). Optional: without it the rest builds as before.
option(COLLPLAN_WITH_SMPI "Build the SMPI drivers when SimGrid is found" ON)
if(COLLPLAN_WITH_SMPI)
  find_path(SIMGRID_SMPI_INCLUDE_DIR smpi/mpi.h)
  find_library(SIMGRID_LIB simgrid)
  if(NOT SIMGRID_SMPI_INCLUDE_DIR OR NOT SIMGRID_LIB)
    message(STATUS "SimGrid not found: the SMPI drivers are not built")
    set(COLLPLAN_WITH_SMPI OFF)
  endif()
endif()
