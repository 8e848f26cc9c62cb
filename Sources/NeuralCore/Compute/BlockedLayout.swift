import CNative

/// The blocked channel layout (NCHWxc) that ``BlockedConvolution`` reads and writes, where `x` is
/// the vector width of a kernel set: 16 for AVX-512, 8 for AVX2 and NEON, 4 for portable.
///
/// An image of `C` channels and `P` positions is `ceil(C / lanes)` blocks of `P × lanes` floats:
/// channel `c` at position `p` is at `(c / lanes) * P * lanes + p * lanes + c % lanes`. Lanes
/// past the last channel are zero, so a blocked tensor can be added or pooled with whole vectors.
struct BlockedLayout: Sendable {
  /// The kernel set whose kernels run on this layout.
  let native: NativeKernels
  /// Channels per block: one vector of the set.
  var lanes: Int { native.lanes }

  /// The layout of a kernel set.
  init(kernels: KernelSet) {
    native = kernels.native
  }

  /// The blocks that hold `channels` channels.
  func blocks(_ channels: Int) -> Int { (channels + lanes - 1) / lanes }

  /// Channels rounded up to whole blocks.
  func paddedChannels(_ channels: Int) -> Int { blocks(channels) * lanes }

  /// The floats one blocked image of `channels × positions` occupies.
  func imageSize(channels: Int, positions: Int) -> Int {
    paddedChannels(channels) * positions
  }

  /// Which way ``reorder(_:direction:batch:channels:positions:into:threads:)`` copies.
  enum Direction: Sendable {
    /// NCHW to blocked.
    case block
    /// Blocked to NCHW.
    case unblock
  }

  /// Copies `batch` images between NCHW and blocked layout, one block of channels per work item.
  func reorder(
    _ input: UnsafePointer<Float>, direction: Direction, batch: Int, channels: Int,
    positions: Int, into output: UnsafeMutablePointer<Float>, threads: Int
  ) {
    let blockCount = blocks(channels)
    let plain = channels * positions
    let blocked = imageSize(channels: channels, positions: positions)
    let lanes = Int64(self.lanes)
    Parallel.forEach(batch * blockCount, threads: threads) { item in
      let (image, block) = (item / blockCount, Int64(item % blockCount))
      switch direction {
      case .block:
        cnk_to_blocked(
          input + image * plain, Int64(channels), Int64(positions), lanes, block, 1,
          output + image * blocked)
      case .unblock:
        cnk_from_blocked(
          input + image * blocked, Int64(channels), Int64(positions), lanes, block, 1,
          output + image * plain)
      }
    }
  }

  /// Writes `batch` blocked images in channels-last order (NHWC), as `Transpose` with
  /// permutation `[0, 2, 3, 1]` of the NCHW tensor would, in one pass.
  func toChannelsLast(
    _ input: UnsafePointer<Float>, batch: Int, channels: Int, positions: Int,
    into output: UnsafeMutablePointer<Float>, threads: Int
  ) {
    let blocked = imageSize(channels: channels, positions: positions)
    let (size, pieces) = Parallel.pieces(of: positions, groups: batch, threads: threads)
    Parallel.forEach(batch * pieces, threads: threads) { item in
      let (image, first) = (item / pieces, (item % pieces) * size)
      cnk_blocked_to_channels_last(
        input + image * blocked, Int64(channels), Int64(positions), Int64(lanes), Int64(first),
        Int64(min(size, positions - first)), output + image * channels * positions)
    }
  }

  /// Writes `batch` channels-last images (NHWC) as blocked images, as `Transpose` with
  /// permutation `[0, 3, 1, 2]` to NCHW and then blocking would, in one pass.
  func fromChannelsLast(
    _ input: UnsafePointer<Float>, batch: Int, channels: Int, positions: Int,
    into output: UnsafeMutablePointer<Float>, threads: Int
  ) {
    let blockCount = blocks(channels)
    let blocked = imageSize(channels: channels, positions: positions)
    Parallel.forEach(batch * blockCount, threads: threads) { item in
      let (image, block) = (item / blockCount, item % blockCount)
      cnk_channels_last_to_blocked(
        input + image * channels * positions, Int64(channels), Int64(positions), Int64(lanes),
        Int64(block), 1, output + image * blocked)
    }
  }

  /// Multiplies `batch` blocked images by one factor per channel: `factors` holds `channels`
  /// floats per image (NCHW), or whole blocks of them when `padded` (a blocked gate).
  func scale(
    _ input: UnsafePointer<Float>, by factors: UnsafePointer<Float>, padded: Bool, batch: Int,
    channels: Int, positions: Int, into output: UnsafeMutablePointer<Float>, threads: Int
  ) {
    let blocks = self.blocks(channels)
    // An NCHW gate holds `channels` factors per image; the kernel reads whole blocks of them.
    var gate = [Float](repeating: 0, count: padded ? 0 : batch * blocks * lanes)
    for image in 0..<(padded ? 0 : batch) {
      for channel in 0..<channels {
        gate[image * blocks * lanes + channel] = factors[image * channels + channel]
      }
    }
    gate.withUnsafeBufferPointer { buffer in
      // Safety: `gate` (or `factors`, when padded) holds batch * blocks * lanes factors; each
      // item reads and writes one block plane.
      guard let scales = padded ? factors : buffer.baseAddress.map({ UnsafePointer($0) }) else {
        return
      }
      Parallel.forEach(batch * blocks, threads: threads) { item in
        let plane = item * positions * lanes
        native.scaleBlocked(
          input + plane, scales + item * lanes, Int64(positions), output + plane)
      }
    }
  }

  /// The mean of every channel of `batch` blocked images, written as `batch × channels` floats.
  func globalAverage(
    _ input: UnsafePointer<Float>, batch: Int, channels: Int, positions: Int,
    into output: UnsafeMutablePointer<Float>
  ) {
    for image in 0..<batch {
      native.globalAverageBlocked(
        input + image * imageSize(channels: channels, positions: positions), Int64(channels),
        Int64(positions), output + image * channels)
    }
  }

  /// Max-pools `batch` blocked images of `channels × height × width` into blocked images of
  /// `size`.
  ///
  /// One channel block (or part of its rows) is one work item. Taps in the padding never win;
  /// NaN does.
  ///
  /// - Precondition: `size` is the window's output size for the input (with any ceiling mode),
  ///   and `output` holds `batch` blocked images of it.
  func maxPool(
    _ input: UnsafePointer<Float>, batch: Int, channels: Int, height: Int, width: Int,
    window: Window, size: (height: Int, width: Int), into output: UnsafeMutablePointer<Float>,
    threads: Int
  ) {
    let blockCount = blocks(channels)
    let (inputPlane, outputPlane) = (height * width * lanes, size.height * size.width * lanes)
    let (rowsPerPiece, pieces) = Parallel.pieces(
      of: size.height, groups: blockCount, threads: threads)
    var cWindow = window.native
    withUnsafePointer(to: &cWindow) { cWindow in
      Parallel.forEach(batch * blockCount * pieces, threads: threads) { item in
        let plane = item / pieces
        let firstRow = (item % pieces) * rowsPerPiece
        let block = plane % blockCount
        native.maxPoolBlocked(
          input + plane * inputPlane, Int64(height), Int64(width), cWindow,
          output + plane * outputPlane, Int64(size.width), Int64(firstRow),
          Int64(min(rowsPerPiece, size.height - firstRow)), Int64(channels - block * lanes))
      }
    }
  }
}
