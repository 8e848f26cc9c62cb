import ModelFormats
import NeuralCore

extension ONNXNodeTestCase {
  /// Compares a computed output with the expected one as ONNX's backend test runner does
  /// (`numpy.testing.assert_allclose`: `|actual - expected| <= atol + rtol * |expected|`, NaN
  /// equal to NaN, integers, booleans and strings exact, shapes equal).
  ///
  /// - Parameters:
  ///   - actual: The output an engine computed.
  ///   - expected: The output from the case's data set.
  /// - Returns: `nil` when they agree, otherwise a description of the first difference.
  func mismatch(actual: ONNXTensor, expected: ONNXTensor) -> String? {
    guard actual.shape == expected.shape else {
      return "shape \(actual.shape), expected \(expected.shape)"
    }
    switch (actual.value, expected.value) {
    case (.integer(let lhs, _), .integer(let rhs, _)):
      return firstDifference(lhs, rhs)
    case (.bool(let lhs, _), .bool(let rhs, _)):
      return firstDifference(lhs, rhs)
    case (.string(let lhs, _), .string(let rhs, _)):
      return firstDifference(lhs, rhs)
    default:
      guard let lhs = doubles(actual.value), let rhs = doubles(expected.value) else {
        return "element kinds differ: \(actual.dataType) versus \(expected.dataType)"
      }
      for index in lhs.indices {
        let (value, reference) = (lhs[index], rhs[index])
        if value.isNaN && reference.isNaN { continue }
        if value == reference { continue }
        let bound = absoluteTolerance + relativeTolerance * abs(reference)
        guard abs(value - reference) <= bound else {
          return "element \(index): \(value), expected \(reference) (allowed \(bound))"
        }
      }
      return nil
    }
  }

  private func doubles(_ value: ONNXTensorValue) -> [Double]? {
    switch value {
    case .float(let tensor): tensor.scalars.map { Double($0) }
    case .double(let values, _): values
    default: nil
    }
  }

  private func firstDifference<Element: Equatable>(_ lhs: [Element], _ rhs: [Element]) -> String? {
    guard let index = lhs.indices.first(where: { lhs[$0] != rhs[$0] }) else { return nil }
    return "element \(index): \(lhs[index]), expected \(rhs[index])"
  }
}
