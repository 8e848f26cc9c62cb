import NeuralCore

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

  /// The attributes that pad a `Conv` or pooling node this way: `auto_pad` `SAME_UPPER` for
  /// ``same``, `pads` as `[top, left, bottom, right]` otherwise.
  var attributes: [Graph.Attribute] {
    switch self {
    case .valid:
      [Graph.Attribute(name: "pads", value: .ints([0, 0, 0, 0]))]
    case .same:
      [Graph.Attribute(name: "auto_pad", value: .string("SAME_UPPER"))]
    case .explicit(let top, let left, let bottom, let right):
      [Graph.Attribute(name: "pads", value: .ints([top, left, bottom, right].map { Int64($0) }))]
    }
  }
}
