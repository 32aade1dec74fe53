//===- Options.cpp - Options several subcommands share --------------------===//

#include "tools/collplan/Options.h"

#include "compiler/cost/CostParamsFile.h"
#include "plan/ir/Error.h"
#include "plan/ir/FileIo.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace collplan::cli {

llvm::Expected<uint64_t> parseByteSize(const std::string &Text) {
  llvm::StringRef S = llvm::StringRef(Text).trim();
  size_t Digits = S.find_first_not_of("0123456789");
  llvm::StringRef Number = S.substr(0, Digits),
                  Suffix = S.substr(std::min(Digits, S.size())).ltrim();
  // Case matters: kB is 10^3 bytes, KiB 2^10; "1M" or "1mb" could be either.
  static const struct {
    const char *Name;
    uint64_t Scale;
  } Units[] = {{"", 1},
               {"B", 1},
               {"kB", 1000},
               {"MB", 1000 * 1000},
               {"GB", 1000 * 1000 * 1000},
               {"KiB", uint64_t(1) << 10},
               {"MiB", uint64_t(1) << 20},
               {"GiB", uint64_t(1) << 30}};
  uint64_t N = 0;
  if (!Number.empty() && !Number.getAsInteger(10, N))
    for (const auto &U : Units)
      if (Suffix == U.Name) {
        if (N > UINT64_MAX / U.Scale)
          return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                         "'%s' is too large a byte size",
                                         Text.c_str());
        return N * U.Scale;
      }
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "'%s' is not a byte size; expected an integer with an optional unit: "
      "B, kB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024), "
      "spelled exactly so",
      Text.c_str());
}

llvm::Expected<ByteRange> parseByteRange(const std::string &Option,
                                         const std::string &Text) {
  auto Bad = [&](const llvm::Twine &Why) {
    return makeError(ErrorKind::Usage, Option + " '" + Text + "': " + Why);
  };
  auto [Lo, Hi] = llvm::StringRef(Text).split(':');
  if (Lo.empty() || Hi.empty())
    return Bad("expected MIN:MAX, e.g. 8:1GiB or 1MiB:inf");
  llvm::Expected<uint64_t> Min = parseByteSize(Lo.str());
  if (!Min)
    return Bad(llvm::toString(Min.takeError()));
  if (Hi == "inf")
    return ByteRange{*Min, std::nullopt};
  llvm::Expected<uint64_t> Max = parseByteSize(Hi.str());
  if (!Max)
    return Bad(llvm::toString(Max.takeError()));
  return ByteRange{*Min, *Max};
}

CLI::Option *addBytesOption(CLI::App &Cmd, ByteSizeOption &Bytes,
                            const std::string &Help) {
  return Cmd
      .add_option_function<std::string>(
          "--bytes,-m",
          [&Bytes](const std::string &Text) {
            llvm::Expected<uint64_t> V = parseByteSize(Text);
            if (!V)
              throw CLI::ValidationError("--bytes",
                                         llvm::toString(V.takeError()));
            Bytes.Text = Text;
            Bytes.Value = *V;
          },
          Help +
              ": an integer with an optional unit B, kB, MB, GB (10^3, "
              "10^6, 10^9) or KiB, MiB, GiB (2^10, 2^20, 2^30), "
              "case-sensitive (default " +
              Bytes.Text + ")")
      ->type_name("SIZE");
}

/// Cost flags take what a parameters file takes (parseCostNumber): CLI11
/// would read "0x10" as 16 and let "nan" and "inf" through (every comparison
/// with NaN is false, and a NaN cost parameter makes every prediction NaN).
static const CLI::Validator FiniteNonNegative(
    [](std::string &Text) -> std::string {
      if (!parseCostNumber(Text))
        return "expected a finite non-negative decimal number such as 2e-6 "
               "or 0.5, at most 1e30, got '" +
               Text + "'";
      return "";
    },
    "NONNEGATIVE");

void addCostOptions(CLI::App &Cmd, CostParams &Params) {
  CLI::Option *Alpha =
      Cmd.add_option("--alpha", Params.Alpha, "latency per message, seconds")
          ->capture_default_str()
          ->check(FiniteNonNegative);
  CLI::Option *Beta =
      Cmd.add_option("--beta", Params.Beta, "transfer time per byte, seconds")
          ->capture_default_str()
          ->check(FiniteNonNegative);
  CLI::Option *Gamma = Cmd.add_option("--gamma", Params.Gamma,
                                      "reduction time per byte, seconds")
                           ->capture_default_str()
                           ->check(FiniteNonNegative);
  CLI::Option *AlphaIntra =
      Cmd.add_option("--alpha-intra", Params.AlphaIntra,
                     "latency within a node (default: --alpha)")
          ->check(FiniteNonNegative);
  CLI::Option *BetaIntra =
      Cmd.add_option("--beta-intra", Params.BetaIntra,
                     "time per byte within a node (default: --beta)")
          ->check(FiniteNonNegative);
  CLI::Option *AlphaHop =
      Cmd.add_option("--alpha-hop", Params.AlphaHop,
                     "torus only: latency per link a message crosses, seconds")
          ->capture_default_str()
          ->check(FiniteNonNegative);
  CLI::Option *Injection =
      Cmd.add_option(
             "--injection-bandwidth", Params.InjectionBandwidth,
             "a node's injection bandwidth R_N, bytes per second, shared "
             "by its ranks sending between nodes (0 = unlimited)")
          ->capture_default_str()
          ->check(FiniteNonNegative);
  CLI::Option *Overhead =
      Cmd.add_option("--overhead", Params.Overhead,
                     "a rank's own time per message it sends or receives, "
                     "its messages of a round one after another, seconds "
                     "(0 = messages overlap)")
          ->capture_default_str()
          ->check(FiniteNonNegative);
  CLI::Option *OverheadPerByte =
      Cmd.add_option("--overhead-per-byte", Params.OverheadPerByte,
                     "the same per byte sent or received, seconds")
          ->capture_default_str()
          ->check(FiniteNonNegative);
  CLI::Option *MediumMessageBytes =
      Cmd.add_option("--medium-message-bytes", Params.MediumMessageBytes,
                     "messages of more bytes take --alpha-medium and "
                     "--beta-medium (a protocol or cache switch; 0 = off)")
          ->capture_default_str()
          ->check(FiniteNonNegative);
  CLI::Option *AlphaMedium =
      Cmd.add_option("--alpha-medium", Params.AlphaMedium,
                     "latency of a message above --medium-message-bytes "
                     "(default: --alpha)")
          ->check(FiniteNonNegative);
  CLI::Option *BetaMedium =
      Cmd.add_option("--beta-medium", Params.BetaMedium,
                     "time per byte of a message above --medium-message-bytes "
                     "(default: --beta)")
          ->check(FiniteNonNegative);
  CLI::Option *LargeMessageBytes =
      Cmd.add_option("--large-message-bytes", Params.LargeMessageBytes,
                     "messages of more bytes take --alpha-large and "
                     "--beta-large, over the medium ones (0 = off)")
          ->capture_default_str()
          ->check(FiniteNonNegative);
  CLI::Option *AlphaLarge =
      Cmd.add_option("--alpha-large", Params.AlphaLarge,
                     "latency of a message above --large-message-bytes "
                     "(default: the medium or plain alpha)")
          ->check(FiniteNonNegative);
  CLI::Option *BetaLarge =
      Cmd.add_option("--beta-large", Params.BetaLarge,
                     "time per byte of a message above --large-message-bytes "
                     "(default: the medium or plain beta)")
          ->check(FiniteNonNegative);
  CLI::Option *CoresPerNode =
      Cmd.add_option("--cores-per-node", Params.CoresPerNode,
                     "cores a node's ranks share: when more of them take "
                     "part in a round, their own work of it takes turns "
                     "(0 = unlimited)")
          ->capture_default_str()
          ->check(FiniteNonNegative);
  Cmd.add_option("--element-size", Params.ElementBytes,
                 "bytes per element of the call (4 for float): a vector of "
                 "few elements leaves blocks empty, and empty transfers cost "
                 "nothing (default 1: bytes)")
      ->check(CLI::Range(1u, 1u << 16));
  Cmd.add_option("--torus-ties", Params.Ties,
                 "torus only: a message half-way round a ring goes both "
                 "ways, half its bytes each (split, the Swing paper's "
                 "assumption) or all the + way (positive, a deterministic "
                 "router's)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, TorusTies>{
          {"split", TorusTies::Split}, {"positive", TorusTies::Positive}}))
      ->option_text("split|positive (default split)");
  // --params FILE: the file overrides the built-in defaults, explicit flags
  // override the file. Flags have been stored into Params by the time the
  // parse completes, so the file only sets the keys no flag gave.
  auto File = std::make_shared<std::string>();
  Cmd.add_option("--params", *File,
                 "cost parameters file (YAML, as `collplan calibrate` writes "
                 "it); explicit cost flags win over it");
  std::vector<std::pair<std::string, CLI::Option *>> ByKey = {
      {"alpha", Alpha},
      {"beta", Beta},
      {"gamma", Gamma},
      {"alpha_intra", AlphaIntra},
      {"beta_intra", BetaIntra},
      {"alpha_hop", AlphaHop},
      {"injection_bandwidth", Injection},
      {"overhead", Overhead},
      {"overhead_per_byte", OverheadPerByte},
      {"medium_message_bytes", MediumMessageBytes},
      {"alpha_medium", AlphaMedium},
      {"beta_medium", BetaMedium},
      {"large_message_bytes", LargeMessageBytes},
      {"alpha_large", AlphaLarge},
      {"beta_large", BetaLarge},
      {"cores_per_node", CoresPerNode}};
  Cmd.parse_complete_callback([File, ByKey, &Params] {
    if (File->empty())
      return;
    CostParams FromFile = Params;
    if (llvm::Error E = readCostParamsFile(*File, FromFile, nullptr))
      throw CLI::ValidationError("--params", llvm::toString(std::move(E)));
    for (const auto &[Key, Opt] : ByKey)
      if (Opt->count() == 0)
        *costParamField(Params, Key) = *costParamField(FromFile, Key);
  });
}

CLI::Option *addFormatOption(CLI::App &Cmd, OutputFormat &Format) {
  return Cmd.add_option("--format", Format, "output format: text or json")
      ->transform(CLI::CheckedTransformer(std::map<std::string, OutputFormat>{
          {"text", OutputFormat::Text}, {"json", OutputFormat::Json}}))
      ->option_text("text|json (default text)");
}

CLI::Option *addTimeoutOption(CLI::App &Cmd, double &Seconds) {
  return Cmd
      .add_option("--timeout", Seconds,
                  "seconds a rank waits for a peer to arrive or progress, "
                  "0.001 .. 86400")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string &Text) -> std::string {
            std::optional<double> V = parseCostNumber(Text);
            if (!V || *V < 0.001 || *V > 86400)
              return "expected seconds in [0.001, 86400], got '" + Text + "'";
            return "";
          },
          "SECONDS"));
}

CLI::Option *addVerifyModeOption(CLI::App &Cmd, const std::string &Name,
                                 VerifyMode &Mode) {
  return Cmd
      .add_option(Name, Mode,
                  "auto (exact for small P, hashed above), exact (bitsets) "
                  "or hashed")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, VerifyMode>{{"auto", VerifyMode::Auto},
                                            {"exact", VerifyMode::Exact},
                                            {"hashed", VerifyMode::Hashed}}))
      ->option_text("auto|exact|hashed (default auto)");
}

llvm::Expected<std::string> readInputFile(const std::string &Option,
                                          const std::string &Path,
                                          uint64_t Limit) {
  return readBoundedFile(Path, Limit, Option, PipeInput::Allow);
}

std::function<void(uint64_t, uint64_t)> progressReporter(std::string What) {
  using Clock = std::chrono::steady_clock;
  auto Start = Clock::now();
  auto Last = std::make_shared<Clock::time_point>(Start);
  return [What = std::move(What), Start, Last](uint64_t Done, uint64_t Total) {
    auto Now = Clock::now();
    if (Now - Start < std::chrono::seconds(2) ||
        Now - *Last < std::chrono::seconds(2) || Total == 0)
      return;
    *Last = Now;
    llvm::errs() << "collplan: " << What << ": " << (100 * Done / Total)
                 << "%\n";
  };
}

std::string formatSeconds(double Seconds) {
  static const struct {
    double Scale;
    const char *Unit;
  } Units[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
  char Buf[64];
  for (const auto &U : Units)
    if (std::fabs(Seconds) >= U.Scale || U.Scale == 1e-9) {
      std::snprintf(Buf, sizeof(Buf), "%.4g %s", Seconds / U.Scale, U.Unit);
      return Buf;
    }
  return "0 s";
}

std::string formatBytes(double Bytes) {
  static const char *Units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  unsigned I = 0;
  while (Bytes >= 1024 && I + 1 < std::size(Units)) {
    Bytes /= 1024;
    ++I;
  }
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), I ? "%.2f %s" : "%.0f %s", Bytes, Units[I]);
  return Buf;
}

} // namespace collplan::cli
