import Foundation
import ModelFormats
import NeuralCore
import Testing

@Suite struct NPYFileTests {
  @Test(.requiresSharedModels("ref/efficientnet-lite0/chelsea.input.npy"))
  func readsReferenceInputAndWritesTheSameHeaderAsNumPy() throws {
    let path = try SharedModels.requiredPath("ref/efficientnet-lite0/chelsea.input.npy")
    let tensor = try NPYFile.read(contentsOfFile: path)
    #expect(tensor.shape == [1, 3, 224, 224])
    #expect(tensor.scalars.allSatisfy { $0.isFinite })
    let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(NPYFile.encode(tensor) == original)
  }

  @Test func roundTripsShapes() throws {
    for shape in [[], [0], [5], [2, 3], [1, 3, 4, 5]] {
      let count = try #require(Tensor.elementCount(of: shape))
      let tensor = try Tensor(shape: shape, scalars: (0..<count).map { Float($0) * 0.5 - 1 })
      let bytes = NPYFile.encode(tensor)
      #expect(bytes.count % 64 == (4 * count) % 64)
      #expect(try NPYFile.decode(bytes) == tensor)
    }
  }

  @Test func writesAndReadsFiles() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("npy-\(UUID().uuidString).npy").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let tensor = try Tensor(shape: [2, 2], scalars: [1, -2, 3.5, .infinity])
    try NPYFile.write(tensor, toFile: path)
    #expect(try NPYFile.read(contentsOfFile: path) == tensor)
  }

  @Test func convertsOtherNumericTypes() throws {
    // int16 big-endian [-2, 300], float64 [0.25], uint8 [255], bool [1, 0], float16 [1.5].
    let cases: [(String, [Int], [UInt8], [Float])] = [
      (">i2", [2], [0xFF, 0xFE, 0x01, 0x2C], [-2, 300]),
      ("<f8", [1], [0, 0, 0, 0, 0, 0, 0xD0, 0x3F], [0.25]),
      ("|u1", [1], [255], [255]),
      ("|b1", [2], [1, 0], [1, 0]),
      ("<f2", [1], [0x00, 0x3E], [1.5]),
    ]
    for (descriptor, shape, data, expected) in cases {
      let bytes = npyBytes(
        header: "{'descr': '\(descriptor)', 'fortran_order': False, 'shape': (\(shape[0]),), }",
        data: data)
      #expect(try NPYFile.decode(bytes).scalars == expected, "\(descriptor)")
    }
  }

  @Test func refusesWhatItCannotRepresent() {
    let refusals: [(String, [UInt8], ModelFormatsError.Code)] = [
      ("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", [0, 0, 0, 0], .unsupported),
      ("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", [0, 0, 0, 0], .unsupported),
      ("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", [0, 0, 0, 0], .unsupported),
      ("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", [0, 0, 0, 0], .malformedFile),
      (
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4000000000, 4000000000), }", [],
        .limitExceeded
      ),
      ("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", [], .malformedFile),
      ("{'descr': '<f4', 'shape': (1,), }", [0, 0, 0, 0], .malformedFile),
      ("{'descr': '<f4', 'fortran_order': False, 'shape': (1,", [0, 0, 0, 0], .malformedFile),
    ]
    for (header, data, code) in refusals {
      expectModelFormatsError(code, header) {
        _ = try NPYFile.decode(npyBytes(header: header, data: data))
      }
    }
    expectModelFormatsError(.malformedFile) { _ = try NPYFile.decode(Array("not numpy".utf8)) }
  }
}

/// A format 1.0 `.npy` file with the given header text and data.
func npyBytes(header: String, data: [UInt8]) -> [UInt8] {
  let text = Array((header + "\n").utf8)
  return [
    0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 1, 0, UInt8(text.count & 0xFF), UInt8(text.count >> 8),
  ]
    + text + data
}
