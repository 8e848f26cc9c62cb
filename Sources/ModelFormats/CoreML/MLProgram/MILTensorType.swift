/// A tensor's element type and shape.
package struct MILTensorType: Sendable, Equatable {
  /// The element type.
  package var dataType: MILDataType
  /// The number of dimensions; -1 for a rank not known until run time.
  package var rank: Int
  /// The dimensions, ``rank`` of them when the rank is known.
  package var dimensions: [MILDimension]

  /// Creates a tensor type.
  package init(dataType: MILDataType, rank: Int, dimensions: [MILDimension]) {
    self.dataType = dataType
    self.rank = rank
    self.dimensions = dimensions
  }

  /// The shape when every dimension is constant, else `nil`.
  package var shape: [Int]? {
    var result: [Int] = []
    for dimension in dimensions {
      guard case .constant(let size) = dimension else { return nil }
      result.append(size)
    }
    return rank == result.count ? result : nil
  }
}
