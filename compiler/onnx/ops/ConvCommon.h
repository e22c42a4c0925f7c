//===- ConvCommon.h - Window geometry of convolutions and pools -*- C++ -*-===//
#ifndef KILN_COMPILER_ONNX_OPS_CONVCOMMON_H
#define KILN_COMPILER_ONNX_OPS_CONVCOMMON_H

#include "compiler/onnx/NodeContext.h"

namespace kiln::onnx_import {

/// Per spatial dimension: kernel, stride, dilation, padding and output size.
struct WindowGeometry {
  llvm::SmallVector<int64_t> Kernel, Strides, Dilations, PadLow, PadHigh,
      Output;
  /// Of PadHigh, what only ceil_mode's last window needs (not padding the
  /// model asked for: average pooling never counts it).
  llvm::SmallVector<int64_t> CeilExtra;
};

/// Reads kernel_shape (or `kernel` when the node has none), strides,
/// dilations, pads and auto_pad for `spatial` (the input's spatial sizes);
/// `ceilMode` rounds output sizes up (a last window starting past the
/// input and its low padding is dropped, as PyTorch does), and PadHigh then
/// includes the extra padding that takes.
mlir::FailureOr<WindowGeometry> windowGeometry(NodeContext &ctx,
                                               llvm::ArrayRef<int64_t> spatial,
                                               llvm::ArrayRef<int64_t> kernel,
                                               bool ceilMode);

/// The convolution of `input` [N, C, spatial...] by `filter`
/// [F, C/group, k...] under the node's group, kernel_shape, strides,
/// dilations, pads and auto_pad, onto `bias` [F] (or zeros when null), all of
/// one element type; padding is zeros. Conv, ConvInteger and QLinearConv
/// (after subtracting zero points) share it. Errors name the node.
mlir::FailureOr<mlir::Value> buildConv(NodeContext &ctx, mlir::Value input,
                                       mlir::Value filter, mlir::Value bias);

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_OPS_CONVCOMMON_H
