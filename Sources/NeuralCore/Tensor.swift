/// A dense float32 tensor in row-major (C) order.
///
/// Image tensors at the public boundary are NCHW: `[batch, channels, height, width]`.
/// A value type: copies share storage.
///
/// The shape and elements are fixed when the tensor is made, and the initializers check them
/// against each other, so ``scalars`` always holds exactly the product of ``shape`` elements:
/// the kernels and ``InferenceSession`` copy tensors by that count. To change elements, make a new
/// tensor with ``init(shape:scalars:)``.
public struct Tensor: Sendable, Hashable {
  /// The size of each dimension, outermost first.
  public let shape: [Int]
  /// The elements in row-major order; `scalars.count` equals the product of ``shape``.
  ///
  /// Read-only: the count is checked once, when the tensor is made, and code that reads the
  /// elements through pointers relies on it.
  public private(set) var scalars: [Float]

  /// Creates a tensor from a shape and its elements.
  ///
  /// - Parameters:
  ///   - shape: The dimensions, each at least 0.
  ///   - scalars: The elements in row-major order.
  /// - Throws: ``NeuralCoreError`` with code `shapeMismatch` when the counts differ or a
  ///   dimension is negative.
  public init(shape: [Int], scalars: [Float]) throws(NeuralCoreError) {
    guard let count = Tensor.elementCount(of: shape), count == scalars.count else {
      throw NeuralCoreError(
        .shapeMismatch, "\(scalars.count) elements do not fill a tensor of shape \(shape)")
    }
    self.shape = shape
    self.scalars = scalars
  }

  /// Creates a tensor of the given shape with every element set to `value`.
  ///
  /// - Parameters:
  ///   - value: The value of every element.
  ///   - shape: The dimensions, each at least 0.
  /// - Throws: ``NeuralCoreError`` with code `shapeMismatch` for a negative or overflowing shape.
  public init(repeating value: Float, shape: [Int]) throws(NeuralCoreError) {
    guard let count = Tensor.elementCount(of: shape) else {
      throw NeuralCoreError(.shapeMismatch, "shape \(shape) has no valid element count")
    }
    self.shape = shape
    self.scalars = [Float](repeating: value, count: count)
  }

  /// The number of dimensions.
  public var rank: Int { shape.count }

  /// The number of elements.
  public var count: Int { scalars.count }

  /// The element count of a shape, or `nil` when a dimension is negative or the product overflows.
  ///
  /// - Parameter shape: The dimensions.
  /// - Returns: The product of the dimensions (1 for a scalar's empty shape).
  public static func elementCount(of shape: [Int]) -> Int? {
    var count = 1
    for dimension in shape {
      guard dimension >= 0 else { return nil }
      let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
      guard !overflow else { return nil }
      count = product
    }
    return count
  }
}
