import CNative
import Foundation

/// A 3x3, stride-1 convolution as Winograd's F(4x4, 3x3) (Lavin and Gray, 2015).
///
/// Each 4x4 output tile is `Aᵀ [Σ over input channels (G g Gᵀ) ⊙ (Bᵀ d B)] A`, where `d` is the
/// 6x6 input tile and `g` the 3x3 kernel. The 36 sums over input channels are 36 pointwise
/// convolutions whose positions are the tiles, so they run on the blocked pointwise kernel, and
/// the convolution takes 36 multiply-adds per 16 outputs and input channel instead of 144. The
/// transforms (C, per kernel set) work on whole channel blocks. Rounding grows by about two bits
/// over direct convolution: the error stays near 1e-6 of the sums' magnitude.
extension BlockedConvolution {
  /// Points per transformed tile: 6 x 6.
  static let winogradPoints = 36

  /// The fewest output tiles a plane needs for Winograd to beat im2col and a matrix product
  /// (NCHW): below it the 36 transformed weight sets, four times the kernel's, are read for too
  /// few positions.
  static let winogradMinimumTiles = 4

  /// Whether Winograd's F(4x4, 3x3) computes a window: 3x3, stride 1, no dilation (any padding).
  static func isWinogradWindow(_ window: Window) -> Bool {
    window.kernelHeight == 3 && window.kernelWidth == 3 && window.strideY == 1
      && window.strideX == 1 && window.dilationY == 1 && window.dilationX == 1
  }

  /// The 4x4 output tiles that cover an output plane: across, and in all.
  static func winogradTiles(height: Int, width: Int) -> (across: Int, count: Int) {
    let across = (width + 3) / 4
    return (across, (height + 3) / 4 * across)
  }

  /// `G g Gᵀ` of every 3x3 kernel, in double, packed as 36 pointwise weight sets
  /// (`[point][output block][input channel, padded][lanes]`).
  static func winogradWeights(
    _ raw: [Float], outputChannels: Int, inputChannels: Int, layout: BlockedLayout
  ) -> [Float] {
    let g: [[Double]] = [
      [1.0 / 4, 0, 0], [-1.0 / 6, -1.0 / 6, -1.0 / 6], [-1.0 / 6, 1.0 / 6, -1.0 / 6],
      [1.0 / 24, 1.0 / 12, 1.0 / 6], [1.0 / 24, -1.0 / 12, 1.0 / 6], [0, 0, 1],
    ]
    let lanes = layout.lanes
    let padded = layout.paddedChannels(inputChannels)
    let perPoint = layout.blocks(outputChannels) * padded * lanes
    var packed = [Float](repeating: 0, count: winogradPoints * perPoint)
    var half = [Double](repeating: 0, count: 18)
    for output in 0..<outputChannels {
      for input in 0..<inputChannels {
        let kernel = (output * inputChannels + input) * 9
        for row in 0..<6 {
          for column in 0..<3 {
            half[row * 3 + column] = (0..<3).reduce(0.0) {
              $0 + g[row][$1] * Double(raw[kernel + $1 * 3 + column])
            }
          }
        }
        let offset = ((output / lanes) * padded + input) * lanes + output % lanes
        for row in 0..<6 {
          for column in 0..<6 {
            let value = (0..<3).reduce(0.0) { $0 + half[row * 3 + $1] * g[column][$1] }
            packed[(row * 6 + column) * perPoint + offset] = Float(value)
          }
        }
      }
    }
    return packed
  }

  /// Runs one blocked image: input transform, the 36 products, output transform.
  ///
  /// The output transform adds the bias and the residual, then clamps. The transformed tiles
  /// live in memory allocated for the call.
  func runWinograd(
    input: UnsafePointer<Float>, height: Int, width: Int, residual: UnsafePointer<Float>?,
    output: UnsafeMutablePointer<Float>, size: (height: Int, width: Int),
    weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, threads: Int
  ) {
    let native = layout.native
    let (across, tiles) = Self.winogradTiles(height: size.height, width: size.width)
    let inputPoint = layout.imageSize(channels: inputChannels, positions: tiles)
    let outputPoint = layout.imageSize(channels: outputChannels, positions: tiles)
    let perPoint =
      layout.blocks(outputChannels) * layout.paddedChannels(inputChannels)
      * layout.lanes
    let points = Self.winogradPoints
    // The transformed inputs, their products, then a zero bias for the products (the output
    // transform adds the real one).
    let zeroBias = layout.paddedChannels(outputChannels)
    let transformed = UnsafeMutablePointer<Float>.allocate(
      capacity: points * (inputPoint + outputPoint) + zeroBias)
    defer { transformed.deallocate() }
    let products = transformed + points * inputPoint
    let zeros = products + points * outputPoint
    zeros.initialize(repeating: 0, count: zeroBias)
    let (tilesPerPiece, pieces) = Parallel.pieces(of: tiles, threads: threads)
    let (inputs, outputs) = (Int64(inputChannels), Int64(outputChannels))
    let (pads, bounds) = ((Int64(window.padTop), Int64(window.padLeft)), self.bounds)
    Parallel.forEach(pieces, threads: threads) { piece in
      let first = piece * tilesPerPiece
      native.winogradInput(
        input, inputs, Int64(height), Int64(width), pads.0, pads.1, Int64(across), Int64(tiles),
        Int64(first), Int64(min(tilesPerPiece, tiles - first)), transformed)
    }
    for point in 0..<points {
      runPointwise(
        input: transformed + point * inputPoint, positions: tiles, residual: nil,
        output: products + point * outputPoint, weights: weights + point * perPoint,
        bias: zeros, bounds: (-.infinity, .infinity), threads: threads)
    }
    Parallel.forEach(pieces, threads: threads) { piece in
      let first = piece * tilesPerPiece
      native.winogradOutput(
        products, outputs, Int64(across), Int64(tiles), bias, residual, bounds.low, bounds.high,
        output, Int64(size.height), Int64(size.width), Int64(first),
        Int64(min(tilesPerPiece, tiles - first)))
    }
    guard activation != .identity else { return }
    // The output transform writes whole tiles across rows, so the activation is its own pass.
    let positions = size.height * size.width
    Parallel.forEach(layout.blocks(outputChannels), threads: threads) { block in
      apply(
        activation, to: output + block * positions * layout.lanes, block: block, count: positions)
    }
  }
}
