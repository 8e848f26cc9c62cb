/// Integer arithmetic on constants while planning (shape computations inside expanded functions).
enum IntegerArithmetic {
  /// Whether ``apply(_:a:aShape:b:bShape:)`` computes `operation` (every operation but `power`
  /// and `prelu`).
  static func folds(_ operation: Elementwise.Operation) -> Bool {
    operation != .power && operation != .prelu
  }

  /// Applies an arithmetic (`modulo` for ONNX Mod, `remainder` for Mod with `fmod = 1`),
  /// maximum, minimum, comparison or logical operation (1 or 0) with broadcasting; division
  /// truncates toward zero.
  ///
  /// - Returns: The values and shape, or `nil` for incompatible shapes, division by zero or
  ///   overflow.
  static func apply(
    _ operation: Elementwise.Operation, a: [Int64], aShape: [Int], b: [Int64], bShape: [Int]
  ) -> (values: [Int64], shape: [Int])? {
    guard let shape = Elementwise.broadcastShape(aShape, bShape),
      let count = Tensor.elementCount(of: shape), count <= 1 << 20
    else { return nil }
    let aOffsets = Elementwise.broadcastOffsets(aShape, to: shape)
    let bOffsets = Elementwise.broadcastOffsets(bShape, to: shape)
    var values: [Int64] = []
    values.reserveCapacity(count)
    for (aOffset, bOffset) in zip(aOffsets, bOffsets) {
      guard let value = combine(operation, a[aOffset], b[bOffset]) else { return nil }
      values.append(value)
    }
    return (values, shape)
  }

  /// One element of ``apply(_:a:aShape:b:bShape:)``, or `nil` on overflow or division by zero.
  private static func combine(
    _ operation: Elementwise.Operation, _ x: Int64, _ y: Int64
  ) -> Int64? {
    let result: (Int64, Bool)
    switch operation {
    case .add: result = x.addingReportingOverflow(y)
    case .subtract: result = x.subtractingReportingOverflow(y)
    case .multiply: result = x.multipliedReportingOverflow(by: y)
    case .maximum: result = (Swift.max(x, y), false)
    case .minimum: result = (Swift.min(x, y), false)
    case .equal: result = (x == y ? 1 : 0, false)
    case .less: result = (x < y ? 1 : 0, false)
    case .greater: result = (x > y ? 1 : 0, false)
    case .lessOrEqual: result = (x <= y ? 1 : 0, false)
    case .greaterOrEqual: result = (x >= y ? 1 : 0, false)
    case .and: result = (x != 0 && y != 0 ? 1 : 0, false)
    case .or: result = (x != 0 || y != 0 ? 1 : 0, false)
    case .xor: result = ((x != 0) != (y != 0) ? 1 : 0, false)
    case .power, .prelu: return nil
    case .modulo, .remainder:
      // Mod takes the divisor's sign (Python's %); Fmod (Mod with fmod = 1) the dividend's.
      guard y != 0 else { return nil }
      let remainder = x.remainderReportingOverflow(dividingBy: y)
      guard !remainder.overflow else { return nil }
      let floored =
        operation == .modulo && remainder.partialValue != 0
        && (remainder.partialValue < 0) != (y < 0)
      result =
        floored
        ? remainder.partialValue.addingReportingOverflow(y) : (remainder.partialValue, false)
    case .divide:
      guard y != 0 else { return nil }
      result = x.dividedReportingOverflow(by: y)
    }
    return result.1 ? nil : result.0
  }
}
