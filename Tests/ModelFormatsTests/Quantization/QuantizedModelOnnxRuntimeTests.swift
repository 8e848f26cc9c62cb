import Foundation
import ModelFormats
import NeuralCore
import TestSupport
import Testing

/// EfficientNet-Lite0 (the shared ONNX export, or its rebuild) calibrated with NeuralCore on the reference
/// inputs, quantized to QDQ, and run by ONNX Runtime through
/// `Scripts/int8-fixtures/check_quantized.py`: `onnx.checker` accepts the file and the int8
/// model keeps the float32 model's top class on the calibration inputs.
@Suite(
  .enabled(
    if: SharedData.contains("models/onnx/efficientnet-lite0.onnx")
      && FileManager.default.isExecutableFile(atPath: QDQCheckScript.python.path),
    Comment(rawValue: "needs ../shared/models and the torch venv (Scripts/setup --test-tools)")))
struct QuantizedModelOnnxRuntimeTests {
  #if !DEBUG
    // Release only (the release command-line job of .ci/run): minutes in a debug build.
    @Test func onnxRuntimeRunsTheQuantizedLite0() throws {
      let original = try #require(SharedData.url("models/onnx/efficientnet-lite0.onnx"))
      let references = try #require(SharedData.url("models/ref/efficientnet-lite0"))
      let inputs = try FileManager.default.contentsOfDirectory(atPath: references.path)
        .filter { $0.hasSuffix(".input.npy") && !$0.hasPrefix("batch") }.sorted()
        .map { references.appendingPathComponent($0) }
      #expect(inputs.count >= 6)  // 12 in ../shared/models, 6 in its rebuild
      let model = try ONNXModel(contentsOf: original)
      #expect(model.quantizableLayers.count == 50)

      let tensors = model.calibrationTensors
      let session = try InferenceSession(model: model.addingOutputs(tensors))
      var histograms = [String: ActivationHistogram]()
      for name in tensors { histograms[name] = ActivationHistogram() }
      for input in inputs {
        let tensor = try NPYFile.read(contentsOfFile: input.path)
        let outputs = try session.run([model.inputNames[0]: tensor])
        for name in tensors {
          histograms[name]?.add(try #require(name == "input" ? tensor : outputs[name]).scalars)
        }
      }

      let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("vision-catalog-qdq-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      // ONNX Runtime's own quantize_static (QDQ, U8S8, per channel) keeps 10 of ../shared's 12
      // with its MinMax, Entropy and Percentile calibrators alike. At most one input may change
      // its top class with the percentile calibration (two with entropy), and keeping layers in
      // float32 must keep at least as many as quantizing every layer with the same calibration.
      let layers = model.quantizableLayers
      let count = inputs.count
      let runs: [(CalibrationMethod, Set<String>, Int)] = [
        (.percentile(99.99), [], count - 1), (.entropy, [], count - 2),
        (.percentile(99.99), [layers[0]], count - 1),
        (.percentile(99.99), [layers[49]], count - 1),
        (.percentile(99.99), [layers[0], layers[49]], count - 1),
      ]
      for (method, keptFloat, least) in runs {
        let quantized = try model.quantized(
          ranges: histograms.mapValues { $0.range(for: method) }, keepingFloat: keptFloat)
        let written = folder.appendingPathComponent("lite0-\(method.name).onnx")
        try Data(quantized.serializedBytes()).write(to: written)
        let check = try QDQCheckScript.check(fp32: original, int8: written, inputs: inputs)
        print(
          "QDQ: ONNX Runtime, Lite0 \(method), float32 \(keptFloat.sorted()): "
            + "\(check.agreeing)/\(check.inputs) agree")
        #expect(check.inputs == count)
        #expect(check.operators["Conv"] == 49)
        // Every Clip(0, 6) after a quantized convolution is folded into its output's range.
        #expect(check.operators["Clip"] == (keptFloat.contains(layers[0]) ? 1 : nil))
        #expect(check.agreeing >= least, "\(method): \(check.agreeing)/\(check.inputs)")
      }
    }
  #endif
}
