// Internals the pass C API's sources share: the pass info and instrument handle structs and
// JSON <-> attribute value conversion for configs and options.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "tessera/transform/pass_instrument.h"

/// A pass info: lent ones (to instrument hooks) point at the pass's own info; owned ones
/// hold a copy.
struct TsPassInfo_ {
  const tessera::PassInfo* info;
  std::unique_ptr<tessera::PassInfo> owned;
};
/// A handle to an instrument the contexts holding it share.
struct TsPassInstrument_ {
  std::shared_ptr<tessera::PassInstrument> instrument;
};

namespace tessera::capi {

/// The instruments behind borrowed handles (a NULL array with a count, or a NULL entry,
/// is a value error).
std::vector<std::shared_ptr<PassInstrument>> InstrumentsFromC(const TsPassInstrument* instruments,
                                                              size_t count);

/// A new owned pass info holding a copy of `info`.
inline TsPassInfo GiveInfo(const PassInfo& info) {
  auto owned = std::make_unique<PassInfo>(info);
  const PassInfo* raw = owned.get();
  return new TsPassInfo_{raw, std::move(owned)};
}

}  // namespace tessera::capi
