// IndexSet: a fixed-size bit set over a DataflowGraph's post-DFS indices, with set
// operations that work a 64-bit word at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace tessera::collage {

/// A set of post-DFS indices in [0, end_index). Every binary operation requires both
/// sets to have the same end_index (an internal error otherwise).
class IndexSet {
 public:
  IndexSet() = default;
  /// The empty set over [0, end_index).
  explicit IndexSet(size_t end_index);
  /// The set over [0, end_index) holding `indexes` (each must be < end_index).
  IndexSet(size_t end_index, const std::vector<size_t>& indexes);

  /// One past the largest index the set may hold.
  size_t end_index() const { return end_index_; }

  IndexSet operator&(const IndexSet& that) const;
  IndexSet operator|(const IndexSet& that) const;
  IndexSet operator-(const IndexSet& that) const;
  IndexSet& operator|=(const IndexSet& that);

  /// No index is in both sets.
  bool AreDisjoint(const IndexSet& that) const;
  /// Every index of this set is in `that`.
  bool IsSubset(const IndexSet& that) const;
  /// Some index is in both sets.
  bool Intersects(const IndexSet& that) const { return !AreDisjoint(that); }

  /// Whether `index` is in the set (false for index >= end_index).
  bool operator[](size_t index) const;
  /// Adds `index` (must be < end_index).
  void Add(size_t index);
  /// Removes `index`.
  void Remove(size_t index);
  /// The number of indices in the set.
  size_t PopCount() const;
  bool IsZero() const;

  /// The smallest index in the set, or end_index when empty.
  size_t FirstInsideIndex() const { return NextIndex(0); }
  /// The largest index in the set, or end_index when empty.
  size_t LastInsideIndex() const;
  /// The smallest index >= `index` in the set, or end_index.
  size_t NextIndex(size_t index) const;
  /// The smallest index not in the set, or end_index when full.
  size_t FirstOutsideIndex() const;

  /// The set over [0, new_end) holding map[i] for every i in this set. `map` must cover
  /// every set index with a value < new_end (an internal error otherwise).
  IndexSet Subst(size_t new_end, const std::vector<size_t>& map) const;

  /// The indices in ascending order.
  std::vector<size_t> ToVector() const;
  /// "{1,2,5}".
  std::string ToString() const;
  size_t Hash() const;

  /// Iterates the set's indices in ascending order.
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = size_t;
    using difference_type = std::ptrdiff_t;
    using pointer = const size_t*;
    using reference = size_t;
    Iterator() = default;
    Iterator(const IndexSet* set, size_t index) : set_(set), index_(index) {}
    size_t operator*() const { return index_; }
    Iterator& operator++() {
      index_ = set_->NextIndex(index_ + 1);
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    bool operator!=(const Iterator& that) const { return index_ != that.index_; }
    bool operator==(const Iterator& that) const { return index_ == that.index_; }

   private:
    const IndexSet* set_ = nullptr;
    size_t index_ = 0;
  };
  Iterator begin() const { return Iterator(this, FirstInsideIndex()); }
  Iterator end() const { return Iterator(this, end_index_); }

  friend bool operator==(const IndexSet& a, const IndexSet& b) {
    return a.end_index_ == b.end_index_ && a.words_ == b.words_;
  }
  friend bool operator!=(const IndexSet& a, const IndexSet& b) { return !(a == b); }
  /// Lexicographic from index 0: at the first index where the sets differ, the set
  /// holding that index sorts first (so {1,2} < {1,3} < {2}).
  friend bool operator<(const IndexSet& a, const IndexSet& b);

 private:
  void CheckSameSize(const IndexSet& that, const char* op) const;

  size_t end_index_ = 0;
  std::vector<uint64_t> words_;
};

/// Hash functor for unordered containers.
struct IndexSetHash {
  size_t operator()(const IndexSet& set) const { return set.Hash(); }
};

}  // namespace tessera::collage
