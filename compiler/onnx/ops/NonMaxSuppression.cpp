//===- NonMaxSuppression.cpp - ONNX NonMaxSuppression ---------------------===//
//
// Per batch and class, the candidates (scores above the threshold) in
// order of score, each kept unless a kept one before it overlaps it by
// more than the IoU threshold, at most the limit kept. Every box's rank
// comes from comparing its score with every other. Then one of two ways:
//
// - by decisions (a static count of at most kMaxDecidedBoxes a class):
//   the ranks are decided one at a time, two small dispatches each,
//   unrolled at import; each marks the later ranks the kept one
//   suppresses, all at once.
// - by rounds (a count known per call, as detectors' candidates after a
//   score threshold, or more boxes): a kernel writes for each rank which
//   earlier ranks overlap it too much, 64 to a word, and a loop the runtime
//   repeats (compiler/host/LoopCalls.h) decides every rank whose
//   overlapping predecessors are all decided: suppressed where one of them
//   is kept, kept where none is. Greedy selection is this fixed point (by
//   induction over the ranks), and each round decides at least the first
//   undecided rank, so the rounds are at most the count, in practice the
//   longest chain of overlaps. The kept ranks past the limit are dropped:
//   those the greedy pass would not reach.
//
// The host reads how many are kept (a computed extent: the function runs
// in phases, compiler/host/Phases.h) and a kernel writes their rows.
//
//===----------------------------------------------------------------------===//

#include "compiler/host/LoopCalls.h"
#include "compiler/onnx/ops/Selection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"

#include <array>
#include <limits>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

using namespace selection;

/// The most boxes a class that are decided one rank at a time (two small
/// kernels each); more, or a count known per call, go by rounds.
constexpr int64_t kMaxDecidedBoxes = 512;
/// The most boxes over all batches and classes decided so: each output row
/// is picked from all of them.
constexpr int64_t kMaxDecidedCandidates = 65536;
/// The most boxes a class by rounds, checked per call (a round is a loop
/// step, and the runtime's steps are bounded), and the most bytes of their
/// overlap masks (boxes squared over 8 a class).
constexpr int64_t kMaxRoundBoxes = int64_t(1) << 20;
constexpr int64_t kMaxMaskBytes = int64_t(1) << 30;

/// Element 0 of `t` (an optional input of one element, null where the
/// node leaves it out) read inside a kernel body, or `absent`.
Value scalarInput(OpBuilder &nb, Location l, Value t, Value absent) {
  if (!t)
    return absent;
  llvm::SmallVector<Value> zeros(cast<RankedTensorType>(t.getType()).getRank(),
                                 arith::ConstantIndexOp::create(nb, l, 0));
  return tensor::ExtractOp::create(nb, l, t, zeros);
}

Value toIndex(OpBuilder &nb, Location l, Value v) {
  return arith::IndexCastOp::create(nb, l, nb.getIndexType(), v);
}

Value indexConstant(OpBuilder &nb, Location l, int64_t v) {
  return arith::ConstantIndexOp::create(nb, l, v);
}

/// What both ways share: the node's inputs, the candidates' order and how
/// two boxes compare. `Boxes` may be dynamic: `Sizes` then holds its
/// extent (an index on the host), for each `?` of the tensors built.
struct Suppression {
  NodeContext &Ctx;
  OpBuilder &B;
  Location Loc;
  int64_t Batches, Classes, Boxes;
  bool Centers;
  Value BoxesIn, Scores;
  std::array<Value, 5> Given; // the optional scalars, by input
  llvm::SmallVector<Value, 1> Sizes;

  AffineExpr d(unsigned i) const { return getAffineDimExpr(i, B.getContext()); }
  AffineMap map(unsigned dims, llvm::ArrayRef<AffineExpr> results) const {
    return AffineMap::get(dims, 0, results, B.getContext());
  }

  /// A box's candidacy (i8 [B, C, N]): its score above the threshold, where
  /// one is given.
  Value candidates() {
    Type i8 = B.getI8Type();
    return generic(
        B, Loc, ValueRange{Scores},
        {AffineMap::getMultiDimIdentityMap(3, B.getContext())},
        tensor::EmptyOp::create(B, Loc, {Batches, Classes, Boxes}, i8, Sizes),
        AffineMap::getMultiDimIdentityMap(3, B.getContext()),
        {kParallel, kParallel, kParallel},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          if (!Given[4])
            return arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(1));
          return arith::ExtUIOp::create(
              nb, l, i8,
              arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, args[0],
                                    scalarInput(nb, l, Given[4], Value())));
        });
  }

  /// rank[b, c, i]: the boxes before box i, higher scores first and the
  /// lower index first among equal ones.
  Value ranks() {
    return generic(
        B, Loc, ValueRange{Scores, Scores},
        {map(4, {d(0), d(1), d(3)}), map(4, {d(0), d(1), d(2)})},
        filled(B, Loc, {Batches, Classes, Boxes}, B.getI64Type(),
               i64Constant(B, Loc, 0), Sizes),
        map(4, {d(0), d(1), d(2)}),
        {kParallel, kParallel, kParallel, kReduction},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value higher = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT,
                                               args[0], args[1]);
          Value tie = arith::AndIOp::create(
              nb, l,
              arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, args[0],
                                    args[1]),
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                    linalg::IndexOp::create(nb, l, 3),
                                    linalg::IndexOp::create(nb, l, 2)));
          Value before = arith::OrIOp::create(nb, l, higher, tie);
          return arith::AddIOp::create(
              nb, l, args[2],
              arith::ExtUIOp::create(nb, l, nb.getI64Type(), before));
        });
  }

  /// order[b, c, k]: the box of rank k. Ranks are a permutation, so one
  /// box matches each: an OR of the matches, a reduction the GPU splits
  /// across a workgroup per rank.
  Value orders(Value rank) {
    return generic(B, Loc, ValueRange{rank}, {map(4, {d(0), d(1), d(3)})},
                   filled(B, Loc, {Batches, Classes, Boxes}, B.getI64Type(),
                          i64Constant(B, Loc, 0), Sizes),
                   map(4, {d(0), d(1), d(2)}),
                   {kParallel, kParallel, kParallel, kReduction},
                   [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                     Type i64 = nb.getI64Type();
                     Value here = arith::CmpIOp::create(
                         nb, l, arith::CmpIPredicate::eq, args[0],
                         arith::IndexCastOp::create(
                             nb, l, i64, linalg::IndexOp::create(nb, l, 2)));
                     return arith::OrIOp::create(
                         nb, l, args[1],
                         arith::SelectOp::create(
                             nb, l, here,
                             arith::IndexCastOp::create(
                                 nb, l, i64, linalg::IndexOp::create(nb, l, 3)),
                             i64Constant(nb, l, 0)));
                   });
  }

  /// corners[b, c, k, j]: corner j (as cornersOf orders them) of the box
  /// of rank k, so that comparing ranks reads them in place: the overlap
  /// masks compare every pair.
  Value rankedCorners(Value order) {
    return generic(
        B, Loc, ValueRange{order}, {map(4, {d(0), d(1), d(2)})},
        tensor::EmptyOp::create(B, Loc, {Batches, Classes, Boxes, 4},
                                B.getF32Type(), Sizes),
        AffineMap::getMultiDimIdentityMap(4, B.getContext()),
        {kParallel, kParallel, kParallel, kParallel},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          std::array<Value, 4> corners = cornersOf(
              nb, l, linalg::IndexOp::create(nb, l, 0),
              arith::IndexCastOp::create(nb, l, nb.getIndexType(), args[0]));
          Value j = linalg::IndexOp::create(nb, l, 3);
          Value corner = corners[3];
          for (int64_t k = 2; k >= 0; --k)
            corner = arith::SelectOp::create(
                nb, l,
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, j,
                                      indexConstant(nb, l, k)),
                corners[k], corner);
          return corner;
        });
  }

  /// The corners of the box of rank `rank` (rankedCorners).
  std::array<Value, 4> cornersAt(OpBuilder &nb, Location l, Value corners,
                                 Value batch, Value cls, Value rank) {
    std::array<Value, 4> at;
    for (int64_t j = 0; j < 4; ++j)
      at[j] = tensor::ExtractOp::create(
          nb, l, corners,
          ValueRange{batch, cls, rank, indexConstant(nb, l, j)});
    return at;
  }

  /// A box's corners (x0, x1, y0, y1), each pair ordered.
  std::array<Value, 4> cornersOf(OpBuilder &nb, Location l, Value batch,
                                 Value box) {
    auto at = [&](int64_t coordinate) -> Value {
      return tensor::ExtractOp::create(
          nb, l, BoxesIn,
          ValueRange{batch, box, indexConstant(nb, l, coordinate)});
    };
    if (!Centers) {
      // [y1, x1, y2, x2], any diagonal pair.
      return {arith::MinimumFOp::create(nb, l, at(1), at(3)),
              arith::MaximumFOp::create(nb, l, at(1), at(3)),
              arith::MinimumFOp::create(nb, l, at(0), at(2)),
              arith::MaximumFOp::create(nb, l, at(0), at(2))};
    }
    // [x_center, y_center, width, height].
    Value half = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(0.5f));
    Value w = arith::MulFOp::create(nb, l, at(2), half);
    Value h = arith::MulFOp::create(nb, l, at(3), half);
    return {arith::SubFOp::create(nb, l, at(0), w),
            arith::AddFOp::create(nb, l, at(0), w),
            arith::SubFOp::create(nb, l, at(1), h),
            arith::AddFOp::create(nb, l, at(1), h)};
  }

  /// Whether two boxes overlap by more than the threshold (ONNX's test: an
  /// empty intersection, box or union never does).
  Value suppresses(OpBuilder &nb, Location l, std::array<Value, 4> p,
                   std::array<Value, 4> q) {
    using P = arith::CmpFPredicate;
    Value zero = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(0.0f));
    Value x0 = arith::MaximumFOp::create(nb, l, p[0], q[0]);
    Value x1 = arith::MinimumFOp::create(nb, l, p[1], q[1]);
    Value y0 = arith::MaximumFOp::create(nb, l, p[2], q[2]);
    Value y1 = arith::MinimumFOp::create(nb, l, p[3], q[3]);
    Value inter =
        arith::MulFOp::create(nb, l, arith::SubFOp::create(nb, l, x1, x0),
                              arith::SubFOp::create(nb, l, y1, y0));
    auto area = [&](std::array<Value, 4> r) -> Value {
      return arith::MulFOp::create(nb, l,
                                   arith::SubFOp::create(nb, l, r[1], r[0]),
                                   arith::SubFOp::create(nb, l, r[3], r[2]));
    };
    Value a = area(p), c2 = area(q);
    Value uni = arith::SubFOp::create(
        nb, l, arith::AddFOp::create(nb, l, a, c2), inter);
    Value ok = arith::CmpFOp::create(nb, l, P::OGT, x1, x0);
    for (auto [lhs, rhs] :
         {std::pair{y1, y0}, std::pair{inter, zero}, std::pair{a, zero},
          std::pair{c2, zero}, std::pair{uni, zero}})
      ok = arith::AndIOp::create(
          nb, l, ok, arith::CmpFOp::create(nb, l, P::OGT, lhs, rhs));
    Value iou = arith::DivFOp::create(nb, l, inter, uni);
    Value threshold = scalarInput(nb, l, Given[3], zero);
    return arith::AndIOp::create(
        nb, l, ok, arith::CmpFOp::create(nb, l, P::OGT, iou, threshold));
  }

  /// The most boxes kept a class (ONNX's default 0 keeps none).
  Value limit(OpBuilder &nb, Location l) {
    Value zero = i64Constant(nb, l, 0);
    return arith::MaxSIOp::create(nb, l, scalarInput(nb, l, Given[2], zero),
                                  zero);
  }
};

/// By decisions: rank k decided by the k-th pair of dispatches.
LogicalResult suppressByDecisions(Suppression &s) {
  NodeContext &ctx = s.Ctx;
  OpBuilder &b = s.B;
  Location loc = s.Loc;
  const int64_t B = s.Batches, C = s.Classes, N = s.Boxes;
  Type i64 = b.getI64Type(), i8 = b.getI8Type();
  auto d = [&](unsigned i) { return s.d(i); };
  const auto par = kParallel, red = kReduction;
  const auto cst = i64Constant;
  auto idx = [&](OpBuilder &nb, Location l, unsigned dim) -> Value {
    return linalg::IndexOp::create(nb, l, dim);
  };
  Value valid = s.candidates();
  Value order = s.orders(s.ranks());
  // The boxes decided in rank order. state[b, c, p] for the box of rank
  // p: bit 1 once it is kept, bit 0 once a kept one overlaps it too much.
  // Step k decides rank k (a candidate, not suppressed, fewer than the
  // limit kept so far) in every thread that needs it, and marks it kept or
  // the later ranks it suppresses, all ranks at once; count[b, c] is how
  // many are kept. No step loops over the boxes, so each is a few
  // microseconds of launches. count[b, C] is the rank decided next,
  // counted on the device: every step reads it from there rather than as
  // a constant, so the steps are equal dispatches, compiled once
  // (kiln-dedupe-dispatches), two per rank.
  Value state =
      filled(b, loc, {B, C, N}, i8,
             arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0)));
  Value count = filled(b, loc, {B, C + 1}, i64, cst(b, loc, 0));
  AffineMap bcp = s.map(3, {d(0), d(1), d(2)});
  AffineMap bc2 = s.map(2, {d(0), d(1)});
  for (int64_t k = 0; k < N; ++k) {
    Value countNow = count, stateNow = state;
    auto rankK = [&](OpBuilder &nb, Location l, Value batch) -> Value {
      return toIndex(
          nb, l,
          tensor::ExtractOp::create(
              nb, l, countNow, ValueRange{batch, indexConstant(nb, l, C)}));
    };
    // Whether rank k is kept, given how many are kept before it.
    auto keeps = [&](OpBuilder &nb, Location l, Value batch, Value cls,
                     Value kept) -> Value {
      Value rank = rankK(nb, l, batch);
      Value box = toIndex(nb, l,
                          tensor::ExtractOp::create(
                              nb, l, order, ValueRange{batch, cls, rank}));
      Value candidate = asBool(
          nb, l,
          tensor::ExtractOp::create(nb, l, valid, ValueRange{batch, cls, box}));
      Value bits = tensor::ExtractOp::create(nb, l, stateNow,
                                             ValueRange{batch, cls, rank});
      Value free = arith::CmpIOp::create(
          nb, l, arith::CmpIPredicate::eq,
          arith::AndIOp::create(
              nb, l, bits,
              arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(1))),
          arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(0)));
      Value under = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                          kept, s.limit(nb, l));
      return arith::AndIOp::create(nb, l, candidate,
                                   arith::AndIOp::create(nb, l, free, under));
    };
    state = generic(
        b, loc, ValueRange{stateNow}, {bcp},
        tensor::EmptyOp::create(b, loc, {B, C, N}, i8), bcp, {par, par, par},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value batch = idx(nb, l, 0), cls = idx(nb, l, 1), p = idx(nb, l, 2);
          Value rank = rankK(nb, l, batch);
          Value kept = keeps(nb, l, batch, cls,
                             tensor::ExtractOp::create(nb, l, countNow,
                                                       ValueRange{batch, cls}));
          Value keptBox =
              toIndex(nb, l,
                      tensor::ExtractOp::create(nb, l, order,
                                                ValueRange{batch, cls, rank}));
          Value box = toIndex(nb, l,
                              tensor::ExtractOp::create(
                                  nb, l, order, ValueRange{batch, cls, p}));
          Value over = s.suppresses(nb, l, s.cornersOf(nb, l, batch, keptBox),
                                    s.cornersOf(nb, l, batch, box));
          Value later =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ugt, p, rank);
          Value here =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, p, rank);
          auto bit = [&](Value on, int64_t value) -> Value {
            return arith::SelectOp::create(
                nb, l, on,
                arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(value)),
                arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(0)));
          };
          Value keptHere = arith::AndIOp::create(nb, l, kept, here);
          Value suppressed = arith::AndIOp::create(
              nb, l, kept, arith::AndIOp::create(nb, l, later, over));
          return arith::OrIOp::create(nb, l, args[0],
                                      arith::OrIOp::create(nb, l,
                                                           bit(keptHere, 2),
                                                           bit(suppressed, 1)));
        });
    // The counts, and in column C the next rank.
    count = generic(
        b, loc, ValueRange{countNow}, {bc2},
        tensor::EmptyOp::create(b, loc, {B, C + 1}, i64), bc2, {par, par},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value batch = idx(nb, l, 0), column = idx(nb, l, 1);
          Value isRank = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                               column, indexConstant(nb, l, C));
          // Column C is no class: read class C - 1 there, then discard it.
          Value cls = arith::MinUIOp::create(nb, l, column,
                                             indexConstant(nb, l, C - 1));
          Value kept = keeps(nb, l, batch, cls, args[0]);
          Value add =
              arith::SelectOp::create(nb, l, isRank, cst(nb, l, 1),
                                      arith::ExtUIOp::create(nb, l, i64, kept));
          return arith::AddIOp::create(nb, l, args[0], add);
        });
  }
  // selected[b, c, k]: rank k kept (bit 1).
  Value selected = generic(
      b, loc, ValueRange{state}, {bcp},
      tensor::EmptyOp::create(b, loc, {B, C, N}, i8), bcp, {par, par, par},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::ShRUIOp::create(
            nb, l, args[0],
            arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(1)));
      });
  // Places in the output: by batch, class, then rank.
  const int64_t G = B * C, T = G * N;
  Value flat = reshapeTo(b, loc, selected, {G, N});
  Value groupCount = generic(
      b, loc, ValueRange{flat}, {s.map(2, {d(0), d(1)})},
      filled(b, loc, {G}, i64, cst(b, loc, 0)), s.map(2, {d(0)}), {par, red},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::AddIOp::create(
            nb, l, args[1], arith::ExtUIOp::create(nb, l, i64, args[0]));
      });
  Value groupStart = generic(
      b, loc, ValueRange{groupCount}, {s.map(2, {d(1)})},
      filled(b, loc, {G}, i64, cst(b, loc, 0)), s.map(2, {d(0)}), {par, red},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value earlier = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                              idx(nb, l, 1), idx(nb, l, 0));
        return arith::AddIOp::create(
            nb, l, args[1],
            arith::SelectOp::create(nb, l, earlier, args[0], cst(nb, l, 0)));
      });
  Value place = generic(
      b, loc, ValueRange{flat, groupStart},
      {s.map(3, {d(0), d(2)}), s.map(3, {d(0)})},
      filled(b, loc, {G, N}, i64, cst(b, loc, 0)), s.map(3, {d(0), d(1)}),
      {par, par, red},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        // The group's start once, plus the selected ranks before this one.
        Value first =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                  idx(nb, l, 2), indexConstant(nb, l, 0));
        Value earlier = arith::AndIOp::create(
            nb, l, asBool(nb, l, args[0]),
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                  idx(nb, l, 2), idx(nb, l, 1)));
        Value add = arith::AddIOp::create(
            nb, l, arith::ExtUIOp::create(nb, l, i64, earlier),
            arith::SelectOp::create(nb, l, first, args[1], cst(nb, l, 0)));
        return arith::AddIOp::create(nb, l, args[2], add);
      });
  Condition c;
  c.Flat = reshapeTo(b, loc, selected, {T});
  c.Length = T;
  c.Count = countOnDevice(b, loc, c.Flat);
  Value orderFlat = reshapeTo(b, loc, order, {T});
  // Places rise with the flat index (by batch, class, then rank).
  Value result = pickInOrder(
      b, loc, c, reshapeTo(b, loc, place, {T}), {ShapedType::kDynamic, 3}, 0,
      i64,
      [&](OpBuilder &nb, Location l, Value i, llvm::ArrayRef<Value> index) {
        Value flatAt = arith::IndexCastOp::create(nb, l, i64, i);
        Value batch = arith::DivUIOp::create(nb, l, flatAt, cst(nb, l, C * N));
        Value cls = arith::RemUIOp::create(
            nb, l, arith::DivUIOp::create(nb, l, flatAt, cst(nb, l, N)),
            cst(nb, l, C));
        Value box = tensor::ExtractOp::create(nb, l, orderFlat, ValueRange{i});
        Value column = index[1];
        auto is = [&](int64_t k) -> Value {
          return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, column,
                                       indexConstant(nb, l, k));
        };
        return Value(arith::SelectOp::create(
            nb, l, is(0), batch,
            arith::SelectOp::create(nb, l, is(1), cls, box)));
      });
  ctx.setOutput(0, result, Int64);
  return success();
}

/// A rank's state in the rounds.
enum RankState : int8_t { kUndecided = 0, kKept = 1, kSuppressed = 2 };

/// Each bit's weight in a word, tensor<64xi64>: 1 << j.
Value bitWeights(OpBuilder &b, Location loc) {
  llvm::SmallVector<int64_t> weights;
  for (int64_t j = 0; j < 64; ++j)
    weights.push_back(static_cast<int64_t>(uint64_t(1) << j));
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({64}, b.getI64Type()),
                             llvm::ArrayRef<int64_t>(weights)));
}

/// The rank bit `bitDim` of word `wordDim` stands for: 64 w + j.
Value rankOfBit(OpBuilder &nb, Location l, unsigned wordDim, unsigned bitDim) {
  return arith::AddIOp::create(
      nb, l,
      arith::MulIOp::create(nb, l, linalg::IndexOp::create(nb, l, wordDim),
                            indexConstant(nb, l, 64)),
      linalg::IndexOp::create(nb, l, bitDim));
}

/// words[b, c, w] (i64): bit j set where rank 64 w + j of `status` (i8
/// [B, C, N]) is `state`; words = ceil(N / 64).
Value packRanks(OpBuilder &b, Location loc, Value status, Value words,
                int8_t state) {
  MLIRContext *mctx = b.getContext();
  auto type = cast<RankedTensorType>(status.getType());
  const int64_t B = type.getDimSize(0), C = type.getDimSize(1);
  Type i64 = b.getI64Type();
  Value n = tensor::DimOp::create(b, loc, status, 2);
  // Each bit's weight: the reduction's extent (64) comes from this input.
  Value bits = bitWeights(b, loc);
  auto d = [&](unsigned i) { return getAffineDimExpr(i, mctx); };
  return generic(
      b, loc, ValueRange{bits}, {AffineMap::get(4, 0, {d(3)}, mctx)},
      filled(b, loc, {B, C, ShapedType::kDynamic}, i64, i64Constant(b, loc, 0),
             ValueRange{words}),
      AffineMap::get(4, 0, {d(0), d(1), d(2)}, mctx),
      {kParallel, kParallel, kParallel, kReduction},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value rank = rankOfBit(nb, l, 2, 3);
        Value inside =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, rank, n);
        Value at = arith::SelectOp::create(nb, l, inside, rank,
                                           indexConstant(nb, l, 0));
        Value here = tensor::ExtractOp::create(
            nb, l, status,
            ValueRange{linalg::IndexOp::create(nb, l, 0),
                       linalg::IndexOp::create(nb, l, 1), at});
        Value is = arith::AndIOp::create(
            nb, l, inside,
            arith::CmpIOp::create(
                nb, l, arith::CmpIPredicate::eq, here,
                arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(state))));
        return arith::OrIOp::create(
            nb, l, args[1],
            arith::SelectOp::create(nb, l, is, args[0], i64Constant(nb, l, 0)));
      });
}

/// One round (the loop's body, at `b` in its function): every undecided
/// rank of `status` whose overlapping predecessors (`mask`) include a kept
/// one is suppressed; one whose overlapping predecessors are all decided,
/// none kept, is kept. Returns (whether any rank is still undecided, a
/// tensor<i1>; the new status).
std::pair<Value, Value> decideRound(OpBuilder &b, Location loc, Value status,
                                    Value mask) {
  MLIRContext *mctx = b.getContext();
  auto type = cast<RankedTensorType>(status.getType());
  const int64_t B = type.getDimSize(0), C = type.getDimSize(1);
  Type i8 = b.getI8Type();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, mctx); };
  auto i8c = [](OpBuilder &nb, Location l, int64_t v) -> Value {
    return arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(v));
  };
  Value n = tensor::DimOp::create(b, loc, status, 2);
  Value words = tensor::DimOp::create(b, loc, mask, 2);
  Value kept = packRanks(b, loc, status, words, kKept);
  Value open = packRanks(b, loc, status, words, kUndecided);
  // found[b, c, p]: bit 1 where a kept predecessor overlaps rank p, bit 0
  // where an undecided one does.
  AffineMap byWord = AffineMap::get(4, 0, {d(0), d(1), d(3)}, mctx);
  // The masks are word-major: threads of consecutive ranks read
  // consecutive words.
  Value found = generic(
      b, loc, ValueRange{mask, kept, open},
      {AffineMap::get(4, 0, {d(0), d(1), d(3), d(2)}, mctx), byWord, byWord},
      filled(b, loc, {B, C, ShapedType::kDynamic}, i8, i8c(b, loc, 0),
             ValueRange{n}),
      AffineMap::get(4, 0, {d(0), d(1), d(2)}, mctx),
      {kParallel, kParallel, kParallel, kReduction},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value zero = i64Constant(nb, l, 0);
        auto any = [&](Value word, int64_t flag) -> Value {
          Value hit = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::ne,
              arith::AndIOp::create(nb, l, args[0], word), zero);
          return arith::SelectOp::create(nb, l, hit, i8c(nb, l, flag),
                                         i8c(nb, l, 0));
        };
        return arith::OrIOp::create(
            nb, l, args[3],
            arith::OrIOp::create(nb, l, any(args[1], 2), any(args[2], 1)));
      });
  AffineMap identity = AffineMap::getMultiDimIdentityMap(3, mctx);
  Value next = generic(
      b, loc, ValueRange{status, found}, {identity, identity},
      tensor::EmptyOp::create(b, loc, {B, C, ShapedType::kDynamic}, i8,
                              ValueRange{n}),
      identity, {kParallel, kParallel, kParallel},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        auto has = [&](int64_t flag) -> Value {
          return arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::ne,
              arith::AndIOp::create(nb, l, args[1], i8c(nb, l, flag)),
              i8c(nb, l, 0));
        };
        Value decided = arith::SelectOp::create(
            nb, l, has(2), i8c(nb, l, kSuppressed),
            arith::SelectOp::create(nb, l, has(1), i8c(nb, l, kUndecided),
                                    i8c(nb, l, kKept)));
        Value undecided = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::eq, args[0], i8c(nb, l, kUndecided));
        return arith::SelectOp::create(nb, l, undecided, decided, args[0]);
      });
  Value none = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  Value more =
      generic(b, loc, ValueRange{next}, {identity},
              filled(b, loc, {}, b.getI1Type(), none),
              AffineMap::get(3, 0, mctx), {kReduction, kReduction, kReduction},
              [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                return arith::OrIOp::create(
                    nb, l, args[1],
                    arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                          args[0], i8c(nb, l, kUndecided)));
              });
  return {more, next};
}

/// By rounds: the overlap masks, the loop deciding the ranks, and the kept
/// ones' rows.
LogicalResult suppressByRounds(Suppression &s) {
  NodeContext &ctx = s.Ctx;
  OpBuilder &b = s.B;
  Location loc = s.Loc;
  const int64_t B = s.Batches, C = s.Classes;
  constexpr int64_t kDyn = ShapedType::kDynamic;
  Type i64 = b.getI64Type(), i8 = b.getI8Type(), i1 = b.getI1Type();
  auto d = [&](unsigned i) { return s.d(i); };
  auto enclosing = dyn_cast<func::FuncOp>(b.getInsertionBlock()->getParentOp());
  if (!enclosing)
    return ctx.unsupported(
        "boxes decided by rounds (a count known per call, or more than " +
        std::to_string(kMaxDecidedBoxes) +
        " a class) inside a region other than a function's");
  if (B * C > kMaxRoundBoxes)
    return ctx.unsupported(std::to_string(B * C) +
                           " batches times classes (at most " +
                           std::to_string(kMaxRoundBoxes) + ")");
  // A static count past the bounds each call would check is refused here.
  if (!ShapedType::isDynamic(s.Boxes)) {
    const int64_t N = s.Boxes;
    if (N > kMaxRoundBoxes || B * C * N * ((N + 63) / 64) * 8 > kMaxMaskBytes)
      return ctx.unsupported(
          std::to_string(N) +
          " boxes a class (their overlap masks take "
          "boxes squared over 8 bytes a batch and class, at most " +
          std::to_string(kMaxMaskBytes >> 20) + " MiB in all)");
  }
  // The box count as a `?`: every tensor of the rounds has it so, one loop
  // body for every count.
  Value n = tensor::DimOp::create(b, loc, s.BoxesIn, 1);
  if (ShapedType::isDynamic(ctx.inputShape(0)[1]) ||
      ShapedType::isDynamic(ctx.inputShape(1)[2])) {
    Value m = tensor::DimOp::create(b, loc, s.Scores, 2);
    cf::AssertOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, n, m),
        "NonMaxSuppression scores must have one per box: [batches, classes, "
        "boxes]");
  }
  auto boxesType = RankedTensorType::get({B, kDyn, 4}, b.getF32Type());
  auto scoresType = RankedTensorType::get({B, C, kDyn}, b.getF32Type());
  if (s.BoxesIn.getType() != boxesType)
    s.BoxesIn = tensor::CastOp::create(b, loc, boxesType, s.BoxesIn);
  if (s.Scores.getType() != scoresType)
    s.Scores = tensor::CastOp::create(b, loc, scoresType, s.Scores);
  s.Boxes = kDyn;
  s.Sizes = {n};
  Value words =
      arith::CeilDivUIOp::create(b, loc, n, indexConstant(b, loc, 64));
  {
    Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, n,
                                       indexConstant(b, loc, kMaxRoundBoxes));
    cf::AssertOp::create(b, loc, fits,
                         "NonMaxSuppression takes at most " +
                             std::to_string(kMaxRoundBoxes) + " boxes");
    // At most 2^20 boxes, so the product stays far inside 64 bits.
    Value bytes =
        arith::MulIOp::create(b, loc, arith::MulIOp::create(b, loc, n, words),
                              indexConstant(b, loc, B * C * 8));
    cf::AssertOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, bytes,
                              indexConstant(b, loc, kMaxMaskBytes)),
        "NonMaxSuppression's overlap masks would take more than " +
            std::to_string(kMaxMaskBytes >> 20) +
            " MiB (boxes squared over 8 bytes a batch and class); give "
            "fewer boxes");
  }
  Value valid = s.candidates();
  Value order = s.orders(s.ranks());
  Value corners = s.rankedCorners(order);
  // mask[b, c, w, p]: bit j where rank q = 64 w + j (q < p) overlaps rank
  // p too much; word-major, so that consecutive threads (ranks) write and
  // the rounds read consecutive words.
  Value bits = bitWeights(b, loc);
  Value mask = generic(
      b, loc, ValueRange{bits}, {s.map(5, {d(4)})},
      filled(b, loc, {B, C, kDyn, kDyn}, i64, i64Constant(b, loc, 0),
             ValueRange{words, n}),
      s.map(5, {d(0), d(1), d(2), d(3)}),
      {kParallel, kParallel, kParallel, kParallel, kReduction},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value batch = linalg::IndexOp::create(nb, l, 0);
        Value cls = linalg::IndexOp::create(nb, l, 1);
        Value p = linalg::IndexOp::create(nb, l, 3);
        Value q = rankOfBit(nb, l, 2, 4);
        Value earlier =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, q, p);
        Value at = arith::SelectOp::create(nb, l, earlier, q, p);
        Value over =
            s.suppresses(nb, l, s.cornersAt(nb, l, corners, batch, cls, at),
                         s.cornersAt(nb, l, corners, batch, cls, p));
        Value hit = arith::AndIOp::create(nb, l, earlier, over);
        return arith::OrIOp::create(
            nb, l, args[1],
            arith::SelectOp::create(nb, l, hit, args[0],
                                    i64Constant(nb, l, 0)));
      });
  // A rank whose box is no candidate is suppressed from the start (they
  // all come after the candidates: lower scores).
  Value status = generic(
      b, loc, ValueRange{order}, {s.map(3, {d(0), d(1), d(2)})},
      tensor::EmptyOp::create(b, loc, {B, C, kDyn}, i8, ValueRange{n}),
      s.map(3, {d(0), d(1), d(2)}), {kParallel, kParallel, kParallel},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value candidate =
            asBool(nb, l,
                   tensor::ExtractOp::create(
                       nb, l, valid,
                       ValueRange{linalg::IndexOp::create(nb, l, 0),
                                  linalg::IndexOp::create(nb, l, 1),
                                  toIndex(nb, l, args[0])}));
        return arith::SelectOp::create(
            nb, l, candidate,
            arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(kUndecided)),
            arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(kSuppressed)));
      });
  // The loop: a function of the module on (iteration, condition, status,
  // mask) giving (condition, status), repeated until no rank is undecided.
  auto statusType = cast<RankedTensorType>(status.getType());
  auto scalar = [](Type t) { return RankedTensorType::get({}, t); };
  auto body = func::FuncOp::create(
      loc, (enclosing.getSymName() + "_nms_rounds").str(),
      b.getFunctionType({scalar(i64), scalar(i1), statusType, mask.getType()},
                        {}));
  SymbolTable(enclosing->getParentOfType<ModuleOp>()).insert(body);
  Block *entry = body.addEntryBlock();
  OpBuilder fb = OpBuilder::atBlockEnd(entry);
  auto [more, next] =
      decideRound(fb, loc, entry->getArgument(2), entry->getArgument(3));
  Value trips = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(scalar(i64), std::numeric_limits<int64_t>::max()));
  Value start = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(scalar(i1), true));
  func::CallOp loop = buildLoopCall(
      b, loc, body, enclosing.getSymName(), 1, {more, next},
      ValueRange{trips, start, status, mask}, TypeRange{statusType});
  Value decided = loop.getResult(0);
  // before[b, c, p]: the kept ranks before p, counted from the packed words.
  Value kept = packRanks(b, loc, decided, words, kKept);
  Value before = generic(
      b, loc, ValueRange{kept}, {s.map(4, {d(0), d(1), d(3)})},
      filled(b, loc, {B, C, kDyn}, i64, i64Constant(b, loc, 0), ValueRange{n}),
      s.map(4, {d(0), d(1), d(2)}),
      {kParallel, kParallel, kParallel, kReduction},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value p = arith::IndexCastOp::create(nb, l, i64,
                                             linalg::IndexOp::create(nb, l, 2));
        Value w = arith::IndexCastOp::create(nb, l, i64,
                                             linalg::IndexOp::create(nb, l, 3));
        Value pw = arith::DivUIOp::create(nb, l, p, i64Constant(nb, l, 64));
        Value below = arith::SubIOp::create(
            nb, l,
            arith::ShLIOp::create(
                nb, l, i64Constant(nb, l, 1),
                arith::RemUIOp::create(nb, l, p, i64Constant(nb, l, 64))),
            i64Constant(nb, l, 1));
        Value wordMask = arith::SelectOp::create(
            nb, l,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, w, pw),
            i64Constant(nb, l, -1),
            arith::SelectOp::create(
                nb, l,
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, w, pw),
                below, i64Constant(nb, l, 0)));
        return arith::AddIOp::create(
            nb, l, args[1],
            math::CtPopOp::create(
                nb, l, arith::AndIOp::create(nb, l, args[0], wordMask)));
      });
  // Per batch and class, how many are selected (the kept ones up to the
  // limit) and where its rows start.
  const int64_t G = B * C;
  Value flatKept = tensor::CollapseShapeOp::create(
      b, loc, kept, llvm::ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  Value groupCount =
      generic(b, loc, ValueRange{flatKept}, {s.map(2, {d(0), d(1)})},
              filled(b, loc, {G}, i64, i64Constant(b, loc, 0)),
              s.map(2, {d(0)}), {kParallel, kReduction},
              [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                return arith::AddIOp::create(
                    nb, l, args[1], math::CtPopOp::create(nb, l, args[0]));
              });
  Value groupSelected = generic(
      b, loc, ValueRange{groupCount}, {s.map(1, {d(0)})},
      tensor::EmptyOp::create(b, loc, {G}, i64), s.map(1, {d(0)}), {kParallel},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::MinSIOp::create(nb, l, args[0], s.limit(nb, l));
      });
  // groupEnd[g]: the rows of groups up to g.
  Value groupEnd =
      generic(b, loc, ValueRange{groupSelected}, {s.map(2, {d(1)})},
              filled(b, loc, {G}, i64, i64Constant(b, loc, 0)),
              s.map(2, {d(0)}), {kParallel, kReduction},
              [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                Value upTo =
                    arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ule,
                                          linalg::IndexOp::create(nb, l, 1),
                                          linalg::IndexOp::create(nb, l, 0));
                return arith::AddIOp::create(
                    nb, l, args[1],
                    arith::SelectOp::create(nb, l, upTo, args[0],
                                            i64Constant(nb, l, 0)));
              });
  // How many rows, read on the host: from a tensor of its own, so that no
  // kernel's read of groupEnd merges with it (CSE) and the host read stays
  // one.
  Value rows = generic(
      b, loc, ValueRange{groupSelected}, {s.map(1, {d(0)})},
      filled(b, loc, {}, i64, i64Constant(b, loc, 0)), s.map(1, {}),
      {kReduction}, [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::AddIOp::create(nb, l, args[1], args[0]);
      });
  Value total =
      toIndex(b, loc, tensor::ExtractOp::create(b, loc, rows, ValueRange{}));
  // Each row finds its group (the first whose end is past it) and its rank
  // (the first whose kept ranks up to and including it are past its place
  // in the group), each by bisection over a non-decreasing count.
  Value flatBefore = tensor::CollapseShapeOp::create(
      b, loc, before, llvm::ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  Value flatStatus = tensor::CollapseShapeOp::create(
      b, loc, decided, llvm::ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  Value flatOrder = tensor::CollapseShapeOp::create(
      b, loc, order, llvm::ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  int64_t groupSteps = llvm::Log2_64_Ceil(G) + 1;
  int64_t rankSteps = llvm::Log2_64_Ceil(kMaxRoundBoxes) + 1;
  Value result = generic(
      b, loc, ValueRange{}, {},
      tensor::EmptyOp::create(b, loc, {kDyn, 3}, i64, ValueRange{total}),
      s.map(2, {d(0), d(1)}), {kParallel, kParallel},
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value row = arith::IndexCastOp::create(
            nb, l, i64, linalg::IndexOp::create(nb, l, 0));
        Value column = linalg::IndexOp::create(nb, l, 1);
        Value group = firstPast(
            nb, l, indexConstant(nb, l, 0), indexConstant(nb, l, G), groupSteps,
            [&](OpBuilder &nb, Location l, Value g) -> Value {
              return arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::sgt,
                  tensor::ExtractOp::create(nb, l, groupEnd, ValueRange{g}),
                  row);
            });
        Value start = arith::SubIOp::create(
            nb, l,
            tensor::ExtractOp::create(nb, l, groupEnd, ValueRange{group}),
            tensor::ExtractOp::create(nb, l, groupSelected, ValueRange{group}));
        Value place = arith::SubIOp::create(nb, l, row, start);
        Value rank = firstPast(
            nb, l, indexConstant(nb, l, 0), n, rankSteps,
            [&](OpBuilder &nb, Location l, Value p) -> Value {
              Value keptHere = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::eq,
                  tensor::ExtractOp::create(nb, l, flatStatus,
                                            ValueRange{group, p}),
                  arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(kKept)));
              Value upTo = arith::AddIOp::create(
                  nb, l,
                  tensor::ExtractOp::create(nb, l, flatBefore,
                                            ValueRange{group, p}),
                  arith::ExtUIOp::create(nb, l, i64, keptHere));
              return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt,
                                           upTo, place);
            });
        Value g64 = arith::IndexCastOp::create(nb, l, i64, group);
        Value batch = arith::DivUIOp::create(nb, l, g64, i64Constant(nb, l, C));
        Value cls = arith::RemUIOp::create(nb, l, g64, i64Constant(nb, l, C));
        Value box = tensor::ExtractOp::create(nb, l, flatOrder,
                                              ValueRange{group, rank});
        auto is = [&](int64_t k) -> Value {
          return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, column,
                                       indexConstant(nb, l, k));
        };
        return arith::SelectOp::create(
            nb, l, is(0), batch,
            arith::SelectOp::create(nb, l, is(1), cls, box));
      });
  ctx.setOutput(0, result, Int64);
  return success();
}

LogicalResult convertNonMaxSuppression(NodeContext &ctx) {
  for (size_t i = 2; i < ctx.numInputs(); ++i)
    if (ctx.hasInput(i) && !ctx.inputType(i).hasStaticShape())
      return ctx.unsupported("a threshold or limit of dynamic shape");
  llvm::ArrayRef<int64_t> boxShape = ctx.inputShape(0);
  llvm::ArrayRef<int64_t> scoreShape = ctx.inputShape(1);
  auto agree = [](int64_t a, int64_t b) {
    return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
  };
  if (boxShape.size() != 3 || boxShape[2] != 4 || scoreShape.size() != 3 ||
      !agree(scoreShape[0], boxShape[0]) || !agree(scoreShape[2], boxShape[1]))
    return ctx.emitError() << "boxes must be [batches, boxes, 4] and scores "
                              "[batches, classes, boxes], not "
                           << shapeString(boxShape) << " and "
                           << shapeString(scoreShape);
  if (ShapedType::isDynamic(boxShape[0]) ||
      ShapedType::isDynamic(scoreShape[0]) ||
      ShapedType::isDynamic(scoreShape[1]))
    return ctx.unsupported("batches or classes known per call (the box count "
                           "may be)");
  for (size_t i = 2; i < 5; ++i)
    if (ctx.hasInput(i) && ctx.inputType(i).getNumElements() != 1)
      return ctx.emitError() << "input " << i << " must hold one value, not "
                             << shapeString(ctx.inputShape(i));
  if (ctx.inputDType(0) != Float || ctx.inputDType(1) != Float ||
      (ctx.hasInput(2) && ctx.inputDType(2) != Int64) ||
      (ctx.hasInput(3) && ctx.inputDType(3) != Float) ||
      (ctx.hasInput(4) && ctx.inputDType(4) != Float))
    return ctx.unsupported("inputs other than float boxes, scores and "
                           "thresholds and an int64 count");
  int64_t corners = ctx.attrInt("center_point_box", 0);
  if (corners != 0 && corners != 1)
    return ctx.emitError() << "center_point_box must be 0 or 1, not "
                           << corners;
  const int64_t B = boxShape[0], C = scoreShape[1];
  // The box count, `?` where either input has it so.
  const int64_t N =
      ShapedType::isDynamic(scoreShape[2]) ? ShapedType::kDynamic : boxShape[1];
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  // No class or batch (or, static, no box): nothing is kept.
  if (B * C == 0 || N == 0) {
    auto type = RankedTensorType::get({0, 3}, b.getI64Type());
    ctx.setOutput(
        0,
        arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(type, ArrayRef<int64_t>{})),
        Int64);
    return success();
  }
  Suppression s{ctx,          b,  loc, B, C, N, corners == 1, ctx.input(0),
                ctx.input(1), {}, {}};
  // The optional scalars, made values here: a constant input materializes
  // where it is first asked for, which must not be inside a kernel body.
  for (size_t i = 2; i < 5; ++i)
    if (ctx.hasInput(i))
      s.Given[i] = ctx.input(i);
  if (!ShapedType::isDynamic(N) && N <= kMaxDecidedBoxes &&
      B * C * N <= kMaxDecidedCandidates)
    return suppressByDecisions(s);
  return suppressByRounds(s);
}

} // namespace

void registerNonMaxSuppressionOps(OpRegistry &registry) {
  registry.add("NonMaxSuppression", convertNonMaxSuppression);
  // The box count may be known per call only (detectors' candidates).
  registry.acceptDynamicShapes({"NonMaxSuppression"});
}

} // namespace kiln::onnx_import
