//===- Text.cpp - ONNX text featurization: TfIdfVectorizer ----------------===//
//
// TfIdfVectorizer counts, in each row of token ids, the occurrences of the
// n-grams of a pool its attributes give, and weights the counts. The pool
// is constant, so the importer knows every n-gram: it lays them out as
// tables indexed by output coordinate (slot m of coordinate j holds the
// m-th n-gram counted into Y[j]; ngram_indexes may send several there), and
// one linalg.generic over (row, coordinate, slot, start, distance)
// compares the row's tokens at start, start + distance, ... with the
// slot's n-gram, summing the matches into an i64 count per (row,
// coordinate). An elementwise generic then applies the mode's weighting.
// Distances stop where no n-gram of two tokens fits in a row any more, so
// a huge max_skip_count costs nothing.
//
// The rules are those of ONNX's reference implementation (a port of ONNX
// Runtime's kernel), which the operator's text leaves open:
// - only n-grams whose length is in [min_gram_length, max_gram_length] are
//   counted, though every n-gram of the pool takes an entry of
//   ngram_indexes;
// - an n-gram of n >= 2 tokens is looked for at every distance 1 ..
//   max_skip_count + 1 between its tokens, a unigram once (distance means
//   nothing for it);
// - counts add up per output coordinate;
// - IDF and TFIDF read weights by output coordinate (weights[j] scales
//   Y[j]), as both implementations do.
// A pool repeating an n-gram is refused, as ONNX Runtime refuses it (the
// reference would count it into the last coordinate only).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <limits>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// Longest n-gram matched: the body compares one token per position,
/// unrolled, so its size grows with the length.
constexpr int64_t kMaxGramLength = 64;
/// Entries of all the n-gram tables together, built on the host (8 bytes
/// each): enough for a vocabulary of a million unigrams and bigrams, one
/// n-gram per output coordinate.
constexpr int64_t kMaxTableEntries = int64_t(1) << 22;

enum class Weighting { TF, IDF, TFIDF };

/// One n-gram of the pool that is counted.
struct Gram {
  int64_t Output;                 // its coordinate in Y's rows
  llvm::ArrayRef<int64_t> Tokens; // a slice of the pool
};

/// The attributes that define the n-grams, checked against each other.
struct Pool {
  std::vector<Gram> Grams; // those of a counted length
  int64_t NumGrams = 0;    // in the pool, counted or not
  int64_t OutputSize = 0;  // max(ngram_indexes) + 1
};

/// Reads pool_int64s, ngram_counts and ngram_indexes, checking that every
/// count indexes the pool, that each length's items make whole n-grams,
/// and that ngram_indexes has one non-negative coordinate per n-gram.
/// The grams' tokens are slices of `pool`, which must outlive the result.
/// Failure after an error.
FailureOr<Pool> readPool(NodeContext &ctx, llvm::ArrayRef<int64_t> pool,
                         int64_t minLength, int64_t maxLength) {
  llvm::SmallVector<int64_t> counts = ctx.attrInts("ngram_counts");
  llvm::SmallVector<int64_t> indexes = ctx.attrInts("ngram_indexes");
  if (ctx.failedAttributes())
    return failure();
  int64_t poolSize = pool.size(), levels = counts.size();
  // ngram_counts[i] is where the n-grams of i + 1 tokens start; they end
  // where the next length's start, the last at the pool's end.
  for (int64_t i = 0; i < levels; ++i) {
    if (counts[i] < 0 || counts[i] > poolSize)
      return ctx.emitError()
             << "ngram_counts[" << i << "] = " << counts[i]
             << " is outside the pool of " << poolSize << " items";
    if (i > 0 && counts[i] < counts[i - 1])
      return ctx.emitError()
             << "ngram_counts must not decrease, but [" << i - 1
             << "] = " << counts[i - 1] << " and [" << i << "] = " << counts[i];
  }
  auto levelEnd = [&](int64_t i) {
    return i + 1 < levels ? counts[i + 1] : poolSize;
  };
  // At most one n-gram per pool item, so the total cannot overflow.
  int64_t total = 0;
  for (int64_t i = 0; i < levels; ++i) {
    int64_t items = levelEnd(i) - counts[i], length = i + 1;
    if (items % length != 0)
      return ctx.emitError()
             << "ngram_counts gives the " << length << "-grams " << items
             << " pool items, not a multiple of " << length;
    total += items / length;
  }
  if (indexes.empty())
    return ctx.emitError() << "ngram_indexes is empty";
  if (static_cast<int64_t>(indexes.size()) != total)
    return ctx.emitError() << "ngram_indexes has " << indexes.size()
                           << " entries for the pool's " << total << " n-grams";
  Pool result;
  result.NumGrams = total;
  int64_t largest = 0;
  for (auto [i, index] : llvm::enumerate(indexes)) {
    if (index < 0)
      return ctx.emitError()
             << "ngram_indexes[" << i << "] = " << index << " is negative";
    largest = std::max(largest, index);
  }
  if (largest == std::numeric_limits<int64_t>::max())
    return ctx.emitError() << "ngram_indexes' largest entry " << largest
                           << " makes the output size overflow";
  result.OutputSize = largest + 1;
  // Every n-gram takes an entry of ngram_indexes, counted or not.
  llvm::DenseSet<llvm::ArrayRef<int64_t>> seen;
  int64_t id = 0;
  for (int64_t i = 0; i < levels; ++i) {
    int64_t length = i + 1;
    bool counted = length >= minLength && length <= maxLength;
    for (int64_t at = counts[i]; at < levelEnd(i); at += length, ++id) {
      if (!counted)
        continue;
      llvm::ArrayRef<int64_t> tokens = pool.slice(at, length);
      if (!seen.insert(tokens).second)
        return ctx.emitError()
               << "the pool's n-gram " << id << " repeats an earlier one";
      result.Grams.push_back({indexes[id], tokens});
    }
  }
  return result;
}

/// Counts of each output coordinate's n-grams in each row of `x` ([rows,
/// cols] of i32 or i64, both non-empty): an i64 tensor [rows, outputSize].
/// `distances` bounds the distances between an n-gram's tokens tried.
FailureOr<Value> countGrams(NodeContext &ctx, Value x, const Pool &pool,
                            int64_t distances) {
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t rows = xType.getDimSize(0), cols = xType.getDimSize(1);
  int64_t outputSize = pool.OutputSize;

  // Slots per coordinate: the most n-grams sharing one (1 unless
  // ngram_indexes repeats a coordinate); and the longest n-gram.
  llvm::DenseMap<int64_t, int64_t> perOutput;
  int64_t slots = 0, longest = 0;
  for (const Gram &g : pool.Grams) {
    slots = std::max(slots, ++perOutput[g.Output]);
    longest = std::max<int64_t>(longest, g.Tokens.size());
  }
  if (longest > kMaxGramLength)
    return ctx.unsupported("n-grams of " + llvm::Twine(longest) +
                           " tokens (at most " + llvm::Twine(kMaxGramLength) +
                           ")");
  // A length table and one token table per position, each [outputSize,
  // slots] (the output size alone may be far larger than the pool), and
  // the distances.
  std::optional<int64_t> tableSize = checkedMul(outputSize, slots);
  std::optional<int64_t> entries;
  if (tableSize)
    entries = checkedMul(*tableSize, longest + 1);
  if (entries)
    entries = checkedAdd(*entries, distances);
  if (!entries || *entries > kMaxTableEntries)
    return ctx.unsupported(
        "n-gram tables of " + llvm::Twine(outputSize) + " coordinates x " +
        llvm::Twine(slots) + " slots x " + llvm::Twine(longest + 1) + " and " +
        llvm::Twine(distances) + " distances (the importer builds at most " +
        llvm::Twine(kMaxTableEntries) + " entries)");
  // The loop's trip count must stay an int64 for the passes that tile it.
  std::optional<int64_t> trips = checkedMul(*tableSize, rows);
  for (int64_t extent : {cols, distances})
    if (trips)
      trips = checkedMul(*trips, extent);
  if (!trips)
    return ctx.unsupported("counting n-grams in " + llvm::Twine(rows) +
                           " rows of " + llvm::Twine(cols) + " tokens at " +
                           llvm::Twine(distances) +
                           " distances (the loop's trip count overflows)");

  std::vector<int64_t> lengths(*tableSize, 0);
  std::vector<std::vector<int64_t>> tokens(longest, lengths);
  llvm::DenseMap<int64_t, int64_t> filled;
  for (const Gram &g : pool.Grams) {
    int64_t at = g.Output * slots + filled[g.Output]++;
    lengths[at] = g.Tokens.size();
    for (auto [k, token] : llvm::enumerate(g.Tokens))
      tokens[k][at] = token;
  }
  auto table = [&](llvm::ArrayRef<int64_t> shape,
                   llvm::ArrayRef<int64_t> values, const llvm::Twine &what) {
    OnnxValue v{RankedTensorType(), Int64, Value(),
                HostTensor::fromInt64s(Int64, shape, values),
                (ctx.name() + "_" + what).str()};
    return materialize(b, v);
  };
  // Loop dimensions: row, coordinate, slot, start, distance. Every one is
  // some operand's dimension, as linalg derives the loops' extents from
  // them: x read at (row, start) is the n-gram's first token, the
  // distances table (1, 2, ...) read at (distance) the distance.
  constexpr unsigned kDims = 5;
  auto map = [&](llvm::ArrayRef<unsigned> dims) {
    llvm::SmallVector<AffineExpr> exprs;
    for (unsigned d : dims)
      exprs.push_back(getAffineDimExpr(d, mctx));
    return AffineMap::get(kDims, 0, exprs, mctx);
  };
  std::vector<int64_t> distanceValues(distances);
  for (int64_t d = 0; d < distances; ++d)
    distanceValues[d] = d + 1;
  llvm::SmallVector<Value> operands{
      x, table({distances}, distanceValues, "gram_distances"),
      table({outputSize, slots}, lengths, "gram_lengths")};
  llvm::SmallVector<AffineMap> maps{map({0, 3}), map({4}), map({1, 2})};
  for (int64_t k = 0; k < longest; ++k) {
    operands.push_back(
        table({outputSize, slots}, tokens[k], "gram_tokens" + llvm::Twine(k)));
    maps.push_back(map({1, 2}));
  }
  maps.push_back(map({0, 1}));
  llvm::SmallVector<utils::IteratorType> iterators(
      2, utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  Type i64 = b.getI64Type();
  Value init =
      filledTensor(b, loc, {rows, outputSize}, i64, b.getI64IntegerAttr(0));
  bool wide = xType.getElementType() == i64;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, operands, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        auto index = [&](int64_t v) -> Value {
          return arith::ConstantIndexOp::create(nb, l, v);
        };
        auto cmp = [&](arith::CmpIPredicate p, Value lhs, Value rhs) -> Value {
          return arith::CmpIOp::create(nb, l, p, lhs, rhs);
        };
        auto widened = [&](Value token) -> Value {
          return wide ? token : arith::ExtSIOp::create(nb, l, i64, token);
        };
        Value row = linalg::IndexOp::create(nb, l, 0);
        Value start = linalg::IndexOp::create(nb, l, 3);
        Value distance =
            arith::IndexCastOp::create(nb, l, nb.getIndexType(), args[1]);
        Value length =
            arith::IndexCastOp::create(nb, l, nb.getIndexType(), args[2]);
        // An empty slot counts nothing, nor a unigram past the first
        // distance: it is the same token at every distance.
        Value match = arith::AndIOp::create(
            nb, l, cmp(arith::CmpIPredicate::sgt, length, index(0)),
            arith::OrIOp::create(
                nb, l, cmp(arith::CmpIPredicate::ne, length, index(1)),
                cmp(arith::CmpIPredicate::eq, distance, index(1))));
        // Its last token, start + (length - 1) * distance, is in the row.
        Value last = arith::AddIOp::create(
            nb, l, start,
            arith::MulIOp::create(
                nb, l, arith::SubIOp::create(nb, l, length, index(1)),
                distance));
        match = arith::AndIOp::create(
            nb, l, match, cmp(arith::CmpIPredicate::slt, last, index(cols)));
        match = arith::AndIOp::create(
            nb, l, match,
            cmp(arith::CmpIPredicate::eq, widened(args[0]), args[3]));
        for (int64_t k = 1; k < longest; ++k) {
          // Clamped into the row, so a slot whose n-gram does not fit, or
          // is shorter than k + 1 tokens, still reads inside it; its
          // comparison does not count.
          Value position = arith::MinSIOp::create(
              nb, l,
              arith::AddIOp::create(
                  nb, l, start,
                  arith::MulIOp::create(nb, l, index(k), distance)),
              index(cols - 1));
          Value token = widened(
              tensor::ExtractOp::create(nb, l, x, ValueRange{row, position}));
          Value same = arith::OrIOp::create(
              nb, l, cmp(arith::CmpIPredicate::eq, token, args[3 + k]),
              cmp(arith::CmpIPredicate::sle, length, index(k)));
          match = arith::AndIOp::create(nb, l, match, same);
        }
        Value one = arith::ExtUIOp::create(nb, l, i64, match);
        linalg::YieldOp::create(
            nb, l, Value(arith::AddIOp::create(nb, l, args.back(), one)));
      });
  return generic.getResult(0);
}

LogicalResult convertTfIdfVectorizer(NodeContext &ctx) {
  if (ctx.hasAttr("pool_strings"))
    return ctx.unsupported("pool_strings (string n-grams)");
  if (failed(ctx.requireDType(0, {Int32, Int64})))
    return failure();
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  if (shape.size() != 1 && shape.size() != 2)
    return ctx.emitError() << "input must be [C] or [N, C], not "
                           << shapeString(shape);
  std::string modeName = ctx.attrString("mode", "");
  Weighting mode;
  if (modeName == "TF")
    mode = Weighting::TF;
  else if (modeName == "IDF")
    mode = Weighting::IDF;
  else if (modeName == "TFIDF")
    mode = Weighting::TFIDF;
  else
    return ctx.unsupported("mode '" + modeName + "'");
  int64_t minLength = ctx.attrInt("min_gram_length", 0);
  int64_t maxLength = ctx.attrInt("max_gram_length", 0);
  int64_t maxSkip = ctx.attrInt("max_skip_count", 0);
  llvm::SmallVector<int64_t> poolItems = ctx.attrInts("pool_int64s");
  llvm::SmallVector<float> weights = ctx.attrFloats("weights");
  if (ctx.failedAttributes())
    return failure();
  if (minLength < 1 || maxLength < minLength)
    return ctx.emitError() << "min_gram_length " << minLength
                           << " and max_gram_length " << maxLength
                           << " must satisfy 1 <= min <= max";
  if (maxSkip < 0)
    return ctx.emitError() << "max_skip_count " << maxSkip << " is negative";
  FailureOr<Pool> pool = readPool(ctx, poolItems, minLength, maxLength);
  if (failed(pool))
    return failure();
  int64_t outputSize = pool->OutputSize;
  // Weights come one per n-gram, but are read per output coordinate.
  if (!weights.empty()) {
    if (static_cast<int64_t>(weights.size()) != pool->NumGrams)
      return ctx.emitError() << "weights has " << weights.size()
                             << " entries for " << pool->NumGrams << " n-grams";
    if (mode != Weighting::TF &&
        outputSize > static_cast<int64_t>(weights.size()))
      return ctx.emitError()
             << "weights has " << weights.size() << " entries, fewer than the "
             << outputSize << " output coordinates it weights";
  }
  int64_t rows = shape.size() == 2 ? shape[0] : 1, cols = shape.back();
  llvm::SmallVector<int64_t> outShape{rows, outputSize};
  if (failed(ctx.checkShape(outShape, Float, "output")))
    return failure();

  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
  Value counts;
  if (pool->Grams.empty() || rows == 0 || cols == 0) {
    counts = filledTensor(b, loc, outShape, i64, b.getI64IntegerAttr(0));
  } else {
    // Only n-grams of two or more tokens see the distance, and only up to
    // cols - 1 can fit one in a row: a larger max_skip_count adds nothing.
    bool longer = llvm::any_of(
        pool->Grams, [](const Gram &g) { return g.Tokens.size() > 1; });
    int64_t distances =
        longer ? std::min(maxSkip, std::max<int64_t>(cols - 2, 0)) + 1 : 1;
    FailureOr<Value> counted = countGrams(
        ctx, reshapeTo(b, loc, ctx.input(0), {rows, cols}), *pool, distances);
    if (failed(counted))
      return failure();
    counts = *counted;
  }

  llvm::SmallVector<Value> operands{counts};
  bool weighted = mode != Weighting::TF && !weights.empty();
  if (weighted) {
    std::vector<double> perOutput(weights.begin(),
                                  weights.begin() + outputSize);
    OnnxValue v{RankedTensorType(), Float, Value(),
                HostTensor::fromDoubles(Float, {outputSize}, perOutput),
                (ctx.name() + "_weights").str()};
    operands.push_back(materialize(b, v));
  }
  Value y = buildElementwise(
      b, loc, operands, outShape, f32,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value count = arith::SIToFPOp::create(nb, l, f32, a[0]);
        if (mode == Weighting::TF)
          return count;
        Value weight = weighted ? a[1] : scalarConstant(nb, l, f32, 1.0);
        if (mode == Weighting::TFIDF)
          return weighted ? Value(arith::MulFOp::create(nb, l, count, weight))
                          : count;
        // IDF: the weight where the n-grams occur at all.
        Value seen =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt, a[0],
                                  arith::ConstantIntOp::create(nb, l, i64, 0));
        return arith::SelectOp::create(nb, l, seen, weight,
                                       scalarConstant(nb, l, f32, 0.0));
      });
  if (shape.size() == 1)
    y = reshapeTo(b, loc, y, {outputSize});
  ctx.setOutput(0, y, Float);
  return success();
}

} // namespace

void registerTextOps(OpRegistry &registry) {
  registry.add("TfIdfVectorizer", convertTfIdfVectorizer);
}

} // namespace kiln::onnx_import
