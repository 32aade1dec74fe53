//===- CostParamsFile.h - Cost parameters in a YAML file --------*- C++ -*-===//
//
// `collplan calibrate` writes the parameters it measured; `--params FILE`
// reads them back. The file is a flat YAML mapping of the CostParams fields
// (alpha, beta, gamma, alpha_intra, beta_intra, alpha_hop,
// injection_bandwidth, overhead, overhead_per_byte, medium_message_bytes,
// alpha_medium, beta_medium, large_message_bytes, alpha_large, beta_large,
// cores_per_node),
// one "key: number" a
// line, '#' starts a comment. Keys that are absent keep their value; an
// unknown key, a repeated key, or a value the flags would refuse (anything
// but a plain non-negative decimal of at most 1e30) is an error naming the
// line.
//
//===----------------------------------------------------------------------===//

#ifndef COLLPLAN_COST_COSTPARAMSFILE_H
#define COLLPLAN_COST_COSTPARAMSFILE_H

#include "compiler/cost/CostParams.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

/// The largest bytes a parameters file may hold: a few hundred make one.
constexpr uint64_t MaxCostParamsFileBytes = 1 << 20;

/// The largest value a cost parameter may take: products with byte counts
/// (up to 2^64) and round counts stay finite.
constexpr double MaxCostNumber = 1e30;

/// A cost parameter's value, as the flags and the file both take it: a plain
/// non-negative decimal number, optionally in scientific notation ("2e-6",
/// "0.5"), at most MaxCostNumber; nullopt for anything else ("0x10", "-1",
/// "inf", "nan", "1e308", "1e-6s").
std::optional<double> parseCostNumber(llvm::StringRef Text);

/// The file's keys, in the order they are written.
const std::vector<std::string> &costParamKeys();

/// The field of P that Key names; nullptr when Key is unknown.
double *costParamField(CostParams &P, llvm::StringRef Key);

/// Parses Text (named Name in messages) into Into, setting the keys it has.
/// Set receives every key found, so callers can let explicit flags win.
llvm::Error parseCostParams(llvm::StringRef Text, llvm::StringRef Name,
                            CostParams &Into, std::vector<std::string> *Set);

/// Reads Path; unreadable files are a Usage error.
llvm::Error readCostParamsFile(llvm::StringRef Path, CostParams &Into,
                               std::vector<std::string> *Set);

/// Writes the fields Keys names of P (with Comment lines first, each
/// prefixed "# ") to Path whole or not at all, each with the digits that
/// read back as the same double. Negative (unset) fields are left out.
llvm::Error writeCostParamsFile(llvm::StringRef Path, const CostParams &P,
                                const std::vector<std::string> &Keys,
                                llvm::StringRef Comment);

} // namespace collplan

#endif // COLLPLAN_COST_COSTPARAMSFILE_H
