/// A float32 model input in NCHW layout: shape `[batch, channels, height, width]`, values in C order.
///
/// A plain value so that ImagePipeline does not depend on a tensor library; NeuralCore and the CLI
/// copy ``values`` into their own types or into a `.npy` file.
package struct ImageTensor: Sendable, Hashable {
  /// The extent of each axis: `[batch, channels, height, width]`.
  package let shape: [Int]
  /// The values in C order: `width` varies fastest, then `height`, `channels`, `batch`.
  package let values: [Float]

  /// Creates a tensor from values in C order.
  ///
  /// - Parameters:
  ///   - shape: Four extents, `[batch, channels, height, width]`, each at least 1.
  ///   - values: Exactly the product of `shape` values.
  /// - Throws: ``ImageDecodingError`` with code `invalidArgument` when the shape is not four
  ///   positive extents or the count does not match it.
  package init(shape: [Int], values: [Float]) throws(ImageDecodingError) {
    let count = shape.reduce(Optional(1)) { product, extent in
      product.flatMap { product in
        let (result, overflow) = product.multipliedReportingOverflow(by: extent)
        return overflow ? nil : result
      }
    }
    guard shape.count == 4, shape.allSatisfy({ $0 > 0 }), count == values.count else {
      throw ImageDecodingError(
        .invalidArgument, "\(values.count) values do not make an NCHW tensor of shape \(shape)")
    }
    self.shape = shape
    self.values = values
  }

  init(validatedShape shape: [Int], values: [Float]) {
    self.shape = shape
    self.values = values
  }
}
