// Reference-counted immutable objects: the base of every IR node and runtime value.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace tessera {

/// Identifies the concrete class of an Object; families occupy contiguous ranges so
/// that `IsInstance` of an abstract base is a range check (LLVM-style classof).
enum class TypeIndex : uint16_t {
  kObject = 0,
  // Types.
  kTensorType,
  kTupleType,
  kFuncType,
  // Graph-level expressions.
  kVar,
  kGlobalVar,
  kConstant,
  kOp,
  kCall,
  kTuple,
  kTupleGetItem,
  kLet,
  kFunction,
  kPrimFunc,
  // Tensor-level scalar expressions.
  kIntImm,
  kFloatImm,
  kTirVar,
  kBinary,
  kNot,
  kSelect,
  kCast,
  kBufferLoad,
  kIntrinsic,
  // Tensor-level statements.
  kFor,
  kBlock,
  kBufferStore,
  kAllocate,
  kSeqStmt,
  kIfThenElse,
  kPrefetch,
  // Other objects.
  kBuffer,
  kIRModule,
  kOther,
};

/// Base of all reference-counted objects. Destruction is iterative, so releasing the
/// last handle to a 20,000-node chain does not recurse 20,000 frames deep.
class Object {
 public:
  /// Concrete class of this object.
  TypeIndex type_index() const { return type_index_; }
  /// Number of handles currently referring to this object.
  int32_t use_count() const { return ref_count_.load(std::memory_order_relaxed); }

  void IncRef() const noexcept { ref_count_.fetch_add(1, std::memory_order_relaxed); }
  void DecRef() const noexcept {
    if (ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) Destroy(this);
  }

  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  virtual ~Object() = default;

  static constexpr TypeIndex kFirst = TypeIndex::kObject;
  static constexpr TypeIndex kLast = TypeIndex::kOther;

 protected:
  explicit Object(TypeIndex index) : type_index_(index) {}

 private:
  static void Destroy(const Object* obj) noexcept;
  mutable std::atomic<int32_t> ref_count_{0};
  TypeIndex type_index_;
};

/// True when `obj` is an instance of node class T (or of a class in T's family).
template <typename T>
inline bool IsInstance(const Object* obj) {
  return obj && obj->type_index() >= T::kFirst && obj->type_index() <= T::kLast;
}

/// A strong, nullable handle to an Object of class T (usually `const Node`).
template <typename T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}  // NOLINT: handles are nullable like pointers.
  explicit Ref(T* ptr) : ptr_(ptr) {
    if (ptr_) ptr_->IncRef();
  }
  Ref(const Ref& other) : ptr_(other.ptr_) {
    if (ptr_) ptr_->IncRef();
  }
  Ref(Ref&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  template <typename U>
  Ref(const Ref<U>& other) : ptr_(other.get()) {  // NOLINT: implicit upcast.
    if (ptr_) ptr_->IncRef();
  }
  template <typename U>
  Ref(Ref<U>&& other) noexcept : ptr_(other.release()) {}  // NOLINT: implicit upcast.
  ~Ref() {
    if (ptr_) ptr_->DecRef();
  }
  Ref& operator=(Ref other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }

  T* get() const { return ptr_; }
  T* operator->() const { return ptr_; }
  T& operator*() const { return *ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }
  bool defined() const { return ptr_ != nullptr; }
  bool same_as(const Ref& other) const { return ptr_ == other.ptr_; }
  friend bool operator==(const Ref& a, const Ref& b) { return a.ptr_ == b.ptr_; }
  friend bool operator==(const Ref& a, std::nullptr_t) { return a.ptr_ == nullptr; }

  /// The node as class U, or nullptr when it is not one.
  template <typename U>
  const U* as() const {
    return IsInstance<U>(ptr_) ? static_cast<const U*>(ptr_) : nullptr;
  }

  /// Releases ownership without decrementing (used by moves across handle types).
  T* release() { return std::exchange(ptr_, nullptr); }

 private:
  T* ptr_ = nullptr;
};

/// Allocates a node and returns the first handle to it.
template <typename T, typename... Args>
Ref<T> MakeNode(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

/// Hashes a handle by identity (for pointer-keyed maps whose iteration order never
/// decides output).
struct RefHash {
  template <typename T>
  size_t operator()(const Ref<T>& r) const {
    return std::hash<const void*>()(r.get());
  }
};

}  // namespace tessera
