import CNative

/// A 2-D sliding window (convolution kernel or pooling window) over NCHW data.
///
/// Padding is explicit and may be asymmetric; ONNX `auto_pad` and TensorFlow `SAME` resolve
/// to explicit pads with ``samePadding(input:kernel:stride:dilation:upper:)``.
struct Window: Hashable, Sendable {
  var kernelHeight: Int
  var kernelWidth: Int
  var strideY = 1
  var strideX = 1
  var dilationY = 1
  var dilationX = 1
  var padTop = 0
  var padLeft = 0
  var padBottom = 0
  var padRight = 0

  /// The extent of the dilated kernel along y.
  var effectiveHeight: Int { dilationY * (kernelHeight - 1) + 1 }
  /// The extent of the dilated kernel along x.
  var effectiveWidth: Int { dilationX * (kernelWidth - 1) + 1 }

  /// The output size for an input size, or `nil` when the window does not fit.
  func outputSize(height: Int, width: Int, ceilMode: Bool = false) -> (height: Int, width: Int)? {
    guard
      let outputHeight = Window.outputLength(
        input: height, padBegin: padTop, padEnd: padBottom, extent: effectiveHeight,
        stride: strideY, ceilMode: ceilMode),
      let outputWidth = Window.outputLength(
        input: width, padBegin: padLeft, padEnd: padRight, extent: effectiveWidth,
        stride: strideX, ceilMode: ceilMode)
    else { return nil }
    return (outputHeight, outputWidth)
  }

  static func outputLength(
    input: Int, padBegin: Int, padEnd: Int, extent: Int, stride: Int, ceilMode: Bool
  ) -> Int? {
    let span = input + padBegin + padEnd - extent
    guard span >= 0, stride > 0 else { return nil }
    var length = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1
    // A window must start inside the input or its leading padding (PyTorch/ONNX Runtime rule).
    if ceilMode && (length - 1) * stride >= input + padBegin { length -= 1 }
    return length
  }

  /// The begin and end padding that TensorFlow `SAME` and ONNX `SAME_UPPER`/`SAME_LOWER` use.
  ///
  /// The output length is `ceil(input / stride)`; when the total padding is odd the extra
  /// element goes to the end (`upper`) or to the beginning.
  static func samePadding(
    input: Int, kernel: Int, stride: Int, dilation: Int, upper: Bool
  ) -> (begin: Int, end: Int) {
    let output = (input + stride - 1) / stride
    let extent = dilation * (kernel - 1) + 1
    let total = max(0, (output - 1) * stride + extent - input)
    let small = total / 2
    return upper ? (small, total - small) : (total - small, small)
  }
}

extension Window {
  /// The window as the C kernels take it.
  var native: cnk_window {
    cnk_window(
      kernel_height: Int64(kernelHeight), kernel_width: Int64(kernelWidth),
      stride_y: Int64(strideY), stride_x: Int64(strideX), dilation_y: Int64(dilationY),
      dilation_x: Int64(dilationX), pad_top: Int64(padTop), pad_left: Int64(padLeft))
  }
}
