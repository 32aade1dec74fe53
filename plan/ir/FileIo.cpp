//===- FileIo.cpp - Bounded input files, whole output files ---------------===//

#include "plan/ir/FileIo.h"
#include "plan/ir/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using llvm::Error;
using llvm::StringRef;

namespace collplan {

namespace {

std::error_code lastError() {
  return std::error_code(errno, std::generic_category());
}

/// Closes a descriptor when it goes out of scope.
struct FdCloser {
  int FD;
  ~FdCloser() {
    if (FD >= 0)
      ::close(FD);
  }
};

/// Clears O_NONBLOCK, set only so that open() would not wait for a FIFO's
/// other end.
std::error_code makeBlocking(int FD) {
  int Flags = ::fcntl(FD, F_GETFL);
  if (Flags < 0 || ::fcntl(FD, F_SETFL, Flags & ~O_NONBLOCK) < 0)
    return lastError();
  return {};
}

/// Writes all of Bytes to FD, retrying short writes and interruptions.
std::error_code writeAll(int FD, StringRef Bytes) {
  while (!Bytes.empty()) {
    ssize_t N = ::write(FD, Bytes.data(), Bytes.size());
    if (N < 0) {
      if (errno == EINTR)
        continue;
      return lastError();
    }
    Bytes = Bytes.drop_front(size_t(N));
  }
  return {};
}

void syncDirectory(StringRef Dir) {
  int FD = ::open(Dir.str().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (FD < 0)
    return;
  ::fsync(FD); // Best effort: the rename is already visible.
  ::close(FD);
}

/// Writes Bytes into the device or FIFO Path as it is.
std::error_code writeInPlace(StringRef Path, StringRef Bytes) {
  int FD =
      ::open(Path.str().c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (FD < 0)
    return lastError();
  FdCloser Closer{FD};
  if (std::error_code EC = makeBlocking(FD))
    return EC;
  if (std::error_code EC = writeAll(FD, Bytes))
    return EC;
  Closer.FD = -1;
  return ::close(FD) != 0 ? lastError() : std::error_code();
}

/// Writes Bytes to a temporary beside Path, renamed onto Path once whole.
Error writeThroughTemporary(StringRef Path, StringRef Bytes, StringRef What) {
  auto Fail = [&](const llvm::Twine &Why) {
    return makeError(ErrorKind::Io,
                     "cannot write " + What + " '" + Path + "': " + Why);
  };
  StringRef Dir = llvm::sys::path::parent_path(Path);
  if (Dir.empty())
    Dir = ".";
  // The temporary lives beside the target so that rename() is atomic.
  llvm::SmallString<256> Model(Dir);
  llvm::sys::path::append(Model, "." + llvm::sys::path::filename(Path) +
                                     ".tmp-%%%%%%%%");
  int FD = -1;
  llvm::SmallString<256> TempPath;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, FD, TempPath))
    return Fail("cannot create a temporary file in '" + Dir +
                "': " + EC.message());

  std::error_code EC = writeAll(FD, Bytes);
  if (!EC && ::fsync(FD) != 0)
    EC = lastError();
  if (::close(FD) != 0 && !EC)
    EC = lastError();
  if (!EC)
    EC = llvm::sys::fs::rename(TempPath, Path);
  if (EC) {
    llvm::sys::fs::remove(TempPath);
    return Fail(EC.message());
  }
  syncDirectory(Dir);
  return Error::success();
}

} // namespace

llvm::Expected<std::string> readBoundedFile(StringRef Path, uint64_t Limit,
                                            StringRef What, PipeInput Pipes) {
  auto Fail = [&](const llvm::Twine &Why) {
    return makeError(ErrorKind::Usage,
                     "cannot read " + What + " '" + Path + "': " + Why);
  };
  int FD =
      ::open(Path.str().c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (FD < 0)
    return Fail(std::strerror(errno));
  FdCloser Closer{FD};
  struct stat St;
  if (::fstat(FD, &St) != 0)
    return Fail(std::strerror(errno));
  bool Pipe = S_ISFIFO(St.st_mode) || S_ISSOCK(St.st_mode);
  if (!S_ISREG(St.st_mode) && !(Pipe && Pipes == PipeInput::Allow))
    return Fail(S_ISDIR(St.st_mode) ? "it is a directory"
                : Pipe              ? "not a regular file (a pipe)"
                                    : "not a regular file (a device)");
  if (S_ISREG(St.st_mode) && uint64_t(St.st_size) > Limit)
    return Fail("it holds " + llvm::Twine(uint64_t(St.st_size)) +
                " bytes; the limit is " + llvm::Twine(Limit));
  // A pipe's writer is there already (or never comes: then read() sees the
  // end at once); wait for its bytes.
  if (std::error_code EC = makeBlocking(FD))
    return Fail(EC.message());
  std::string Text;
  if (S_ISREG(St.st_mode))
    Text.reserve(size_t(St.st_size));
  char Buf[1 << 16];
  for (;;) {
    ssize_t N = ::read(FD, Buf, sizeof(Buf));
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return Fail(std::strerror(errno));
    if (N == 0)
      return Text;
    if (Text.size() + uint64_t(N) > Limit)
      return Fail("it holds more than " + llvm::Twine(Limit) + " bytes");
    Text.append(Buf, size_t(N));
  }
}

Error writeFileAtomically(StringRef Path, StringRef Bytes, StringRef What) {
  struct stat St;
  bool Node = ::stat(Path.str().c_str(), &St) == 0 && !S_ISREG(St.st_mode) &&
              !S_ISDIR(St.st_mode);
  if (!Node)
    return writeThroughTemporary(Path, Bytes, What);
  std::error_code EC = writeInPlace(Path, Bytes);
  if (!EC)
    return Error::success();
  // A FIFO opened without blocking has no reader: ENXIO.
  std::string Why = EC.value() == ENXIO && S_ISFIFO(St.st_mode)
                        ? "no process reads the FIFO"
                        : EC.message();
  return makeError(ErrorKind::Io,
                   "cannot write " + What + " '" + Path + "': " + Why);
}

bool isPathInside(llvm::StringRef Path) {
  if (Path.empty() || llvm::sys::path::is_absolute(Path) || Path.back() == '/')
    return false;
  for (llvm::StringRef Part : llvm::make_range(llvm::sys::path::begin(Path),
                                               llvm::sys::path::end(Path)))
    if (Part == "." || Part == ".." || Part == "/")
      return false;
  return true;
}

} // namespace collplan
