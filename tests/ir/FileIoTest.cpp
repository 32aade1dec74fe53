//===- FileIoTest.cpp - Bounded reads; writes that keep device nodes ------===//

#include "plan/ir/FileIo.h"
#include "plan/ir/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <doctest/doctest.h>

#include <chrono>
#include <fcntl.h>
#include <future>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace collplan;
namespace fs = llvm::sys::fs;

namespace {

/// A fresh directory, removed with its contents at the end of the test.
struct ScratchDir {
  llvm::SmallString<128> Path;
  ScratchDir() { REQUIRE(!fs::createUniqueDirectory("collplan-fileio", Path)); }
  ~ScratchDir() {
    // fs::remove leaves FIFOs alone.
    ::unlink(file("fifo").c_str());
    fs::remove_directories(Path);
  }
  std::string file(llvm::StringRef Name) const {
    llvm::SmallString<128> P(Path);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }
};

bool isFifo(const std::string &Path) {
  struct stat St;
  return ::lstat(Path.c_str(), &St) == 0 && S_ISFIFO(St.st_mode);
}

/// E's kind and message; E must be an error.
ErrorReport failure(llvm::Error E) {
  REQUIRE(bool(E));
  return takeErrorReport(std::move(E), ErrorKind::Runtime);
}

/// All a FIFO's reader gets, read on another thread: it waits in open()
/// for a writer.
std::future<std::string> readAll(const std::string &Path) {
  return std::async(std::launch::async, [Path] {
    std::string Text;
    int FD = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
    if (FD < 0)
      return Text;
    char Buf[256];
    for (ssize_t N; (N = ::read(FD, Buf, sizeof(Buf))) > 0;)
      Text.append(Buf, size_t(N));
    ::close(FD);
    return Text;
  });
}

} // namespace

TEST_CASE("a FIFO is written into, never replaced by a file") {
  ScratchDir Dir;
  std::string Fifo = Dir.file("fifo");
  REQUIRE(::mkfifo(Fifo.c_str(), 0600) == 0);
  // No reader: an error at once, not a wait, and the FIFO stays.
  ErrorReport R = failure(writeFileAtomically(Fifo, "x", "plan file"));
  CHECK(R.Kind == ErrorKind::Io);
  CHECK_MESSAGE(R.Message.find("no process reads the FIFO") !=
                    std::string::npos,
                R.Message);
  CHECK(isFifo(Fifo));
  // A reader gets every byte, once it is there.
  std::future<std::string> Got = readAll(Fifo);
  for (int I = 0; I < 500; ++I) {
    llvm::Error E = writeFileAtomically(Fifo, "hello\n", "plan file");
    if (!E)
      break;
    llvm::consumeError(std::move(E));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(Got.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(Got.get() == "hello\n");
  CHECK(isFifo(Fifo));
}

TEST_CASE("a character device is written into: /dev/null stays, /dev/full "
          "fails") {
  CHECK(!writeFileAtomically("/dev/null", "x"));
  struct stat St;
  REQUIRE(::stat("/dev/null", &St) == 0);
  CHECK(S_ISCHR(St.st_mode));
  if (::stat("/dev/full", &St) == 0) {
    ErrorReport R = failure(writeFileAtomically("/dev/full", "x", "rules"));
    CHECK(R.Kind == ErrorKind::Io);
    CHECK_MESSAGE(R.Message.find("'/dev/full'") != std::string::npos,
                  R.Message);
  }
}

TEST_CASE("reads are bounded and refuse devices, directories and FIFOs") {
  ScratchDir Dir;
  std::string File = Dir.file("f");
  REQUIRE(!writeFileAtomically(File, "0123456789"));
  llvm::Expected<std::string> Whole = readBoundedFile(File, 10, "index");
  REQUIRE(bool(Whole));
  CHECK(*Whole == "0123456789");
  // Larger than the limit: refused before reading, naming both.
  ErrorReport Big = failure(readBoundedFile(File, 9, "index").takeError());
  CHECK(Big.Kind == ErrorKind::Usage);
  CHECK_MESSAGE(Big.Message.find("holds 10 bytes; the limit is 9") !=
                    std::string::npos,
                Big.Message);
  // An endless device used to be read until memory ran out.
  ErrorReport Zero =
      failure(readBoundedFile("/dev/zero", 1 << 20, "params", PipeInput::Allow)
                  .takeError());
  CHECK(Zero.Kind == ErrorKind::Usage);
  CHECK_MESSAGE(Zero.Message.find("not a regular file") != std::string::npos,
                Zero.Message);
  CHECK(failure(readBoundedFile(Dir.Path, 100, "index").takeError())
            .Message.find("directory") != std::string::npos);
  // A FIFO nobody writes: refused, or (pipes allowed) empty, never a wait.
  std::string Fifo = Dir.file("fifo");
  REQUIRE(::mkfifo(Fifo.c_str(), 0600) == 0);
  CHECK(failure(readBoundedFile(Fifo, 100, "index").takeError())
            .Message.find("a pipe") != std::string::npos);
  llvm::Expected<std::string> Empty =
      readBoundedFile(Fifo, 100, "params", PipeInput::Allow);
  REQUIRE(bool(Empty));
  CHECK(Empty->empty());
  CHECK(
      failure(readBoundedFile(Dir.file("missing"), 100, "hostfile").takeError())
          .Message.find("cannot read hostfile '") == 0);
}
