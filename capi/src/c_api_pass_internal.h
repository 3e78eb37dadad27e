// Internals the pass C API's sources share: the pass info and instrument handle structs,
// JSON <-> attribute value conversion for configs and options, and C name arrays.
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

/// A config or option value from JSON (bool, int, float, string, arrays of those; null is
/// None); `what` names it in errors.
AttrValue AttrFromJson(const std::string& what, const nlohmann::json& value);
/// The JSON of an attribute value (None is null).
nlohmann::json JsonOf(const AttrValue& value);
/// An attribute dictionary from a JSON object text (NULL or "" is empty).
Attrs AttrsFromJsonText(const char* text, const std::string& what);

/// Names from a C array (`names` may be NULL when `count` is 0; a NULL entry is a value
/// error naming `what` and the index).
std::vector<std::string> NamesFromC(const char* const* names, size_t count, const char* what);

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

/// Throws a value error when `index` is not below `size`, naming `what`.
void CheckIndex(size_t index, size_t size, const char* what);

/// The user data of a C callback and its destructor, called once when the last holder
/// goes (passes and instruments copy their callbacks around).
class UserData {
 public:
  UserData(void* data, TsUserDataDestroy destroy) : data_(data), destroy_(destroy) {}
  ~UserData() {
    if (destroy_) destroy_(data_);
  }
  UserData(const UserData&) = delete;
  UserData& operator=(const UserData&) = delete;
  void* get() const { return data_; }

 private:
  void* data_;
  TsUserDataDestroy destroy_;
};

/// Takes ownership of `data` at once, so a failing Create still calls `destroy`.
inline std::shared_ptr<UserData> TakeUserData(void* data, TsUserDataDestroy destroy) {
  try {
    return std::make_shared<UserData>(data, destroy);
  } catch (...) {
    if (destroy) destroy(data);
    throw;
  }
}

}  // namespace tessera::capi
