package import Foundation

/// SHA-256 (FIPS 180-4) of byte strings, for content keys (the trainer's feature cache).
///
/// Feed bytes with `update(_:)` in chunks of any size, then `finalize()` once; or use
/// `digest(_:)` and `hexDigest(_:)` for a whole buffer. Whole 64-byte blocks are compressed
/// straight from the caller's memory; only a trailing partial block is copied.
package struct SHA256: Sendable {
  /// The eight 32-bit words of the intermediate hash value, H0 to H7.
  private struct State: Sendable {
    /// H0.
    var a: UInt32 = 0x6a09_e667
    /// H1.
    var b: UInt32 = 0xbb67_ae85
    /// H2.
    var c: UInt32 = 0x3c6e_f372
    /// H3.
    var d: UInt32 = 0xa54f_f53a
    /// H4.
    var e: UInt32 = 0x510e_527f
    /// H5.
    var f: UInt32 = 0x9b05_688c
    /// H6.
    var g: UInt32 = 0x1f83_d9ab
    /// H7.
    var h: UInt32 = 0x5be0_cd19
  }

  /// The 64 round constants K0 to K63: the first 32 bits of the fractional parts of the cube
  /// roots of the first 64 primes.
  private static let roundConstants: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4,
    0xab1c_5ed5, 0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe,
    0x9bdc_06a7, 0xc19b_f174, 0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f,
    0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da, 0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7,
    0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967, 0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc,
    0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85, 0xa2bf_e8a1, 0xa81a_664b,
    0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070, 0x19a4_c116,
    0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7,
    0xc671_78f2,
  ]

  /// The block size in bytes.
  private static let blockSize = 64

  /// The intermediate hash value after every whole block absorbed so far.
  private var state = State()

  /// The bytes of the current partial block (fewer than 64), waiting for the rest.
  private var pending: [UInt8] = []

  /// The number of message bytes absorbed so far, modulo 2^64.
  private var byteCount: UInt64 = 0

  /// An empty hash, ready for `update(_:)`.
  init() {
    pending.reserveCapacity(Self.blockSize)
  }

  /// Appends `bytes` to the message.
  ///
  /// Contiguous collections (`[UInt8]`, `ArraySlice`, buffer pointers) are hashed in place;
  /// other collections are copied through a fixed staging buffer.
  mutating func update(_ bytes: some Collection<UInt8>) {
    let handled: Void? = bytes.withContiguousStorageIfAvailable { buffer in
      absorb(UnsafeRawBufferPointer(buffer))
    }
    guard handled == nil else { return }
    let stagingSize = 4096
    var staging = [UInt8](repeating: 0, count: stagingSize)
    var filled = 0
    for byte in bytes {
      staging[filled] = byte
      filled += 1
      if filled == stagingSize {
        staging.withUnsafeBytes { absorb($0) }
        filled = 0
      }
    }
    staging.withUnsafeBytes { absorb(UnsafeRawBufferPointer(rebasing: $0.prefix(filled))) }
  }

  /// Appends the bytes of `data` to the message, hashing them in place.
  mutating func update(_ data: Data) {
    data.withUnsafeBytes { absorb($0) }
  }

  /// Pads the message and returns its 32-byte digest.
  consuming func finalize() -> [UInt8] {
    let bitLength = byteCount &* 8
    // 0x80, then zeros up to 56 bytes modulo 64, then the bit length as a big-endian UInt64.
    let zeroCount = (Self.blockSize + 55 - Int(byteCount % 64)) % Self.blockSize
    var padding = [UInt8](repeating: 0, count: 1 + zeroCount + 8)
    padding[0] = 0x80
    for index in 0..<8 {
      padding[1 + zeroCount + index] = UInt8(truncatingIfNeeded: bitLength >> (56 - 8 * index))
    }
    padding.withUnsafeBytes { absorb($0) }
    var digest = [UInt8](repeating: 0, count: 32)
    let words = [state.a, state.b, state.c, state.d, state.e, state.f, state.g, state.h]
    for (index, word) in words.enumerated() {
      for shift in 0..<4 {
        digest[4 * index + shift] = UInt8(truncatingIfNeeded: word >> (24 - 8 * shift))
      }
    }
    return digest
  }

  /// The 32-byte SHA-256 digest of `data`.
  static func digest(_ data: Data) -> [UInt8] {
    var hash = SHA256()
    hash.update(data)
    return hash.finalize()
  }

  /// The SHA-256 digest of `data` as 64 lowercase hexadecimal digits.
  package static func hexDigest(_ data: Data) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(64)
    for byte in digest(data) {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// Appends raw bytes: completes the pending block first, compresses whole blocks in place, and
  /// keeps the remainder pending.
  private mutating func absorb(_ bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty else { return }
    byteCount &+= UInt64(bytes.count)
    var rest = bytes
    if !pending.isEmpty {
      let taken = min(Self.blockSize - pending.count, rest.count)
      pending.append(contentsOf: rest.prefix(taken))
      rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(taken))
      guard pending.count == Self.blockSize else { return }
      pending.withUnsafeBytes { Self.compress(&state, blocks: $0) }
      pending.removeAll(keepingCapacity: true)
    }
    let wholeCount = rest.count - rest.count % Self.blockSize
    if wholeCount > 0 {
      Self.compress(&state, blocks: UnsafeRawBufferPointer(rebasing: rest.prefix(wholeCount)))
    }
    pending.append(contentsOf: rest.dropFirst(wholeCount))
  }

  /// Runs the compression function over `blocks`, whose length is a multiple of 64.
  private static func compress(_ state: inout State, blocks: UnsafeRawBufferPointer) {
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
      roundConstants.withUnsafeBufferPointer { constants in
        var offset = 0
        while offset + blockSize <= blocks.count {
          for t in 0..<16 {
            schedule[t] = UInt32(
              bigEndian: blocks.loadUnaligned(fromByteOffset: offset + 4 * t, as: UInt32.self))
          }
          for t in 16..<64 {
            let early = schedule[t - 15]
            let late = schedule[t - 2]
            let sigma0 = rotate(early, 7) ^ rotate(early, 18) ^ (early &>> 3)
            let sigma1 = rotate(late, 17) ^ rotate(late, 19) ^ (late &>> 10)
            schedule[t] = schedule[t - 16] &+ sigma0 &+ schedule[t - 7] &+ sigma1
          }
          var a = state.a
          var b = state.b
          var c = state.c
          var d = state.d
          var e = state.e
          var f = state.f
          var g = state.g
          var h = state.h
          for t in 0..<64 {
            let bigSigma1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
            // Ch and Maj in their equivalent forms with fewer operations.
            let choice = g ^ (e & (f ^ g))
            let temporary1 = h &+ bigSigma1 &+ choice &+ constants[t] &+ schedule[t]
            let bigSigma0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
            let majority = (a & b) | (c & (a | b))
            let temporary2 = bigSigma0 &+ majority
            h = g
            g = f
            f = e
            e = d &+ temporary1
            d = c
            c = b
            b = a
            a = temporary1 &+ temporary2
          }
          state.a &+= a
          state.b &+= b
          state.c &+= c
          state.d &+= d
          state.e &+= e
          state.f &+= f
          state.g &+= g
          state.h &+= h
          offset += blockSize
        }
      }
    }
  }

  /// Rotates `value` right by `count` bits (0 < `count` < 32).
  @inline(__always)
  private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
    (value &>> count) | (value &<< (32 &- count))
  }
}
