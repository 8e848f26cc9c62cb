import Foundation
import ModelFormats
import Testing

@testable import NeuralCore

/// ONNX's own backend node tests, run for every case whose operators NeuralCore claims.
///
/// A case is skipped only when it uses an operator outside
/// ``InferenceSession/supportedOperators``, sequence/map values, or element types other than
/// float32 data, float64 data (run in float32 within the case's tolerance) and boolean outputs
/// (integer and boolean inputs such as Reshape's shape or Pad's pads are bound as constants,
/// because the engine computes integer tensors while planning; so are the float scales and
/// region of interest of Resize and Upsample, which decide the output's shape and the
/// interpolation taps while planning, and which exporters write as constants). The cases in
/// ``documentedExclusions`` must be refused at load time with an `unsupported` error. Every case
/// runs under each kernel set this CPU has, or under the one `VISION_CATALOG_KERNELS` forces.
@Test(
  .enabled(
    if: ONNXNodeTestCase.rootDirectory() != nil, Comment(rawValue: ONNXNodeTestCase.skipReason)),
  arguments: KernelSet.underTest)
func onnxBackendNodeTestsPassForClaimedOperators(kernels: KernelSet) throws {
  let directories = try #require(ONNXNodeTestCase.allCaseDirectories())
  let supported = InferenceSession.supportedOperators
  var ran = 0
  var passed = 0
  var skippedOperator = 0
  var skippedElementType = 0
  var skippedNonTensor = 0
  var skippedExcluded = 0
  var failures: [String] = []
  var claimedOperators = Set<String>()
  for directory in directories {
    let testCase: ONNXNodeTestCase
    do {
      testCase = try ONNXNodeTestCase(directory: directory)
    } catch {
      failures.append("\(directory.lastPathComponent): does not load: \(error)")
      continue
    }
    guard Set(testCase.opTypes).isSubset(of: supported) else {
      skippedOperator += 1
      continue
    }
    guard !testCase.hasNonTensorValues else {
      skippedNonTensor += 1
      continue
    }
    let quantized = !Set(testCase.opTypes).isDisjoint(with: quantizedOperators)
    let hasOnlyFloatData = testCase.dataSets.allSatisfy { dataSet in
      dataSet.outputs.allSatisfy {
        [.float, .double, .bool].contains($0.dataType)
          || (quantized && $0.dataType.isHeldAsInteger)
      }
        && dataSet.inputs.allSatisfy {
          $0.dataType == .float || $0.dataType == .double || $0.integerValues() != nil
        }
    }
    guard hasOnlyFloatData else {
      skippedElementType += 1
      continue
    }
    if let reason = documentedExclusions[testCase.name] {
      if isRefusedAsUnsupported(testCase) {
        skippedExcluded += 1
      } else {
        failures.append("\(testCase.name): expected a load-time refusal (\(reason))")
      }
      continue
    }
    claimedOperators.formUnion(testCase.opTypes)
    ran += 1
    if let failure = check(testCase, kernels: kernels) {
      failures.append("\(testCase.name): \(failure)")
    } else {
      passed += 1
    }
  }
  print(
    "ONNX node tests (\(kernels) kernels): \(ran) ran, \(passed) passed, skipped as unsupported: "
      + "\(skippedOperator) operator, \(skippedElementType) element type, "
      + "\(skippedNonTensor) non-tensor value, \(skippedExcluded) documented exclusion; "
      + "operators exercised: "
      + claimedOperators.sorted().joined(separator: " "))
  for failure in failures { print("  failure: \(failure)") }
  #expect(failures.isEmpty)
  let neverRun = supported.subtracting(claimedOperators).subtracting(["Constant"])
  #expect(neverRun.isEmpty, "claimed operators without a runnable case: \(neverRun.sorted())")
}

/// The operators whose cases also compare integer outputs (quantized data, int32 sums), which
/// must match exactly: the engine holds those types at run time for them.
private let quantizedOperators: Set<String> = [
  "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearConv", "QLinearMatMul",
  "ConvInteger", "MatMulInteger",
]

/// The inputs of the quantized operators that are scales, zero points or biases, which the
/// engine reads while planning and the cases feed as constants; their other inputs, integer or
/// float, are fed at run time.
private let quantizationParameters: [String: Set<Int>] = [
  "QuantizeLinear": [1, 2], "DequantizeLinear": [1, 2], "QLinearConv": [1, 2, 4, 5, 6, 7, 8],
  "QLinearMatMul": [1, 2, 4, 5, 6, 7], "ConvInteger": [2, 3], "MatMulInteger": [2, 3],
]

/// Whether a graph input is fed at run time: float data, and the integer data of quantized
/// operators; every other input is bound as a constant.
private func isFedAtRunTime(_ name: String, _ tensor: ONNXTensor, _ model: ONNXModel) -> Bool {
  if planningInputs(model).contains(name) { return false }
  var readAsData = false
  for node in model.graph.nodes {
    for (position, input) in node.inputs.enumerated() where input == name {
      if let parameters = quantizationParameters[node.opType] {
        if parameters.contains(position) { return false }
        readAsData = true
      }
    }
  }
  return tensor.dataType == .float || tensor.dataType == .double
    || (readAsData && tensor.dataType.isHeldAsInteger)
}

/// Cases of claimed operators that exercise behaviour an inference engine refuses, with why.
private let documentedExclusions: [String: String] = [
  "test_training_dropout": "training-mode Dropout draws random masks",
  "test_training_dropout_default": "training-mode Dropout draws random masks",
  "test_training_dropout_zero_ratio": "training-mode Dropout draws random masks",
  "test_training_dropout_default_mask": "training-mode Dropout draws random masks",
  "test_training_dropout_mask": "training-mode Dropout draws random masks",
  "test_training_dropout_zero_ratio_mask": "training-mode Dropout draws random masks",
  "test_not_2d": "the model imports opset 1; NeuralCore refuses opsets older than 7",
  "test_not_3d": "the model imports opset 1; NeuralCore refuses opsets older than 7",
  "test_not_4d": "the model imports opset 1; NeuralCore refuses opsets older than 7",
  "test_dynamicquantizelinear_expanded":
    "QuantizeLinear with a scale computed at run time: NeuralCore reads scales while planning",
  "test_dynamicquantizelinear_max_adjusted_expanded":
    "QuantizeLinear with a scale computed at run time: NeuralCore reads scales while planning",
  "test_dynamicquantizelinear_min_adjusted_expanded":
    "QuantizeLinear with a scale computed at run time: NeuralCore reads scales while planning",
  "test_range_float_type_positive_delta":
    "Range over run-time scalars: its length depends on values the planner must know",
]

/// Whether loading the case's model fails with an `unsupported` error naming the operator.
private func isRefusedAsUnsupported(_ testCase: ONNXNodeTestCase) -> Bool {
  var model = testCase.model
  let planning = planningInputs(testCase.model)
  for (info, tensor) in zip(
    testCase.model.graph.runtimeInputs, testCase.dataSets.first?.inputs ?? [])
  where !isFedAtRunTime(info.name, tensor, testCase.model) || planning.contains(info.name) {
    var constant = tensor
    constant.name = info.name
    model.graph.initializers.append(constant)
  }
  do {
    let session = try InferenceSession(model: model)
    _ = session.inputs
    return false
  } catch {
    return error.code == .unsupported
  }
}

/// Float graph inputs the planner needs as values: Resize's and Upsample's roi and scales.
private func planningInputs(_ model: ONNXModel) -> Set<String> {
  var names = Set<String>()
  for node in model.graph.nodes where node.opType == "Resize" || node.opType == "Upsample" {
    names.formUnion(node.inputs.dropFirst())
  }
  return names
}

/// Runs every data set of a case; returns a description of the first difference, or `nil`.
private func check(_ testCase: ONNXNodeTestCase, kernels: KernelSet) -> String? {
  let graphInputs = testCase.model.graph.runtimeInputs
  let planning = planningInputs(testCase.model)
  for (index, dataSet) in testCase.dataSets.enumerated() {
    var model = testCase.model
    var feeds: [String: Tensor] = [:]
    for (info, tensor) in zip(graphInputs, dataSet.inputs) {
      let runTime = isFedAtRunTime(info.name, tensor, testCase.model)
      if runTime, case .float(let value) = tensor.value {
        feeds[info.name] = value
      } else if runTime, case .integer(let values, let shape) = tensor.value {
        guard let value = try? Tensor(shape: shape, scalars: values.map { Float($0) }) else {
          return "integer input of \(shape) does not fit its values"
        }
        feeds[info.name] = value
      } else if case .double(let values, let shape) = tensor.value, !planning.contains(info.name) {
        // The engine computes in float32: float64 data is fed rounded to float32.
        guard let value = try? Tensor(shape: shape, scalars: values.map { Float($0) }) else {
          return "float64 input of \(shape) does not fit its values"
        }
        feeds[info.name] = value
      } else {
        var constant = tensor
        constant.name = info.name
        model.graph.initializers.append(constant)
      }
    }
    do {
      let session = try InferenceSession(
        graph: Graph(model), options: SessionOptions(threadCount: 2), kernels: kernels)
      let results = try session.run(feeds)
      for (info, expected) in zip(testCase.model.graph.outputs, dataSet.outputs) {
        // Boolean results are float tensors of 1 and 0 at run time (see planComparison).
        let reference: Tensor
        switch expected.value {
        case .float(let value): reference = value
        case .double(let values, let shape):
          guard let value = try? Tensor(shape: shape, scalars: values.map { Float($0) }) else {
            return "float64 output of \(shape) does not fit its values"
          }
          reference = value
        case .bool(let values, let shape):
          guard let value = try? Tensor(shape: shape, scalars: values.map { $0 ? 1 : 0 }) else {
            return "boolean output of \(shape) does not fit its values"
          }
          reference = value
        case .integer(let values, let shape):
          // Integer results are float tensors of their values at the API.
          guard let value = try? Tensor(shape: shape, scalars: values.map { Float($0) }) else {
            return "integer output of \(shape) does not fit its values"
          }
          reference = value
        default: return "output of another element type"
        }
        guard let actual = results[info.name] else { return "output '\(info.name)' missing" }
        if let difference = mismatch(
          actual, reference, relative: testCase.relativeTolerance,
          absolute: testCase.absoluteTolerance)
        {
          return "data set \(index) output '\(info.name)': \(difference)"
        }
      }
    } catch {
      return "data set \(index): \(error)"
    }
  }
  return nil
}

/// numpy.testing.assert_allclose's rule: `|actual - expected| <= atol + rtol * |expected|`.
private func mismatch(
  _ actual: Tensor, _ expected: Tensor, relative: Double, absolute: Double
) -> String? {
  guard actual.shape == expected.shape else {
    return "shape \(actual.shape), expected \(expected.shape)"
  }
  for (index, (a, e)) in zip(actual.scalars, expected.scalars).enumerated() {
    if a.isNaN && e.isNaN { continue }
    if a == e { continue }
    let difference = abs(Double(a) - Double(e))
    if !(difference <= absolute + relative * abs(Double(e))) {
      return "element \(index): \(a), expected \(e)"
    }
  }
  return nil
}
