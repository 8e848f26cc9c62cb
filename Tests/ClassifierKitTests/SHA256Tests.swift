import Foundation
import Testing

@testable import ClassifierKit

/// `SHA256` against the NIST example vectors, against `sha256sum` around the padding boundaries,
/// and streamed in random chunk sizes against the one-shot digest.
@Suite struct SHA256Tests {
  /// The NIST (FIPS 180-4 examples and CAVP) messages with their known digests.
  static let vectors: [(message: String, digest: String)] = [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
        + "lmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
  ]

  /// The lengths around the padding boundaries: the largest single-block message (55), the
  /// smallest that needs a second padding block (56), and whole blocks give or take one.
  static let boundaryLengths = [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129]

  /// A deterministic message of `count` bytes that is not periodic in 64.
  static func message(count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 / 7 &+ 17) }
  }

  /// Lowercase hexadecimal digits of `bytes`.
  static func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
  }

  /// The short NIST messages, through `hexDigest`, `digest` and `update` with an array.
  @Test func nistVectors() {
    for (message, expected) in Self.vectors {
      let data = Data(message.utf8)
      #expect(SHA256.hexDigest(data) == expected, "\(message.utf8.count)-byte message")
      #expect(Self.hex(SHA256.digest(data)) == expected)
      var hash = SHA256()
      hash.update(Array(message.utf8))
      #expect(Self.hex(hash.finalize()) == expected)
    }
  }

  /// One million `a`s, one-shot and in 1,000-byte pieces.
  @Test func oneMillionLetterA() {
    let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    #expect(SHA256.hexDigest(Data(repeating: UInt8(ascii: "a"), count: 1_000_000)) == expected)
    // The same message in 1,000-byte pieces, which straddle block boundaries.
    var hash = SHA256()
    let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
    for _ in 0..<1000 { hash.update(piece) }
    #expect(Self.hex(hash.finalize()) == expected)
  }

  /// The digest is 32 bytes; the hex form is its 64 lowercase digits.
  @Test func digestShape() {
    let digest = SHA256.digest(Data("shape".utf8))
    #expect(digest.count == 32)
    let hex = SHA256.hexDigest(Data("shape".utf8))
    #expect(hex.count == 64)
    #expect(hex.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) })
    #expect(hex == Self.hex(digest))
  }

  /// Messages around the padding boundaries match `/usr/bin/sha256sum` (skipped with a printed
  /// reason where it is absent), one-shot and byte by byte.
  @Test(arguments: boundaryLengths)
  func boundaryLengthsMatchSha256sum(length: Int) throws {
    let tool = "/usr/bin/sha256sum"
    guard FileManager.default.isExecutableFile(atPath: tool) else {
      print("SHA256Tests: skipping the length-\(length) comparison: \(tool) is absent")
      return
    }
    let bytes = Self.message(count: length)
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("sha256-\(length)-\(UUID().uuidString).bin")
    try Data(bytes).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }

    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = [file.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    let expected = String(decoding: printed, as: UTF8.self).prefix(64)

    #expect(SHA256.hexDigest(Data(bytes)) == String(expected))
    // Byte by byte, through the generic (`Collection`) entry point.
    var hash = SHA256()
    for byte in bytes { hash.update(CollectionOfOne(byte)) }
    #expect(Self.hex(hash.finalize()) == String(expected))
  }

  /// Streaming in seeded random chunk sizes (including empty chunks), through every `update`
  /// overload, gives the one-shot digest.
  @Test func streamingInRandomChunksMatchesOneShot() {
    var random = SplitMix64(seed: 0x5A5A_2024)
    for length in [0, 1, 63, 64, 65, 200, 1000, 4097, 70_000] {
      let bytes = Self.message(count: length)
      let data = Data(bytes)
      let expected = SHA256.digest(data)
      for round in 0..<8 {
        var hash = SHA256()
        var start = 0
        var usesData = round % 2 == 0
        while start < length {
          let size = Int(random.next() % 150)
          let end = min(length, start + size)
          // Alternate between the `Data` fast path, array slices and a non-contiguous collection.
          if usesData {
            hash.update(data.subdata(in: start..<end))
          } else if size % 3 == 0 {
            hash.update(bytes[start..<end].lazy.map { $0 })
          } else {
            hash.update(bytes[start..<end])
          }
          usesData.toggle()
          start = end
        }
        #expect(hash.finalize() == expected, "length \(length), round \(round)")
      }
    }
  }

  /// A copy of a partly fed hash continues independently of the original.
  @Test func copiesHashIndependently() {
    var hash = SHA256()
    hash.update(Array("ab".utf8))
    var branch = hash
    branch.update(Array("c".utf8))
    hash.update(Array("x".utf8))
    #expect(Self.hex(branch.finalize()) == Self.vectors[1].digest)
    #expect(hash.finalize() == SHA256.digest(Data("abx".utf8)))
  }
}
