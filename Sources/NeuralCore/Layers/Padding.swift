/// How a convolution or pooling layer pads its input.
public enum Padding: Sendable, Hashable {
  /// No padding.
  case valid
  /// TensorFlow's `SAME`: the output is `ceil(input / stride)`, pads computed per input size,
  /// any odd extra element at the bottom and right (as EfficientNet-Lite's checkpoints expect).
  case same
  /// Fixed padding on each side, in elements.
  case explicit(top: Int, left: Int, bottom: Int, right: Int)

  /// The same padding on all four sides.
  ///
  /// - Parameter amount: Elements added on each side.
  /// - Returns: Explicit symmetric padding.
  public static func symmetric(_ amount: Int) -> Padding {
    .explicit(top: amount, left: amount, bottom: amount, right: amount)
  }

  /// The window for an input size.
  func window(
    kernel: (height: Int, width: Int), stride: (y: Int, x: Int), dilation: (y: Int, x: Int),
    height: Int, width: Int
  ) -> Window {
    var window = Window(
      kernelHeight: kernel.height, kernelWidth: kernel.width, strideY: stride.y,
      strideX: stride.x, dilationY: dilation.y, dilationX: dilation.x)
    switch self {
    case .valid:
      break
    case .same:
      let vertical = Window.samePadding(
        input: height, kernel: kernel.height, stride: stride.y, dilation: dilation.y, upper: true)
      let horizontal = Window.samePadding(
        input: width, kernel: kernel.width, stride: stride.x, dilation: dilation.x, upper: true)
      window.padTop = vertical.begin
      window.padBottom = vertical.end
      window.padLeft = horizontal.begin
      window.padRight = horizontal.end
    case .explicit(let top, let left, let bottom, let right):
      window.padTop = top
      window.padLeft = left
      window.padBottom = bottom
      window.padRight = right
    }
    return window
  }
}
