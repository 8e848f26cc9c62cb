import Foundation
import NeuralCore

/// Counts how fuzzed inputs ended: a value, or a NeuralCoreError by code.
struct FuzzOutcomes: CustomStringConvertible {
  private(set) var values = 0
  private(set) var errorsByCode: [String: Int] = [:]

  var errors: Int { errorsByCode.values.reduce(0, +) }
  var total: Int { values + errors + foreignErrors.count }

  /// Errors of any other type; a correct reader never throws them.
  private(set) var foreignErrors: [String] = []

  /// Runs `body` and counts how it ended.
  mutating func record(_ body: () throws -> Void) {
    do {
      try body()
      values += 1
    } catch let error as NeuralCoreError {
      errorsByCode["\(error.code)", default: 0] += 1
    } catch {
      foreignErrors.append("\(error)")
    }
  }

  var description: String {
    let codes = errorsByCode.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
    return
      "\(total) mutations: \(values) parsed, \(errors) typed errors (\(codes.joined(separator: ", ")))"
  }
}

/// Reads a test input file.
enum FileBytesForTests {
  static func read(_ path: String) throws -> [UInt8] {
    try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
  }
}
