// Iterative destruction of reference-counted objects.
#include "tessera/support/object.h"

#include <cstdlib>

namespace tessera {

namespace {
// Deleting a node releases its children; if that recursed, a long chain would overflow
// the stack. Instead, children whose count drops to zero while we are draining are
// queued and deleted by the outermost call. The queue is plain thread-local data with no
// destructor, so it stays usable while other thread-locals holding handles are being
// destroyed at thread exit; its buffer is freed whenever the queue drains empty.
// The first entries live in an inline array so that freeing a small node allocates
// nothing.
constexpr size_t kInlineCapacity = 64;
thread_local const Object* queue_inline[kInlineCapacity];
thread_local const Object** queue_data = nullptr;  // heap storage once the inline part is full
thread_local size_t queue_size = 0;
thread_local size_t queue_capacity = 0;  // of queue_data
thread_local bool draining = false;

const Object*& Slot(size_t i) {
  return i < kInlineCapacity ? queue_inline[i] : queue_data[i - kInlineCapacity];
}

bool Push(const Object* obj) {
  if (queue_size >= kInlineCapacity && queue_size - kInlineCapacity == queue_capacity) {
    size_t capacity = queue_capacity ? queue_capacity * 2 : 256;
    void* grown = std::realloc(static_cast<void*>(queue_data), capacity * sizeof(const Object*));
    if (!grown) return false;
    queue_data = static_cast<const Object**>(grown);
    queue_capacity = capacity;
  }
  Slot(queue_size++) = obj;
  return true;
}
}  // namespace

void Object::Destroy(const Object* obj) noexcept {
  if (draining) {
    // Out of memory for the queue: fall back to recursive deletion rather than leak.
    if (!Push(obj)) delete obj;
    return;
  }
  draining = true;
  delete obj;
  while (queue_size > 0) delete Slot(--queue_size);
  std::free(static_cast<void*>(queue_data));
  queue_data = nullptr;
  queue_capacity = 0;
  draining = false;
}

}  // namespace tessera
