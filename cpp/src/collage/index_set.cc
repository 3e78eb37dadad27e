// IndexSet: word-at-a-time bit set operations over post-DFS indices.
#include "tessera/collage/index_set.h"

#include <bit>
#include <sstream>

#include "tessera/support/error.h"
#include "tessera/support/hash.h"

namespace tessera::collage {

namespace {
constexpr size_t kBits = 64;
size_t NumWords(size_t n) {
  return (n + kBits - 1) / kBits;
}
}  // namespace

IndexSet::IndexSet(size_t end_index) : end_index_(end_index), words_(NumWords(end_index), 0) {}

IndexSet::IndexSet(size_t end_index, const std::vector<size_t>& indexes) : IndexSet(end_index) {
  for (size_t i : indexes) Add(i);
}

void IndexSet::CheckSameSize(const IndexSet& that, const char* op) const {
  if (end_index_ != that.end_index_)
    TS_THROW(kInternal) << "IndexSet " << op << ": sets over " << end_index_ << " and "
                        << that.end_index_ << " indices cannot be mixed";
}

IndexSet IndexSet::operator&(const IndexSet& that) const {
  CheckSameSize(that, "&");
  IndexSet r(end_index_);
  for (size_t w = 0; w < words_.size(); ++w) r.words_[w] = words_[w] & that.words_[w];
  return r;
}

IndexSet IndexSet::operator|(const IndexSet& that) const {
  IndexSet r = *this;
  r |= that;
  return r;
}

IndexSet& IndexSet::operator|=(const IndexSet& that) {
  CheckSameSize(that, "|");
  for (size_t w = 0; w < words_.size(); ++w) words_[w] |= that.words_[w];
  return *this;
}

IndexSet IndexSet::operator-(const IndexSet& that) const {
  CheckSameSize(that, "-");
  IndexSet r(end_index_);
  for (size_t w = 0; w < words_.size(); ++w) r.words_[w] = words_[w] & ~that.words_[w];
  return r;
}

bool IndexSet::AreDisjoint(const IndexSet& that) const {
  CheckSameSize(that, "AreDisjoint");
  for (size_t w = 0; w < words_.size(); ++w)
    if (words_[w] & that.words_[w]) return false;
  return true;
}

bool IndexSet::IsSubset(const IndexSet& that) const {
  CheckSameSize(that, "IsSubset");
  for (size_t w = 0; w < words_.size(); ++w)
    if (words_[w] & ~that.words_[w]) return false;
  return true;
}

bool IndexSet::operator[](size_t index) const {
  return index < end_index_ && ((words_[index / kBits] >> (index % kBits)) & 1u);
}

void IndexSet::Add(size_t index) {
  if (index >= end_index_)
    TS_THROW(kInternal) << "IndexSet::Add: index " << index << " is outside [0, " << end_index_
                        << ")";
  words_[index / kBits] |= uint64_t{1} << (index % kBits);
}

void IndexSet::Remove(size_t index) {
  if (index < end_index_) words_[index / kBits] &= ~(uint64_t{1} << (index % kBits));
}

size_t IndexSet::PopCount() const {
  size_t n = 0;
  for (uint64_t w : words_) n += static_cast<size_t>(std::popcount(w));
  return n;
}

bool IndexSet::IsZero() const {
  for (uint64_t w : words_)
    if (w) return false;
  return true;
}

size_t IndexSet::LastInsideIndex() const {
  for (size_t w = words_.size(); w-- > 0;)
    if (words_[w]) return w * kBits + (kBits - 1 - std::countl_zero(words_[w]));
  return end_index_;
}

size_t IndexSet::NextIndex(size_t index) const {
  if (index >= end_index_) return end_index_;
  size_t w = index / kBits;
  uint64_t word = words_[w] & (~uint64_t{0} << (index % kBits));
  while (true) {
    if (word) return w * kBits + std::countr_zero(word);
    if (++w == words_.size()) return end_index_;
    word = words_[w];
  }
}

size_t IndexSet::FirstOutsideIndex() const {
  for (size_t w = 0; w < words_.size(); ++w)
    if (~words_[w]) {
      size_t i = w * kBits + std::countr_one(words_[w]);
      return i < end_index_ ? i : end_index_;
    }
  return end_index_;
}

IndexSet IndexSet::Subst(size_t new_end, const std::vector<size_t>& map) const {
  IndexSet r(new_end);
  for (size_t i : *this) {
    if (i >= map.size() || map[i] >= new_end)
      TS_THROW(kInternal) << "IndexSet::Subst: index " << i << " has no image below " << new_end;
    r.Add(map[i]);
  }
  return r;
}

std::vector<size_t> IndexSet::ToVector() const {
  return std::vector<size_t>(begin(), end());
}

std::string IndexSet::ToString() const {
  std::ostringstream os;
  os << "{";
  bool first = true;
  for (size_t i : *this) {
    os << (first ? "" : ",") << i;
    first = false;
  }
  os << "}";
  return os.str();
}

size_t IndexSet::Hash() const {
  size_t h = std::hash<size_t>()(end_index_);
  for (uint64_t w : words_) h = HashCombine(h, std::hash<uint64_t>()(w));
  return h;
}

bool operator<(const IndexSet& a, const IndexSet& b) {
  a.CheckSameSize(b, "<");
  for (size_t w = 0; w < a.words_.size(); ++w) {
    uint64_t diff = a.words_[w] ^ b.words_[w];
    if (!diff) continue;
    uint64_t lowest = diff & (~diff + 1);
    return (a.words_[w] & lowest) != 0;
  }
  return false;
}

}  // namespace tessera::collage
