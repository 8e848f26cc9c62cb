/// Integer arithmetic on constants while planning (shape computations inside expanded functions).
enum IntegerArithmetic {
  /// Applies Add, Sub, Mul, Div, Mod (Fmod for `fmod = 1`), Max, Min, or a comparison or logical
  /// operator (Equal, Less,
  /// Greater, LessOrEqual, GreaterOrEqual, And, Or, Xor: 1 or 0) with broadcasting; division
  /// truncates toward zero.
  ///
  /// - Returns: The values and shape, or `nil` for incompatible shapes, division by zero or
  ///   overflow.
  static func apply(
    _ operation: String, a: [Int64], aShape: [Int], b: [Int64], bShape: [Int]
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
  private static func combine(_ operation: String, _ x: Int64, _ y: Int64) -> Int64? {
    let result: (Int64, Bool)
    switch operation {
    case "Add": result = x.addingReportingOverflow(y)
    case "Sub": result = x.subtractingReportingOverflow(y)
    case "Mul": result = x.multipliedReportingOverflow(by: y)
    case "Max": result = (Swift.max(x, y), false)
    case "Min": result = (Swift.min(x, y), false)
    case "Equal": result = (x == y ? 1 : 0, false)
    case "Less": result = (x < y ? 1 : 0, false)
    case "Greater": result = (x > y ? 1 : 0, false)
    case "LessOrEqual": result = (x <= y ? 1 : 0, false)
    case "GreaterOrEqual": result = (x >= y ? 1 : 0, false)
    case "And": result = (x != 0 && y != 0 ? 1 : 0, false)
    case "Or": result = (x != 0 || y != 0 ? 1 : 0, false)
    case "Xor": result = ((x != 0) != (y != 0) ? 1 : 0, false)
    case "Mod", "Fmod":
      // Mod takes the divisor's sign (Python's %); Fmod (Mod with fmod = 1) the dividend's.
      guard y != 0 else { return nil }
      let remainder = x.remainderReportingOverflow(dividingBy: y)
      guard !remainder.overflow else { return nil }
      let floored =
        operation == "Mod" && remainder.partialValue != 0 && (remainder.partialValue < 0) != (y < 0)
      result =
        floored
        ? remainder.partialValue.addingReportingOverflow(y) : (remainder.partialValue, false)
    default:
      guard y != 0 else { return nil }
      result = x.dividedReportingOverflow(by: y)
    }
    return result.1 ? nil : result.0
  }
}
