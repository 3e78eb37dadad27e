// TVM layout strings ("NCHW", "NHWC", "NCHW16c", "OIHW4i4o"): parsing and checks shared by
// the layout_transform op and IndexMap::FromLayouts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::layout {

/// One axis of a layout string: primal letter 'A'..'Z' and, for a sub-axis, its size
/// (0 marks a primal axis).
struct LayoutAxis {
  char letter;
  int64_t factor;
};

/// A parsed layout string. An upper-case letter is a primal axis; a number followed by a
/// lower-case letter is a sub-axis of that size split off the primal axis of the same
/// letter, which must appear in the layout. Each letter appears at most once as primal and
/// once as sub-axis.
struct LayoutString {
  /// The text as given.
  std::string text;
  /// The axes in order.
  std::vector<LayoutAxis> axes;
  /// Position of each primal axis in `axes` ('A' at 0), -1 when absent.
  int primal_pos[26];
  /// Position of each sub-axis in `axes`, -1 when absent.
  int sub_pos[26];
  /// Size of each sub-axis, 0 when absent.
  int64_t sub_factor[26];
};

/// Parses `text`; `what` names it in errors ("src_layout"). Throws a value error naming
/// the text and the position of an unexpected character, a repeated axis, a sub-axis
/// without its primal axis or with a non-positive size, or an empty layout.
LayoutString ParseLayoutString(const std::string& text, const char* what);

/// Throws a value error unless `a` and `b` have the same primal axes; `a_what` and
/// `b_what` name them ("src_layout", "dst_layout").
void CheckSamePrimalAxes(const LayoutString& a, const char* a_what, const LayoutString& b,
                         const char* b_what);

}  // namespace tessera::layout
