// The helpers shared by the channel-blocked conv2d templates (see conv_blocked_util.h).
#include "conv_blocked_util.h"

#include "lower_util.h"


namespace tessera::lower {

using namespace tir;

Indices BlockedOutIndex(const PrimExpr& n, const PrimExpr& ocb, int64_t tc, int64_t z, int64_t v,
                        const PrimExpr& oh, const PrimExpr& ow, const PrimExpr& l) {
  if (tc <= z) {
    const int64_t per = z / tc;
    return Indices{n, Div(ocb, per), oh, ow, per == 1 ? l : Simplify(Mod(ocb, per) * tc + l)};
  }
  return Indices{n, Simplify(ocb * (tc / z) + IntImm(v)), oh, ow, l};
}

std::vector<int64_t> Strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

float ConstantWeight::At(int64_t o, int64_t i, int64_t kh, int64_t kw) const {
  const int64_t ib = l.blocked() ? l.i_block : 1, ob = l.blocked() ? l.o_block : 1;
  int64_t off = o / ob * strides[l.perm[0]] + i / ib * strides[l.perm[1]] +
                kh * strides[l.perm[2]] + kw * strides[l.perm[3]];
  if (l.blocked()) off += i % ib * strides[4] + o % ob * strides[5];
  return data[off];
}

}  // namespace tessera::lower
