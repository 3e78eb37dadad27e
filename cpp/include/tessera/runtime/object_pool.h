// A pool of reusable per-call objects (arenas, oneDNN plans, scratch buffers) so that
// concurrent calls each get their own without allocating on every call.
#pragma once

#include <mutex>
#include <utility>
#include <vector>

namespace tessera::runtime {

/// Objects no call is using. Take() lends one (or makes one when all are lent); the lease
/// gives it back when it ends, also when the call throws.
template <typename T>
class ObjectPool {
 public:
  /// An object lent by the pool for one call.
  class Lease {
   public:
    Lease(ObjectPool& pool, T obj) : pool_(&pool), obj_(std::move(obj)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_->Put(std::move(obj_)); }
    T& operator*() { return obj_; }
    T* operator->() { return &obj_; }

   private:
    ObjectPool* pool_;
    T obj_;
  };

  /// Lends a free object, or `make()`'s result when none is free.
  template <typename Make>
  Lease Take(Make&& make) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        T obj = std::move(free_.back());
        free_.pop_back();
        return Lease(*this, std::move(obj));
      }
    }
    return Lease(*this, make());
  }

  /// Adds `obj` to the free objects.
  void Put(T obj) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(obj));
  }

 private:
  std::mutex mutex_;
  std::vector<T> free_;
};

}  // namespace tessera::runtime
