//===- ConvCommon.cpp - Window geometry of convolutions and pools ---------===//

#include "compiler/onnx/ops/ConvCommon.h"

using namespace mlir;

namespace kiln::onnx_import {

FailureOr<WindowGeometry> windowGeometry(NodeContext &ctx,
                                         llvm::ArrayRef<int64_t> spatial,
                                         llvm::ArrayRef<int64_t> kernel,
                                         bool ceilMode) {
  size_t n = spatial.size();
  WindowGeometry g;
  g.Kernel = ctx.attrInts("kernel_shape", kernel);
  g.Strides = ctx.attrInts("strides", llvm::SmallVector<int64_t>(n, 1));
  g.Dilations = ctx.attrInts("dilations", llvm::SmallVector<int64_t>(n, 1));
  llvm::SmallVector<int64_t> pads =
      ctx.attrInts("pads", llvm::SmallVector<int64_t>(2 * n, 0));
  if (g.Kernel.size() != n || g.Strides.size() != n ||
      g.Dilations.size() != n || pads.size() != 2 * n)
    return ctx.emitError() << "kernel_shape, strides, dilations and pads must "
                              "match the "
                           << n << " spatial dimensions",
           failure();
  // Below 2^31 each, the window arithmetic below cannot overflow int64
  // for any input dimension TensorLimits lets through.
  constexpr int64_t kMaxWindowParameter = int64_t(1) << 31;
  for (size_t i = 0; i < n; ++i) {
    if (g.Kernel[i] < 1 || g.Strides[i] < 1 || g.Dilations[i] < 1 ||
        pads[i] < 0 || pads[n + i] < 0)
      return ctx.emitError() << "kernel, strides and dilations must be "
                                "positive and pads not negative",
             failure();
    if (g.Kernel[i] >= kMaxWindowParameter ||
        g.Strides[i] >= kMaxWindowParameter ||
        g.Dilations[i] >= kMaxWindowParameter ||
        pads[i] >= kMaxWindowParameter || pads[n + i] >= kMaxWindowParameter)
      return ctx.emitError() << "kernel, strides, dilations and pads must be "
                                "below 2^31",
             failure();
  }
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return (void)ctx.unsupported("auto_pad '" + autoPad + "'"), failure();
  for (size_t i = 0; i < n; ++i) {
    int64_t extent = (g.Kernel[i] - 1) * g.Dilations[i] + 1;
    int64_t low = pads[i], high = pads[n + i];
    int64_t out, extra = 0;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out = (spatial[i] + g.Strides[i] - 1) / g.Strides[i];
      int64_t total =
          std::max<int64_t>(0, (out - 1) * g.Strides[i] + extent - spatial[i]);
      low = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      high = total - low;
    } else {
      if (autoPad == "VALID")
        low = high = 0;
      int64_t span = spatial[i] + low + high - extent;
      if (span < 0)
        return ctx.emitError() << "the window (" << extent
                               << ") is larger than the padded input ("
                               << spatial[i] + low + high << ")",
               failure();
      out = (ceilMode ? (span + g.Strides[i] - 1) / g.Strides[i]
                      : span / g.Strides[i]) +
            1;
      if (ceilMode && (out - 1) * g.Strides[i] >= spatial[i] + low)
        --out;
      // Windows of the ceil_mode extra output reach past the padding.
      extra = std::max<int64_t>(0, (out - 1) * g.Strides[i] + extent -
                                       (spatial[i] + low + high));
    }
    high += extra;
    g.CeilExtra.push_back(extra);
    g.PadLow.push_back(low);
    g.PadHigh.push_back(high);
    g.Output.push_back(out);
  }
  return g;
}

} // namespace kiln::onnx_import
