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

  /// Which way ``reorder(_:direction:batch:channels:positions:into:threads:)`` copies.
  enum Direction: Sendable {
    /// NCHW to blocked.
    case block
    /// Blocked to NCHW.
    case unblock
  }

  /// Copies `batch` images between NCHW and blocked layout, one block of channels per work item.
  static func reorder(
    _ input: UnsafePointer<Float>, direction: Direction, batch: Int, channels: Int,
    positions: Int, into output: UnsafeMutablePointer<Float>, threads: Int
  ) {
    let blockCount = blocks(channels)
    let plain = channels * positions
    let blocked = imageSize(channels: channels, positions: positions)
    Parallel.forEach(batch * blockCount, threads: threads) { item in
      let (image, block) = (item / blockCount, Int64(item % blockCount))
      switch direction {
      case .block:
        cnk_to_blocked(
          input + image * plain, Int64(channels), Int64(positions), block, 1,
          output + image * blocked)
      case .unblock:
        cnk_from_blocked(
          input + image * blocked, Int64(channels), Int64(positions), block, 1,
          output + image * plain)
      }
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
