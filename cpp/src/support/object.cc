// Iterative destruction of reference-counted objects.
#include "tessera/support/object.h"

#include <vector>

namespace tessera {

void Object::Destroy(const Object* obj) noexcept {
  // Deleting a node releases its children; if that recursed, a long chain would
  // overflow the stack. Instead, children whose count drops to zero while we are
  // draining are queued here and deleted by the outermost call.
  thread_local std::vector<const Object*> pending;
  thread_local bool draining = false;
  pending.push_back(obj);
  if (draining) return;
  draining = true;
  while (!pending.empty()) {
    const Object* next = pending.back();
    pending.pop_back();
    delete next;
  }
  draining = false;
}

}  // namespace tessera
