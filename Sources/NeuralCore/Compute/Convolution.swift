import CNative

/// A 2-D convolution over NCHW tensors with packed weights, bias and a fused activation.
///
/// Weights are `[outputChannels, inputChannels / groups, kernelHeight, kernelWidth]`. Depthwise
/// convolutions (one input channel per group, one output per group) run a direct kernel; all
/// others run as a GEMM per group whose B operand is the im2col matrix formed tile by tile
/// (for a 1x1, stride-1, unpadded convolution B is the input itself). Every kernel comes from
/// the ``KernelSet`` the weights are packed for.
struct Convolution: Sendable {
  let window: Window
  /// The micro-kernels the weights are packed for.
  let kernels: KernelSet
  let groups: Int
  let inputChannels: Int
  let outputChannels: Int
  let activation: Activation
  let isDepthwise: Bool
  /// Depthwise: the raw weights; otherwise one packed A per group.
  let weights: [Float]
  /// 1x1 ungrouped convolutions: the weights again, as panels of output channels for the
  /// channel-vectorized kernel that small planes use; otherwise empty.
  let channelPanels: [Float]
  let bias: [Float]

  init(
    weights raw: [Float], bias: [Float]?, outputChannels: Int, inputChannels: Int, groups: Int,
    window: Window, activation: Activation, kernels: KernelSet = .active
  ) {
    precondition(groups > 0 && inputChannels % groups == 0 && outputChannels % groups == 0)
    let depth = inputChannels / groups * window.kernelHeight * window.kernelWidth
    precondition(raw.count == outputChannels * depth)
    self.window = window
    self.kernels = kernels
    self.groups = groups
    self.inputChannels = inputChannels
    self.outputChannels = outputChannels
    self.activation = activation
    self.bias = bias ?? [Float](repeating: 0, count: outputChannels)
    isDepthwise = groups == inputChannels && groups == outputChannels
    let isOneByOne = window.kernelHeight == 1 && window.kernelWidth == 1 && groups == 1
    if isOneByOne {
      channelPanels = Convolution.packChannelPanels(
        raw, outputChannels: outputChannels, depth: depth, tile: kernels.columnTile)
    } else {
      channelPanels = []
    }
    if isDepthwise {
      weights = raw
    } else {
      let rows = outputChannels / groups
      let groupSize = GEMM.packedSize(rows: rows, depth: depth, kernels: kernels)
      weights = [Float](unsafeUninitializedCapacity: groupSize * groups) { buffer, count in
        raw.withUnsafeBufferPointer { source in
          // Safety: source holds outputChannels * depth floats and buffer groups * groupSize.
          guard let from = source.baseAddress, let to = buffer.baseAddress else { return }
          for group in 0..<groups {
            GEMM.packA(
              rows: rows, depth: depth, from + group * rows * depth, rowStride: depth,
              columnStride: 1, kernels: kernels, into: to + group * groupSize)
          }
        }
        count = groupSize * groups
      }
    }
  }

  /// Weights `[outputChannels, depth]` as panels of `tile` channels (the set's GEMM column
  /// tile), each `depth` steps of one value per channel, zero past the last channel.
  private static func packChannelPanels(
    _ raw: [Float], outputChannels: Int, depth: Int, tile: Int
  ) -> [Float] {
    let panels = (outputChannels + tile - 1) / tile
    var packed = [Float](repeating: 0, count: panels * tile * depth)
    for channel in 0..<outputChannels {
      let base = (channel / tile) * tile * depth + channel % tile
      for p in 0..<depth {
        packed[base + p * tile] = raw[channel * depth + p]
      }
    }
    return packed
  }

  /// The same weights applied with another stride, padding or dilation (same kernel size).
  func with(window newWindow: Window) -> Convolution {
    precondition(
      newWindow.kernelHeight == window.kernelHeight && newWindow.kernelWidth == window.kernelWidth)
    return Convolution(copying: self, window: newWindow)
  }

  private init(copying other: Convolution, window: Window) {
    self.window = window
    kernels = other.kernels
    groups = other.groups
    inputChannels = other.inputChannels
    outputChannels = other.outputChannels
    activation = other.activation
    isDepthwise = other.isDepthwise
    weights = other.weights
    channelPanels = other.channelPanels
    bias = other.bias
  }

  /// Runs the convolution on `batch` images of `height × width`.
  ///
  /// - Precondition: `output` holds `batch × outputChannels × outputHeight × outputWidth` floats.
  func run(
    input: UnsafePointer<Float>, batch: Int, height: Int, width: Int,
    output: UnsafeMutablePointer<Float>, threads: Int
  ) {
    guard let size = window.outputSize(height: height, width: width) else {
      preconditionFailure("convolution window larger than its padded input")
    }
    if isDepthwise {
      runDepthwise(
        input: input, batch: batch, height: height, width: width, output: output,
        outputHeight: size.height, outputWidth: size.width, threads: threads)
    } else {
      runGEMM(
        input: input, batch: batch, height: height, width: width, output: output,
        outputHeight: size.height, outputWidth: size.width, threads: threads)
    }
  }

  private func runGEMM(
    input: UnsafePointer<Float>, batch: Int, height: Int, width: Int,
    output: UnsafeMutablePointer<Float>, outputHeight: Int, outputWidth: Int, threads: Int
  ) {
    let groupInputs = inputChannels / groups
    let rows = outputChannels / groups
    let taps = window.kernelHeight * window.kernelWidth
    let depth = groupInputs * taps
    let columns = outputHeight * outputWidth
    let plane = height * width
    let isPointwise =
      taps == 1 && window.strideY == 1 && window.strideX == 1 && window.padTop == 0
      && window.padLeft == 0 && window.padBottom == 0 && window.padRight == 0
    let groupSize = GEMM.packedSize(rows: rows, depth: depth, kernels: kernels)
    let kernels = self.kernels
    let native = kernels.native
    let nativeWindow = window.native
    weights.withUnsafeBufferPointer { packedWeights in
      bias.withUnsafeBufferPointer { biasBuffer in
        // Safety: weights hold groups packed A blocks of groupSize; bias outputChannels floats.
        guard let weightBase = packedWeights.baseAddress, let biasBase = biasBuffer.baseAddress
        else { return }
        for image in 0..<batch {
          for group in 0..<groups {
            let source = input + (image * inputChannels + group * groupInputs) * plane
            let target = output + (image * outputChannels + group * rows) * columns
            let epilogue = GEMM.Epilogue(
              bias: biasBase + group * rows, accumulates: false, activation: activation)
            let ranByChannels =
              isPointwise && prefersChannelVectors(positions: columns, depth: depth)
              && runPointwiseByChannels(
                native, input: source, positions: columns, depth: depth, output: target,
                bias: biasBase, threads: threads)
            if ranByChannels { continue }
            if isPointwise {
              GEMM.multiply(
                rows: rows, columns: columns, depth: depth, packedA: weightBase + group * groupSize,
                packB: { start, count, destination in
                  GEMM.packB(
                    depth: depth, source, rowStride: plane, columnStride: 1, start: start,
                    width: count, columnTile: kernels.columnTile, into: destination)
                }, directB: source, directRowStride: plane, c: target, ldc: columns,
                epilogue: epilogue, threads: threads, kernels: kernels)
            } else {
              withUnsafePointer(to: nativeWindow) { windowPointer in
                GEMM.multiply(
                  rows: rows, columns: columns, depth: depth,
                  packedA: weightBase + group * groupSize,
                  packB: { start, count, destination in
                    native.im2colPanels(
                      source, Int64(groupInputs), Int64(height), Int64(width), windowPointer,
                      Int64(outputWidth), Int64(start), Int64(count), destination)
                  }, c: target, ldc: columns, epilogue: epilogue, threads: threads,
                  kernels: kernels)
              }
            }
          }
        }
      }
    }
  }

  /// Whether a pointwise convolution runs channel-vectorized: measured on EfficientNet-Lite0,
  /// it wins on 7x7 planes and on 14x14 planes whose depth is at least the channel count
  /// (projections), and loses where few input channels feed many outputs (expansions).
  func prefersChannelVectors(positions: Int, depth: Int) -> Bool {
    !channelPanels.isEmpty && (positions <= 64 || (positions <= 256 && depth >= outputChannels))
  }

  /// A pointwise convolution of one image, channel-vectorized: the positions are packed once,
  /// then blocks of positions times ranges of channel panels are the work items.
  ///
  /// - Returns: `false`, having written nothing, when no workspace for the packed positions
  ///   could be had (the caller then runs the ordinary GEMM).
  private func runPointwiseByChannels(
    _ native: NativeKernels, input: UnsafePointer<Float>, positions: Int, depth: Int,
    output: UnsafeMutablePointer<Float>,
    bias: UnsafePointer<Float>, threads: Int
  ) -> Bool {
    let rowTile = native.rowTile
    let columnTile = native.columnTile
    let packedFloats = (positions + rowTile - 1) / rowTile * rowTile * depth
    guard let raw = cnk_thread_scratch(packedFloats * 4) else { return false }
    let packed = raw.assumingMemoryBound(to: Float.self)
    // Packing is a pass over the whole input: split it too, in whole row panels.
    let panelCount = (positions + rowTile - 1) / rowTile
    let packPieces = threads > 1 ? min(panelCount, 4 * threads) : 1
    let panelsPerPiece = (panelCount + packPieces - 1) / packPieces
    Parallel.forEach((panelCount + panelsPerPiece - 1) / panelsPerPiece, threads: threads) {
      piece in
      let start = piece * panelsPerPiece * rowTile
      let count = min(panelsPerPiece * rowTile, positions - start)
      native.packPositions(
        input, Int64(depth), Int64(positions), Int64(start), Int64(count), packed + start * depth)
    }
    let fit = max(rowTile, (65_536 / max(depth, 1)) / rowTile * rowTile)
    let block = min(fit, (positions + rowTile - 1) / rowTile * rowTile)
    let positionBlocks = (positions + block - 1) / block
    let channelPanelCount = (outputChannels + columnTile - 1) / columnTile
    var channelGroups = 1
    if threads > 1 {
      channelGroups = min(
        channelPanelCount, max(1, (8 * threads + positionBlocks - 1) / positionBlocks))
    }
    let panelsPerGroup = (channelPanelCount + channelGroups - 1) / channelGroups
    channelGroups = (channelPanelCount + panelsPerGroup - 1) / panelsPerGroup
    let bounds = activation.clampBounds
    var fused = cnk_epilogue(
      bias: bias, accumulate: 0, residual: nil, clamp_min: bounds?.low ?? -.infinity,
      clamp_max: bounds?.high ?? .infinity, column_bias: nil)
    let outputChannels = self.outputChannels
    let activation = self.activation
    let kernels = self.kernels
    channelPanels.withUnsafeBufferPointer { panelBuffer in
      withUnsafePointer(to: &fused) { epilogue in
        // Safety: the panels hold every channel's weights and `packed` every position (this
        // thread's workspace, only read by the items); each item writes its own channel rows
        // within its own block of positions.
        guard let panels = panelBuffer.baseAddress else { return }
        Parallel.forEach(positionBlocks * channelGroups, threads: threads) { item in
          let start = (item / channelGroups) * block
          let count = min(block, positions - start)
          let firstChannel = (item % channelGroups) * panelsPerGroup * columnTile
          let channelCount = min(panelsPerGroup * columnTile, outputChannels - firstChannel)
          native.pointwiseTile(
            Int64(depth), packed + start * depth, Int64(count), panels, Int64(firstChannel),
            Int64(channelCount), output + start, Int64(positions), epilogue)
          if bounds == nil {
            for channel in firstChannel..<(firstChannel + channelCount) {
              activation.apply(
                output + channel * positions + start, count: count, kernels: kernels)
            }
          }
        }
      }
    }
    return true
  }

  /// The set's depthwise kernel over runs of consecutive planes; a clamp-like activation is
  /// fused into its stores, any other runs afterwards on each run's output.
  private func runDepthwise(
    input: UnsafePointer<Float>, batch: Int, height: Int, width: Int,
    output: UnsafeMutablePointer<Float>, outputHeight: Int, outputWidth: Int, threads: Int
  ) {
    let native = kernels.native
    let activation = self.activation
    let bounds = activation.clampBounds
    let taps = window.kernelHeight * window.kernelWidth
    let channels = outputChannels
    var cWindow = window.native
    let planes = batch * channels
    // A few runs of consecutive planes per thread: each run shares one padded scratch.
    let runLength = threads > 1 ? max(1, (planes + 4 * threads - 1) / (4 * threads)) : planes
    weights.withUnsafeBufferPointer { weightBuffer in
      bias.withUnsafeBufferPointer { biasBuffer in
        withUnsafePointer(to: &cWindow) { nativeWindow in
          // Safety: weights hold channels * taps floats and bias one float per channel; a run
          // never crosses an image, so its weights and biases are consecutive; runs read and
          // write disjoint planes.
          guard let weightBase = weightBuffer.baseAddress, let biasBase = biasBuffer.baseAddress
          else { return }
          let runsPerImage = (channels + runLength - 1) / runLength
          Parallel.forEach(batch * runsPerImage, threads: threads) { item in
            let image = item / runsPerImage
            let channel = (item % runsPerImage) * runLength
            let count = min(runLength, channels - channel)
            let plane = image * channels + channel
            let target = output + plane * outputHeight * outputWidth
            native.depthwise(
              input + plane * height * width, Int64(count), Int64(height), Int64(width),
              weightBase + channel * taps, biasBase + channel, nativeWindow, target,
              Int64(outputHeight), Int64(outputWidth), bounds?.low ?? -.infinity,
              bounds?.high ?? .infinity)
            if bounds == nil {
              activation.apply(
                target, count: count * outputHeight * outputWidth, kernels: kernels)
            }
          }
        }
      }
    }
  }
}
