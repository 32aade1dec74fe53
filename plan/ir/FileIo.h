//===- FileIo.h - Bounded input files, whole output files -------*- C++ -*-===//
//
// Every file collplan reads as input (the plan index, a hostfile, a
// parameters file, a weights file) is read by readBoundedFile and every file
// it writes by writeFileAtomically, so that no input can make a process hang
// or grow without bound, and no output can replace something that is not a
// file.
//
// Reading opens the file without blocking (a FIFO nobody writes is not
// waited for) and checks what it is on the open descriptor: a regular file
// larger than the limit is refused before a byte is read; a device
// (/dev/zero) or directory is refused; a pipe (`--params <(...)`) is read,
// when the caller allows pipes, up to the limit.
//
// Writing goes through a temporary file in the same directory renamed into
// place, so a reader sees the old file or the new one whole. A path that
// already names a device or a FIFO (/dev/null, /dev/stdout, a named pipe) is
// written directly instead, as a shell redirection would: renaming onto it
// would replace the node with a regular file. A FIFO no process reads is an
// error rather than a wait.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_IR_FILEIO_H
#define COLLPLAN_IR_FILEIO_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace collplan {

/// Whether readBoundedFile reads pipes besides regular files.
enum class PipeInput { Refuse, Allow };

/// Path's bytes, at most Limit of them. Errors are ErrorKind::Usage and
/// start with What and Path ("cannot read hostfile 'x': ...").
llvm::Expected<std::string>
readBoundedFile(llvm::StringRef Path, uint64_t Limit, llvm::StringRef What,
                PipeInput Pipes = PipeInput::Refuse);

/// Writes all of Bytes to Path, or nothing (a regular file keeps its old
/// content); a device or FIFO is written directly. An error is of kind Io
/// and names What and Path.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Bytes,
                                llvm::StringRef What = "file");

/// Whether Path names something inside a directory it is relative to: not
/// empty, not absolute, no "." or ".." component (so a file listed by a
/// directory's index cannot point out of it).
bool isPathInside(llvm::StringRef Path);

} // namespace collplan

#endif // COLLPLAN_IR_FILEIO_H
