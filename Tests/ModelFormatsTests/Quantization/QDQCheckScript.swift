import Foundation
import TestSupport
import Testing

/// `Scripts/int8-fixtures/check_quantized.py` run with the torch venv's Python: ONNX Runtime's
/// top-1 agreement between a float32 model and its QDQ form.
enum QDQCheckScript {
  static let python = CorpusLocator.packageRoot.appendingPathComponent(
    ".cache/torch-venv/bin/python")
  static let script = CorpusLocator.packageRoot.appendingPathComponent(
    "Scripts/int8-fixtures/check_quantized.py")

  /// What the script prints.
  struct Check: Decodable {
    var inputs: Int
    var agreeing: Int
    var top1Agreement: Double
    var operators: [String: Int]

    enum CodingKeys: String, CodingKey {
      case inputs, agreeing, operators
      case top1Agreement = "top1_agreement"
    }
  }

  /// Runs the check script; fails the test when it fails.
  static func check(fp32: URL, int8: URL, inputs: [URL]) throws -> Check {
    let process = Process()
    process.executableURL = python
    process.arguments =
      [script.path, "--fp32", fp32.path, "--int8", int8.path] + inputs.map(\.path)
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "\(message)")
    return try JSONDecoder().decode(Check.self, from: data)
  }
}
