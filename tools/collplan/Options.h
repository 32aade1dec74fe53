//===- Options.h - Options several subcommands share ------------*- C++ -*-===//

#ifndef COLLPLAN_TOOLS_OPTIONS_H
#define COLLPLAN_TOOLS_OPTIONS_H

#include "compiler/cost/CostParams.h"
#include "compiler/verify/Verifier.h"

#include <CLI/CLI.hpp>

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace collplan::cli {

/// Parses an integer with an optional unit spelled exactly: B, kB, MB, GB
/// (powers of 1000) or KiB, MiB, GiB (powers of 1024), as in "1048576",
/// "64KiB" or "1MB". "64K" and "1M" are refused as ambiguous.
llvm::Expected<uint64_t> parseByteSize(const std::string &Text);

/// A byte range "MIN:MAX" of --bytes: sizes as parseByteSize, MAX may be
/// inf. Whether it is inclusive and which bounds are allowed is the
/// command's to say.
struct ByteRange {
  uint64_t Min = 0;
  std::optional<uint64_t> Max; ///< None: inf.
};
/// Errors name Option and Text.
llvm::Expected<ByteRange> parseByteRange(const std::string &Option,
                                         const std::string &Text);

/// --bytes with size suffixes; Value keeps the parsed number.
struct ByteSizeOption {
  std::string Text = "1MiB";
  uint64_t Value = 1 << 20;
};
CLI::Option *addBytesOption(CLI::App &Cmd, ByteSizeOption &Bytes,
                            const std::string &Help);

/// --alpha, --beta, --gamma, --alpha-intra, --beta-intra, --alpha-hop,
/// --injection-bandwidth, --overhead, --overhead-per-byte,
/// --medium-message-bytes, --alpha-medium, --beta-medium,
/// --large-message-bytes, --alpha-large, --beta-large, --cores-per-node.
void addCostOptions(CLI::App &Cmd, CostParams &Params);

/// --format text|json.
enum class OutputFormat { Text, Json };
CLI::Option *addFormatOption(CLI::App &Cmd, OutputFormat &Format);

/// --timeout SECONDS, how long a rank waits for a peer: in [0.001, 86400],
/// the limits COLLPLAN_TIMEOUT has (zero fails every wait at once, NaN every
/// comparison).
CLI::Option *addTimeoutOption(CLI::App &Cmd, double &Seconds);

/// --NAME auto|exact|hashed.
CLI::Option *addVerifyModeOption(CLI::App &Cmd, const std::string &Name,
                                 VerifyMode &Mode);

/// Prints "collplan: <What>: N%" on stderr at most every two seconds, once
/// the run has taken two seconds: progress on long runs, silence on short
/// ones.
std::function<void(uint64_t Done, uint64_t Total)>
progressReporter(std::string What);

/// The contents of Path, given as Option: a regular file or a pipe of at
/// most Limit bytes (plan/ir/FileIo.h); a device (/dev/zero) or a larger
/// file is refused without reading on. Errors are usage errors naming the
/// option and the path.
llvm::Expected<std::string> readInputFile(const std::string &Option,
                                          const std::string &Path,
                                          uint64_t Limit);

/// Seconds in engineering units: "12.3 us", "4.56 ms".
std::string formatSeconds(double Seconds);
/// Bytes in binary units: "1.00 MiB".
std::string formatBytes(double Bytes);

} // namespace collplan::cli

#endif // COLLPLAN_TOOLS_OPTIONS_H
