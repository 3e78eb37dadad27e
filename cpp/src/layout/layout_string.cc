// Parsing of TVM layout strings ("NCHW16c"), shared by layout_transform and IndexMap.
#include "tessera/layout/layout_string.h"

#include <algorithm>

#include "tessera/support/error.h"

namespace tessera::layout {

LayoutString ParseLayoutString(const std::string& text, const char* what) {
  LayoutString layout;
  layout.text = text;
  std::fill(std::begin(layout.primal_pos), std::end(layout.primal_pos), -1);
  std::fill(std::begin(layout.sub_pos), std::end(layout.sub_pos), -1);
  std::fill(std::begin(layout.sub_factor), std::end(layout.sub_factor), 0);
  if (text.empty()) TS_THROW(kValue) << what << " must not be empty";
  size_t i = 0;
  while (i < text.size()) {
    int64_t factor = 0;
    size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (factor > (int64_t{1} << 40))
        TS_THROW(kValue) << what << " \"" << text << "\": sub-axis size is too large";
      factor = factor * 10 + (text[i++] - '0');
    }
    bool has_number = i > start;
    if (i == text.size())
      TS_THROW(kValue) << what << " \"" << text << "\": a size must be followed by a letter";
    char c = text[i++];
    if (c >= 'A' && c <= 'Z' && !has_number) {
      if (layout.primal_pos[c - 'A'] >= 0)
        TS_THROW(kValue) << what << " \"" << text << "\" repeats axis " << c;
      layout.primal_pos[c - 'A'] = static_cast<int>(layout.axes.size());
      layout.axes.push_back({c, 0});
    } else if (c >= 'a' && c <= 'z' && has_number) {
      char up = static_cast<char>(c - 'a' + 'A');
      if (factor <= 0)
        TS_THROW(kValue) << what << " \"" << text << "\": sub-axis " << c
                         << " must have a positive size";
      if (layout.sub_factor[up - 'A'] != 0)
        TS_THROW(kValue) << what << " \"" << text << "\" repeats sub-axis " << c;
      layout.sub_factor[up - 'A'] = factor;
      layout.sub_pos[up - 'A'] = static_cast<int>(layout.axes.size());
      layout.axes.push_back({up, factor});
    } else {
      TS_THROW(kValue) << what << " \"" << text << "\": unexpected '" << c << "' at position "
                       << (i - 1)
                       << " (expected an upper-case axis or a size and a lower-case sub-axis)";
    }
  }
  for (int k = 0; k < 26; ++k)
    if (layout.sub_factor[k] && layout.primal_pos[k] < 0)
      TS_THROW(kValue) << what << " \"" << text << "\" has sub-axis " << static_cast<char>('a' + k)
                       << " without its primal axis " << static_cast<char>('A' + k);
  return layout;
}

void CheckSamePrimalAxes(const LayoutString& a, const char* a_what, const LayoutString& b,
                         const char* b_what) {
  for (int k = 0; k < 26; ++k)
    if ((a.primal_pos[k] < 0) != (b.primal_pos[k] < 0))
      TS_THROW(kValue) << a_what << " \"" << a.text << "\" and " << b_what << " \"" << b.text
                       << "\" must have the same primal axes (axis " << static_cast<char>('A' + k)
                       << " is in only one)";
}

}  // namespace tessera::layout
