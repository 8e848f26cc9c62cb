import CNative

/// The blocked channel layout (NCHW16c) that ``BlockedConvolution`` reads and writes.
///
/// An image of `C` channels and `P` positions is `ceil(C / 16)` blocks of `P × 16` floats:
/// channel `c` at position `p` is at `(c / 16) * P * 16 + p * 16 + c % 16`. Lanes past the last
/// channel are zero, so a blocked tensor can be added or pooled with whole vectors.
enum BlockedLayout {
  /// Channels per block: one AVX-512 vector of floats.
  static let lanes = Int(CNK_BLOCK_LANES)

  /// The blocks that hold `channels` channels.
  static func blocks(_ channels: Int) -> Int { (channels + lanes - 1) / lanes }

  /// The floats one blocked image of `channels × positions` occupies.
  static func imageSize(channels: Int, positions: Int) -> Int {
    blocks(channels) * lanes * positions
  }

  /// Copies `batch` NCHW images into blocked layout.
  static func block(
    _ input: UnsafePointer<Float>, batch: Int, channels: Int, positions: Int,
    into output: UnsafeMutablePointer<Float>, threads: Int
  ) {
    let blockCount = blocks(channels)
    Parallel.forEach(batch * blockCount, threads: threads) { item in
      let image = item / blockCount
      cnk_to_blocked(
        input + image * channels * positions, Int64(channels), Int64(positions),
        Int64(item % blockCount), 1,
        output + image * imageSize(channels: channels, positions: positions))
    }
  }

  /// Copies `batch` blocked images back to NCHW.
  static func unblock(
    _ input: UnsafePointer<Float>, batch: Int, channels: Int, positions: Int,
    into output: UnsafeMutablePointer<Float>, threads: Int
  ) {
    let blockCount = blocks(channels)
    Parallel.forEach(batch * blockCount, threads: threads) { item in
      let image = item / blockCount
      cnk_from_blocked(
        input + image * imageSize(channels: channels, positions: positions), Int64(channels),
        Int64(positions), Int64(item % blockCount), 1, output + image * channels * positions)
    }
  }

  /// The mean of every channel of `batch` blocked images, written as `batch × channels` floats.
  static func globalAverage(
    _ input: UnsafePointer<Float>, batch: Int, channels: Int, positions: Int,
    into output: UnsafeMutablePointer<Float>
  ) {
    for image in 0..<batch {
      cnk_global_average_blocked_avx512(
        input + image * imageSize(channels: channels, positions: positions), Int64(channels),
        Int64(positions), output + image * channels)
    }
  }
}
