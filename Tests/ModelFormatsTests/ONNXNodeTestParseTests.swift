import Foundation
import ModelFormats
import NeuralCore
import Testing

/// Every model and tensor ONNX's backend node tests ship must parse, and every tensor must decode
/// to what numpy read from the same file: a failure here is a reader bug, not an unsupported op.
@Test(
  .enabled(
    if: ONNXNodeTestCase.rootDirectory() != nil, Comment(rawValue: ONNXNodeTestCase.skipReason)))
func everyONNXNodeTestCaseParsesAndDecodesLikeNumpy() throws {
  let directories = try #require(ONNXNodeTestCase.allCaseDirectories())
  var parsed = 0
  var nonTensorCases = 0
  var checkedTensors = 0
  var failures: [String] = []
  for directory in directories {
    do {
      let testCase = try ONNXNodeTestCase(directory: directory)
      parsed += 1
      if testCase.hasNonTensorValues { nonTensorCases += 1 }
      for summary in testCase.tensorSummaries {
        let path = directory.appendingPathComponent(summary.file).path
        if let mismatch = try compare(ONNXTensor(contentsOfFile: path), with: summary) {
          failures.append("\(testCase.name)/\(summary.file): \(mismatch)")
        }
        checkedTensors += 1
      }
    } catch {
      failures.append("\(directory.lastPathComponent): \(error)")
    }
  }
  print(
    "ONNX node tests: \(directories.count) cases, \(parsed) models parsed, "
      + "\(checkedTensors) tensors checked against numpy, "
      + "\(nonTensorCases) cases with sequence/map/optional values left unread, "
      + "\(failures.count) failures")
  for failure in failures.prefix(30) { print("  failure: \(failure)") }
  #expect(directories.count >= 1_000)
  #expect(failures.isEmpty)
}

/// Describes how a decoded tensor differs from numpy's summary, or returns `nil` when it agrees.
private func compare(_ tensor: ONNXTensor, with summary: ONNXNodeTestCase.TensorSummary) -> String?
{
  guard tensor.shape == summary.dims else { return "shape \(tensor.shape) != \(summary.dims)" }
  guard tensor.dataType.rawValue == summary.dataType else {
    return "type \(tensor.dataType) != \(summary.dataType)"
  }
  guard let expectedNaNs = summary.nanCount, let expectedSum = summary.finiteSum,
    let expectedAbsSum = summary.finiteAbsSum
  else { return nil }
  let values: [Double]
  switch tensor.value {
  case .float(let floats): values = floats.scalars.map { Double($0) }
  case .double(let doubles, _): values = doubles
  case .integer(let integers, _):
    values = integers.map {
      tensor.dataType == .uint64 ? Double(UInt64(bitPattern: $0)) : Double($0)
    }
  case .bool(let booleans, _): values = booleans.map { $0 ? 1 : 0 }
  case .string: return "strings where numpy saw numbers"
  }
  let finite = values.filter(\.isFinite)
  let nanCount = values.filter(\.isNaN).count
  let sum = finite.reduce(0, +)
  let absSum = finite.reduce(0) { $0 + abs($1) }
  let tolerance = 1e-9 * max(1, expectedAbsSum)
  guard nanCount == expectedNaNs, abs(sum - expectedSum) <= tolerance,
    abs(absSum - expectedAbsSum) <= tolerance
  else {
    return "NaNs \(nanCount)/\(expectedNaNs), sum \(sum)/\(expectedSum), "
      + "abs sum \(absSum)/\(expectedAbsSum)"
  }
  return nil
}

/// The comparison the conformance test uses accepts a case's own outputs and rejects perturbed ones.
@Test(
  .enabled(
    if: ONNXNodeTestCase.rootDirectory() != nil, Comment(rawValue: ONNXNodeTestCase.skipReason)))
func nodeTestComparisonFollowsAssertAllclose() throws {
  let root = try #require(ONNXNodeTestCase.rootDirectory())
  let testCase = try ONNXNodeTestCase(directory: root.appendingPathComponent("test_relu"))
  let expected = try #require(testCase.dataSets.first?.outputs.first)
  #expect(testCase.mismatch(actual: expected, expected: expected) == nil)
  let original = try expected.floatTensor()
  var scalars = original.scalars
  scalars[0] += 1e-3 + 0.01 * abs(scalars[0])
  let perturbed = try Tensor(shape: original.shape, scalars: scalars)
  let changed = ONNXTensor(name: expected.name, dataType: .float, value: .float(perturbed))
  #expect(testCase.mismatch(actual: changed, expected: expected) != nil)
  let integers = ONNXTensor(name: "i", dataType: .int64, value: .integer([1, 2], shape: [2]))
  #expect(testCase.mismatch(actual: integers, expected: expected) != nil)
}
