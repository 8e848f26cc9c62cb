/// Integer arithmetic on constants while planning (shape computations inside expanded functions).
enum IntegerArithmetic {
  /// Applies Add, Sub, Mul, Div, Max or Min with broadcasting; division truncates toward zero.
  ///
  /// - Returns: The values and shape, or `nil` for incompatible shapes, division by zero or
  ///   overflow.
  static func apply(
    _ operation: String, a: [Int64], aShape: [Int], b: [Int64], bShape: [Int]
  ) -> (values: [Int64], shape: [Int])? {
    guard let shape = Elementwise.broadcastShape(aShape, bShape),
      let count = Tensor.elementCount(of: shape), count <= 1 << 20
    else { return nil }
    let aStrides = Elementwise.broadcastStrides(aShape, to: shape)
    let bStrides = Elementwise.broadcastStrides(bShape, to: shape)
    var values: [Int64] = []
    values.reserveCapacity(count)
    for flat in 0..<count {
      var remainder = flat
      var aOffset = 0
      var bOffset = 0
      for axis in stride(from: shape.count - 1, through: 0, by: -1) {
        let coordinate = remainder % shape[axis]
        remainder /= shape[axis]
        aOffset += coordinate * aStrides[axis]
        bOffset += coordinate * bStrides[axis]
      }
      let x = a[aOffset]
      let y = b[bOffset]
      let result: (Int64, Bool)
      switch operation {
      case "Add": result = x.addingReportingOverflow(y)
      case "Sub": result = x.subtractingReportingOverflow(y)
      case "Mul": result = x.multipliedReportingOverflow(by: y)
      case "Max": result = (Swift.max(x, y), false)
      case "Min": result = (Swift.min(x, y), false)
      default:
        guard y != 0 else { return nil }
        result = x.dividedReportingOverflow(by: y)
      }
      guard !result.1 else { return nil }
      values.append(result.0)
    }
    return (values, shape)
  }
}
