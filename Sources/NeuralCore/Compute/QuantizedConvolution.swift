import CNative

/// Bytes allocated with the alignment the int8 kernels' packed weights want, freed with the
/// last reference.
final class AlignedBytes: @unchecked Sendable {
  // Safety (@unchecked): written once while packing, before the value is shared; read only
  // afterwards.

  /// The bytes' start, 64-byte aligned.
  let base: UnsafeMutableRawPointer
  /// How many bytes there are.
  let count: Int

  /// Zeroed bytes.
  init(count: Int) {
    self.count = max(count, 1)
    base = UnsafeMutableRawPointer.allocate(byteCount: self.count, alignment: 64)
    base.initializeMemory(as: UInt8.self, repeating: 0, count: self.count)
  }

  deinit { base.deallocate() }
}

/// How int32 sums become quantized outputs, per output channel, in the stored (unsigned)
/// domain: `clamp(round((sum + bias) * scale) + zeroPoint, minimum, maximum)`.
struct Requantization: Sendable {
  var bias: [Int32]
  var scales: [Float]
  var zeroPoint: Int32
  var minimum: Int32
  var maximum: Int32

  /// Calls `body` with the C form, valid during the call.
  func withNative<Result>(_ body: (UnsafePointer<cnk_requantization>) -> Result) -> Result {
    bias.withUnsafeBufferPointer { bias in
      scales.withUnsafeBufferPointer { scales in
        var native = cnk_requantization(
          bias: bias.baseAddress, scale: scales.baseAddress, zero_point: zeroPoint,
          minimum: minimum, maximum: maximum)
        return body(&native)
      }
    }
  }
}

/// A 2-D convolution of quantized channels-last images by packed int8 weights: pointwise (a
/// matrix product over positions), depthwise, or any other single-group convolution through
/// im2col patches.
///
/// Activations are unsigned bytes (int8 data held shifted by 128), positions `stride` bytes
/// apart; sums are exact int32 and requantized per output channel.
struct QuantizedConvolution: Sendable {
  /// How the convolution runs.
  enum Form: Sendable, Equatable {
    /// A 1x1, stride-1, unpadded convolution: one matrix product over positions.
    case pointwise
    /// One kernel per channel.
    case depthwise
    /// Patches of `patch` bytes (kernel taps x input channels, channels fastest), rows
    /// `patchStride` bytes apart, multiplied by the packed weights.
    case patches(patch: Int, patchStride: Int)
  }

  let form: Form
  let kernels: Int8Kernels
  let packed: AlignedBytes
  let inputChannels: Int
  let outputChannels: Int
  let window: Window
  let requantization: Requantization
  /// The stored value of the input's zero point, which taps outside the image read.
  let inputZeroPoint: Int32

  /// Packs `weights` (`[output][input][kernelHeight][kernelWidth]`, int8 values, one group or
  /// depthwise) for `kernels`.
  init(
    weights: [Int8], outputChannels: Int, inputChannels: Int, depthwise: Bool, window: Window,
    requantization: Requantization, inputZeroPoint: Int32, kernels: Int8Kernels
  ) {
    self.kernels = kernels
    self.outputChannels = outputChannels
    self.inputChannels = inputChannels
    self.window = window
    self.requantization = requantization
    self.inputZeroPoint = inputZeroPoint
    let taps = window.kernelHeight * window.kernelWidth
    if depthwise {
      form = .depthwise
      packed = AlignedBytes(
        count: Int(kernels.qdepthwisePackedBytes(Int64(outputChannels), Int64(taps))))
      weights.withUnsafeBufferPointer { source in
        kernels.qdepthwisePack(source.baseAddress, Int64(outputChannels), Int64(taps), packed.base)
      }
      return
    }
    let pointwise =
      taps == 1 && window.strideY == 1 && window.strideX == 1 && window.padTop == 0
      && window.padLeft == 0 && window.padBottom == 0 && window.padRight == 0
    let patch = taps * inputChannels
    form = pointwise ? .pointwise : .patches(patch: patch, patchStride: (patch + 3) / 4 * 4)
    // Patches hold taps outermost, channels fastest: the weights are reordered to match.
    var reordered = [Int8](repeating: 0, count: outputChannels * patch)
    for output in 0..<outputChannels {
      for channel in 0..<inputChannels {
        for tap in 0..<taps {
          reordered[output * patch + tap * inputChannels + channel] =
            weights[(output * inputChannels + channel) * taps + tap]
        }
      }
    }
    packed = AlignedBytes(count: Int(kernels.qgemmPackedBytes(Int64(outputChannels), Int64(patch))))
    reordered.withUnsafeBufferPointer { source in
      kernels.qgemmPack(
        source.baseAddress, Int64(outputChannels), Int64(patch), Int64(patch), packed.base)
    }
  }

  /// The scratch bytes one run needs for patches of `positions` output positions.
  func scratchBytes(positions: Int) -> Int {
    guard case .patches(_, let patchStride) = form else { return 0 }
    return positions * patchStride
  }

  /// Convolves `batch` images of `height` x `width` positions (`inputStride` bytes apart) into
  /// `outputHeight` x `outputWidth` positions (`outputStride` bytes apart).
  func run(
    input: UnsafePointer<UInt8>, batch: Int, height: Int, width: Int, inputStride: Int,
    output: UnsafeMutablePointer<UInt8>, outputHeight: Int, outputWidth: Int,
    outputStride: Int, scratch: UnsafeMutablePointer<UInt8>?, threads: Int
  ) {
    let outputPositions = outputHeight * outputWidth
    // About 64 output positions per task, at least one row.
    let rowsPerTask = max(1, 64 / max(outputWidth, 1))
    let tasks = (outputHeight + rowsPerTask - 1) / rowsPerTask
    requantization.withNative { requantize in
      Parallel.forEach(batch * tasks, threads: threads) { task in
        let image = task / tasks
        let firstRow = (task % tasks) * rowsPerTask
        let rowCount = min(rowsPerTask, outputHeight - firstRow)
        let source = input + image * height * width * inputStride
        let target = output + image * outputPositions * outputStride
        let patches = scratch.map { $0 + (image * outputPositions) * scratchStride }
        runRows(
          source, height: height, width: width, inputStride: inputStride, target,
          outputWidth: outputWidth, outputHeight: outputHeight, outputStride: outputStride,
          firstRow: firstRow, rowCount: rowCount, patches: patches, requantize: requantize)
      }
    }
  }

  private var scratchStride: Int {
    if case .patches(_, let patchStride) = form { return patchStride }
    return 0
  }

  /// Output rows firstRow..<firstRow + rowCount of one image.
  private func runRows(
    _ input: UnsafePointer<UInt8>, height: Int, width: Int, inputStride: Int,
    _ output: UnsafeMutablePointer<UInt8>, outputWidth: Int, outputHeight: Int,
    outputStride: Int, firstRow: Int, rowCount: Int, patches: UnsafeMutablePointer<UInt8>?,
    requantize: UnsafePointer<cnk_requantization>
  ) {
    let first = firstRow * outputWidth
    let count = rowCount * outputWidth
    switch form {
    case .pointwise:
      kernels.qgemm(
        Int64(count), Int64(inputChannels), input + first * inputStride, Int64(inputStride),
        packed.base, Int64(outputChannels), requantize, output + first * outputStride,
        Int64(outputStride))
    case .depthwise:
      var native = window.native
      kernels.qdepthwise(
        input, Int64(height), Int64(width), Int64(inputChannels), Int64(inputStride),
        packed.base, inputZeroPoint, &native, requantize, output, Int64(outputHeight),
        Int64(outputWidth), Int64(outputStride), Int64(firstRow), Int64(rowCount))
    case .patches(let patch, let patchStride):
      guard let patches else { return }
      let rows = patches + first * patchStride
      writePatches(
        input, height: height, width: width, inputStride: inputStride, outputWidth: outputWidth,
        first: first, count: count, into: rows, patch: patch, patchStride: patchStride)
      kernels.qgemm(
        Int64(count), Int64(patch), rows, Int64(patchStride), packed.base,
        Int64(outputChannels), requantize, output + first * outputStride, Int64(outputStride))
    }
  }

  /// Writes the patches of output positions first..<first + count: each the window's taps in
  /// order, the input channels of each tap, the zero point where a tap falls outside.
  private func writePatches(
    _ input: UnsafePointer<UInt8>, height: Int, width: Int, inputStride: Int, outputWidth: Int,
    first: Int, count: Int, into rows: UnsafeMutablePointer<UInt8>, patch: Int, patchStride: Int
  ) {
    let padding = UInt8(truncatingIfNeeded: inputZeroPoint)
    let channels = inputChannels
    let window = window
    // A tap of up to 4 channels is one 4-byte copy when the extra bytes stay inside the patch
    // row (they are overwritten by the next tap or meet zero weights); positions are at least
    // 16 bytes apart, so the read stays inside the input.
    let wide = channels == 4 || (channels < 4 && patch % 4 != 0)
    for index in 0..<count {
      let position = first + index
      let baseY = (position / outputWidth) * window.strideY - window.padTop
      let baseX = (position % outputWidth) * window.strideX - window.padLeft
      var target = rows + index * patchStride
      for ky in 0..<window.kernelHeight {
        let y = baseY + ky * window.dilationY
        guard y >= 0 && y < height else {
          target.update(repeating: padding, count: window.kernelWidth * channels)
          target += window.kernelWidth * channels
          continue
        }
        let row = input + y * width * inputStride
        for kx in 0..<window.kernelWidth {
          let x = baseX + kx * window.dilationX
          if x >= 0 && x < width {
            let source = row + x * inputStride
            if wide {
              UnsafeMutableRawPointer(target).storeBytes(
                of: UnsafeRawPointer(source).loadUnaligned(as: UInt32.self), as: UInt32.self)
            } else {
              for channel in 0..<channels { target[channel] = source[channel] }
            }
          } else {
            for channel in 0..<channels { target[channel] = padding }
          }
          target += channels
        }
      }
      for byte in patch..<patchStride { rows[index * patchStride + byte] = padding }
    }
  }
}
