import Foundation
import ModelFormats
import TestSupport

/// Counts how fuzzed inputs ended: a value, or a ModelFormatsError by code.
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
    } catch let error as ModelFormatsError {
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

/// Damaged copies of a model file: truncations (dense over its first `structure` bytes, then
/// spread), byte flips (mostly in the first `region` bytes, where they change structure) and
/// varint overflows written over field keys near the start.
enum ModelMutations {
  static func variants(
    of bytes: [UInt8], generator: inout SeededGenerator, structure: Int, region: Int,
    truncationStride: Int, randomTruncations: Int, flips: Int = 200
  ) -> [[UInt8]] {
    var variants: [[UInt8]] = []
    let offsets =
      Array(stride(from: 0, to: min(structure, bytes.count), by: truncationStride))
      + (0..<randomTruncations).map { _ in Int.random(in: 0..<bytes.count, using: &generator) }
    for offset in offsets { variants.append(Array(bytes[..<offset])) }
    for round in 0..<flips {
      var mutated = bytes
      let limit = round % 4 == 0 ? bytes.count : min(bytes.count, region)
      for _ in 0..<Int.random(in: 1...8, using: &generator) {
        mutated[Int.random(in: 0..<limit, using: &generator)] ^= UInt8.random(
          in: 1...255, using: &generator)
      }
      variants.append(mutated)
    }
    for _ in 0..<40 {
      var mutated = bytes
      let start = Int.random(in: 0..<min(structure, bytes.count - 11), using: &generator)
      for index in start..<(start + 11) { mutated[index] = 0xFF }
      variants.append(mutated)
    }
    return variants
  }
}
