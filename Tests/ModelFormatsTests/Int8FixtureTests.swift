import Foundation
import ModelFormats
import TestSupport
import Testing

@testable import NeuralCore

/// Int8 models from ONNX Runtime's quantizer (QDQ S8S8 and U8S8, QOperator, dynamic) run
/// through ``InferenceSession`` and compared with ONNX Runtime's outputs on the same inputs.
///
/// Debug builds run one photo of each fixture on the fastest kernel set; the release job of
/// `.ci/run` runs every photo under each kernel set.
@Suite(
  .serialized,
  .requiresGeneratedFixture(Int8Fixtures.manifest, madeBy: "Scripts/int8-fixtures/generate.sh"))
struct Int8FixtureTests {
  /// The output may differ from ONNX Runtime's by this many steps of its final scale (ONNX
  /// Runtime itself differs by up to 3 between its fused and unfused runs of these files);
  /// PP-LCNet's hard-swish and squeeze-excitation files by at most 3.
  static func steps(_ fixture: Int8Fixtures.Case) -> Float {
    fixture.name.hasPrefix("lcnet") ? 3 : 4
  }

  /// Photos per fixture this build runs.
  static var rows: Int {
    #if DEBUG
      return 1
    #else
      return .max
    #endif
  }

  @Test(arguments: Int8Fixtures.cases())
  func matchesONNXRuntime(_ fixture: Int8Fixtures.Case) throws {
    let session = try InferenceSession(
      contentsOf: fixture.url(fixture.file), options: SessionOptions(threadCount: 2))
    let inputs = try NPYFile.read(contentsOfFile: fixture.url(fixture.inputs).path)
    let expected = try NPYFile.read(contentsOfFile: fixture.url(fixture.outputs).path)
    let unoptimized = try NPYFile.read(
      contentsOfFile: fixture.url(fixture.outputsUnoptimized).path)
    let perRow = inputs.count / inputs.shape[0]
    let classes = expected.shape[1]
    // A float output has no final scale: allow the same share of its range.
    let scale = Float(fixture.outputDequantizeScale ?? 0.05)
    for row in 0..<min(inputs.shape[0], Self.rows) {
      let input = try Tensor(
        shape: [1] + inputs.shape.dropFirst(),
        scalars: Array(inputs.scalars[(row * perRow)..<((row + 1) * perRow)]))
      let output = try #require(try session.run([fixture.inputName: input])[fixture.outputName])
      let ours = output.scalars
      let theirs = Array(expected.scalars[(row * classes)..<((row + 1) * classes)])
      let asWritten = Array(unoptimized.scalars[(row * classes)..<((row + 1) * classes)])
      let difference = zip(ours, theirs).map { abs($0 - $1) }.max() ?? .infinity
      let fromWritten = zip(ours, asWritten).map { abs($0 - $1) }.max() ?? .infinity
      print(
        "int8 \(fixture.name) \(KernelSet.active) row \(row): \(difference / scale) steps of "
          + "\(scale) from ONNX Runtime, \(fromWritten / scale) from its unfused run")
      // Outputs are whole steps apart: half a step of slack absorbs float rounding only.
      let limit = (Self.steps(fixture) + 0.5) * scale
      #expect(difference <= limit, "\(fixture.name) row \(row): \(difference)")
      #expect(fromWritten <= limit, "\(fixture.name) row \(row): \(fromWritten)")
      #expect(
        ours.indices.max { ours[$0] < ours[$1] } == theirs.indices.max { theirs[$0] < theirs[$1] },
        "\(fixture.name) row \(row): top-1")
    }
  }
}
