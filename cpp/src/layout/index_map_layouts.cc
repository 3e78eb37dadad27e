// IndexMap::FromLayouts: the map between two TVM layout strings ("NCHW" -> "NCHW16c").
#include <cctype>

#include "tessera/layout/index_map.h"
#include "tessera/layout/layout_string.h"
#include "tessera/support/error.h"

namespace tessera::layout {

IndexMap IndexMap::FromLayouts(const std::string& src_layout, const std::string& dst_layout) {
  LayoutString src = ParseLayoutString(src_layout, "source layout");
  LayoutString dst = ParseLayoutString(dst_layout, "destination layout");
  CheckSamePrimalAxes(src, "source layout", dst, "destination layout");
  std::vector<tir::Var> vars;
  for (const LayoutAxis& a : src.axes) {
    std::string name(1, static_cast<char>(std::tolower(static_cast<unsigned char>(a.letter))));
    if (a.factor) name += std::to_string(a.factor);
    vars.push_back(tir::MakeVar(name));
  }
  auto var_at = [&](int pos) -> tir::PrimExpr { return vars[static_cast<size_t>(pos)]; };
  // The full index of primal axis k. A source sub-axis is written `c4 % 4`: the map then
  // states the sub-axis' extent, which composing it with a different split needs.
  auto full = [&](int k) {
    tir::PrimExpr p = var_at(src.primal_pos[k]);
    int64_t f = src.sub_factor[k];
    if (!f) return p;
    return p * tir::IntImm(f) + tir::FloorMod(var_at(src.sub_pos[k]), tir::IntImm(f));
  };
  std::vector<tir::PrimExpr> outs;
  for (const LayoutAxis& a : dst.axes) {
    int k = a.letter - 'A';
    int64_t fs = src.sub_factor[k], fd = dst.sub_factor[k];
    if (a.factor == 0) {
      // A primal axis: the same split in both layouts maps axis to axis.
      if (fd == 0)
        outs.push_back(fs ? full(k) : var_at(src.primal_pos[k]));
      else
        outs.push_back(fs == fd ? var_at(src.primal_pos[k])
                                : tir::FloorDiv(full(k), tir::IntImm(fd)));
    } else {
      outs.push_back(fs == fd ? var_at(src.sub_pos[k]) : tir::FloorMod(full(k), tir::IntImm(fd)));
    }
  }
  return IndexMap(vars, outs);
}

}  // namespace tessera::layout
