// The text format: Relay's syntax for graph functions, plus `primfn` for PrimFuncs.
#pragma once

#include <string>

#include "tessera/ir/module.h"
#include "tessera/ir/tir.h"

namespace tessera {

/// Options of the printer.
struct PrintOptions {
  /// Write large constants' data in the #[metadata] section (needed to parse back).
  bool show_meta_data = true;
  /// Without show_meta_data: still write the #[metadata] section with each constant's
  /// dtype and shape but not its data (a structural key that ignores constant values).
  bool meta_shapes_only = false;
  /// Append `/* ty=... */` comments with checked types where known.
  bool show_types = false;
};

/// Prints a whole module:
///   #[version = "0.0.5"]
///   def @main(%x: Tensor[(1, 3), float32]) -> Tensor[(1, 3), float32] { ... }
///   primfn @f(%A: Buffer[(10), float32], ...) outputs=1 { ... }
///   #[metadata]
///   {"Constant": [...]}
/// Constants of one element with a dtype that has a literal form print inline (`0f`,
/// `1i64`), others as `meta[Constant][i]`. parse(print(m)) is structurally equal to m.
std::string PrintModule(const IRModule& mod, const PrintOptions& options = {});
/// Prints one expression (e.g. a function) in the same syntax, without the header.
std::string PrintExpr(const Expr& expr, const PrintOptions& options = {});
/// Prints a scalar expression or statement of tensor IR.
std::string PrintPrimExpr(const tir::PrimExpr& expr);
std::string PrintStmt(const tir::Stmt& stmt);

}  // namespace tessera
