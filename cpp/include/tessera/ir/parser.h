// Parsing the text format back into modules; errors name line, column and expectation.
#pragma once

#include <string>
#include <string_view>

#include "tessera/ir/module.h"

namespace tessera {

/// Parses a module in the text format. Accepts what PrintModule writes and Relay text
/// (`#[version]` header optional, `meta[relay.Constant][i]`, `/* ... */` comments, a
/// bare `fn (...) {...}` which becomes @main). Throws a parse error
/// "<source>:<line>:<col>: expected ..., got ..." on malformed text, and errors naming
/// the op and attribute for unknown ops or bad attributes.
IRModule ParseModule(std::string_view text, std::string_view source_name = "<string>");

/// Parses a single graph expression (free variables must be declared in `text` as
/// function parameters; used by tests).
Expr ParseExpr(std::string_view text, std::string_view source_name = "<string>");

}  // namespace tessera
