import CNative

/// A 2-D convolution over the blocked channel layout (NCHWxc), on a vector kernel set.
///
/// An image of `C` channels is `ceil(C / lanes)` blocks, each a plane of vectors with one lane
/// per channel (``BlockedLayout``; 16 lanes for AVX-512, 8 for AVX2 and NEON). In this layout a depthwise convolution and a pointwise
/// one use every vector lane whatever the plane's size or stride, and consecutive layers need
/// no transposes. Five shapes of convolution run here; ``init(weights:bias:outputChannels:inputChannels:groups:window:activation:kernels:)``
/// returns `nil` for any other. A clamp (ReLU, ReLU6) is fused into the kernels' stores; any
/// other activation (SiLU, hard-swish, sigmoid) runs on each work item's output while it is in
/// cache:
/// - pointwise: 1x1, one group, no padding, blocked input (a strided one picks its positions
///   first);
/// - depthwise: one channel per group, blocked input;
/// - grouped: as many input as output channels, in groups whose width divides the lanes or is
///   a multiple of them (RegNet's and ResNeXt's grouped 3x3), blocked input;
/// - direct: one group over at most ``directInputChannels`` NCHW input channels (a stem);
/// - winograd: 3x3, stride 1, no dilation, one group, blocked input, as Winograd's F(4x4, 3x3)
///   (`BlockedConvolution+Winograd.swift`).
struct BlockedConvolution: Sendable {
  /// Which kernel a convolution runs.
  enum Kind: Sendable, Equatable {
    case pointwise
    case depthwise
    case grouped
    case direct
    case winograd
  }

  /// The most input channels the direct kernel takes: it broadcasts every input value, which
  /// only pays when there are few of them.
  static let directInputChannels = 4

  let kind: Kind
  /// The layout, and the kernel set, the weights are packed for.
  let layout: BlockedLayout
  let window: Window
  let inputChannels: Int
  let outputChannels: Int
  /// Grouped: the input blocks each output block reads (its groups' channels).
  let span: Int
  let bounds: (low: Float, high: Float)
  /// The activation applied after the kernels' stores: one that is not a clamp, or identity.
  let activation: Activation
  /// Pointwise: `[output block][input channel, padded][lanes]`; depthwise:
  /// `[block][tap][lanes]`; grouped: `[output block][input block of its span][tap][input
  /// lane][lanes]`, zero outside each output channel's group; direct: `[output block][input channel][ky][kx][lanes]`; winograd:
  /// 36 pointwise weight sets, one per point of the 6x6 transformed tile.
  let weights: [Float]
  /// One value per output channel, zero-padded to whole blocks.
  let bias: [Float]

  /// Packs a convolution for the blocked kernels, or returns `nil` when it has no blocked form.
  init?(
    weights raw: [Float], bias: [Float]?, outputChannels: Int, inputChannels: Int, groups: Int,
    window: Window, activation: Activation, kernels: KernelSet = .active
  ) {
    guard groups > 0, inputChannels > 0, outputChannels > 0 else { return nil }
    let layout = BlockedLayout(kernels: kernels)
    let taps = window.kernelHeight * window.kernelWidth
    let kind: Kind
    let groupWidth = inputChannels / groups
    if groups == inputChannels && groups == outputChannels {
      kind = .depthwise
    } else if groups > 1 && inputChannels == outputChannels
      && (layout.lanes % groupWidth == 0 || groupWidth % layout.lanes == 0)
    {
      kind = .grouped
    } else if groups == 1 && taps == 1 {
      kind = .pointwise
    } else if groups == 1 && inputChannels <= BlockedConvolution.directInputChannels {
      kind = .direct
    } else if groups == 1 && Self.isWinogradWindow(window) {
      kind = .winograd
    } else {
      return nil
    }
    guard raw.count == outputChannels * inputChannels / groups * taps else { return nil }
    self.kind = kind
    self.layout = layout
    self.window = window
    self.inputChannels = inputChannels
    self.outputChannels = outputChannels
    self.span = kind == .grouped ? max(1, groupWidth / layout.lanes) : 1
    self.bounds = activation.clampBounds ?? (-.infinity, .infinity)
    self.activation = activation.clampBounds == nil ? activation : .identity
    let lanes = layout.lanes
    let blocks = layout.blocks(outputChannels)
    var padded = [Float](repeating: 0, count: blocks * lanes)
    if let bias { padded.replaceSubrange(0..<outputChannels, with: bias) }
    self.bias = padded
    let steps: Int
    switch kind {
    case .pointwise: steps = layout.paddedChannels(inputChannels)
    case .depthwise: steps = taps
    case .direct: steps = inputChannels * taps
    case .winograd:
      weights = Self.winogradWeights(
        raw, outputChannels: outputChannels, inputChannels: inputChannels, layout: layout)
      return
    case .grouped:
      weights = Self.groupedWeights(
        raw, channels: outputChannels, groupWidth: groupWidth, taps: taps, span: span,
        layout: layout)
      return
    }
    // Every layout keeps an output channel's weights in one lane of consecutive vectors.
    let depth = inputChannels / groups * taps
    var packed = [Float](repeating: 0, count: blocks * steps * lanes)
    for channel in 0..<outputChannels {
      let base = (channel / lanes) * steps * lanes + channel % lanes
      for step in 0..<depth {
        packed[base + step * lanes] = raw[channel * depth + step]
      }
    }
    weights = packed
  }

  /// The same weights with the window resolved for an input, or `nil` when the kernel cannot
  /// run it (a pointwise kernel with padding).
  func with(window newWindow: Window) -> BlockedConvolution? {
    guard newWindow.kernelHeight == window.kernelHeight,
      newWindow.kernelWidth == window.kernelWidth
    else { return nil }
    if kind == .pointwise
      && newWindow
        != Window(
          kernelHeight: 1, kernelWidth: 1, strideY: newWindow.strideY, strideX: newWindow.strideX)
    {
      return nil
    }
    if kind == .winograd && !Self.isWinogradWindow(newWindow) { return nil }
    return BlockedConvolution(copying: self, window: newWindow, bounds: bounds)
  }

  /// The same convolution clamping its output (after any residual) to `bounds`, as a ReLU or
  /// Clip that follows it does.
  func with(bounds newBounds: (low: Float, high: Float)) -> BlockedConvolution {
    BlockedConvolution(copying: self, window: window, bounds: newBounds)
  }

  private init(
    copying other: BlockedConvolution, window: Window, bounds: (low: Float, high: Float)
  ) {
    kind = other.kind
    layout = other.layout
    self.window = window
    inputChannels = other.inputChannels
    outputChannels = other.outputChannels
    span = other.span
    self.bounds = bounds
    activation = other.activation
    weights = other.weights
    bias = other.bias
  }

  /// Runs on `batch` images of `height × width`: blocked input (NCHW for ``Kind/direct``),
  /// blocked output.
  ///
  /// - Precondition: the window fits the input, and `output` holds `batch` blocked images of
  ///   the output size; `residual`, if given, is laid out like `output` (pointwise and
  ///   winograd only).
  func run(
    input: UnsafePointer<Float>, batch: Int, height: Int, width: Int,
    residual: UnsafePointer<Float>? = nil, output: UnsafeMutablePointer<Float>, threads: Int
  ) {
    guard let size = window.outputSize(height: height, width: width) else {
      preconditionFailure("convolution window larger than its padded input")
    }
    if kind == .pointwise && (window.strideY > 1 || window.strideX > 1) {
      runStrided(
        input: input, batch: batch, height: height, width: width, size: size,
        residual: residual, output: output, threads: threads)
      return
    }
    let inputImage =
      kind == .direct
      ? inputChannels * height * width
      : layout.imageSize(channels: inputChannels, positions: height * width)
    let outputImage = layout.imageSize(
      channels: outputChannels, positions: size.height * size.width)
    weights.withUnsafeBufferPointer { weightBuffer in
      bias.withUnsafeBufferPointer { biasBuffer in
        // Safety: the packed weights and padded bias match this convolution's shape, and each
        // image's input and output spans follow from the preconditions.
        guard let weightBase = weightBuffer.baseAddress, let biasBase = biasBuffer.baseAddress
        else { return }
        for image in 0..<batch {
          let source = input + image * inputImage
          let target = output + image * outputImage
          switch kind {
          case .pointwise:
            runPointwise(
              input: source, positions: height * width,
              residual: residual.map { $0 + image * outputImage }, output: target,
              weights: weightBase, bias: biasBase, threads: threads)
          case .depthwise:
            runDepthwise(
              input: source, height: height, width: width, output: target, size: size,
              weights: weightBase, bias: biasBase, threads: threads)
          case .grouped:
            runGrouped(
              input: source, height: height, width: width, output: target, size: size,
              weights: weightBase, bias: biasBase, threads: threads)
          case .winograd:
            runWinograd(
              input: source, height: height, width: width,
              residual: residual.map { $0 + image * outputImage }, output: target, size: size,
              weights: weightBase, bias: biasBase, threads: threads)
          case .direct:
            runDirect(
              input: source, height: height, width: width, output: target, size: size,
              weights: weightBase, bias: biasBase, threads: threads)
          }
        }
      }
    }
  }

  /// A strided pointwise convolution: the positions it reads (a 1x1 max pool with its strides
  /// picks them) into memory allocated for the call, then the unit-stride kernel over them.
  private func runStrided(
    input: UnsafePointer<Float>, batch: Int, height: Int, width: Int,
    size: (height: Int, width: Int), residual: UnsafePointer<Float>?,
    output: UnsafeMutablePointer<Float>, threads: Int
  ) {
    let picked = UnsafeMutablePointer<Float>.allocate(
      capacity: batch
        * layout.imageSize(channels: inputChannels, positions: size.height * size.width))
    defer { picked.deallocate() }
    let pick = Window(
      kernelHeight: 1, kernelWidth: 1, strideY: window.strideY, strideX: window.strideX)
    layout.maxPool(
      input, batch: batch, channels: inputChannels, height: height, width: width, window: pick,
      size: size, into: picked, threads: threads)
    BlockedConvolution(
      copying: self, window: Window(kernelHeight: 1, kernelWidth: 1), bounds: bounds
    ).run(
      input: picked, batch: batch, height: size.height, width: size.width, residual: residual,
      output: output, threads: threads)
  }

  /// Runs the blocked pointwise kernel over one image of `positions` positions, clamping to
  /// `bounds` (the convolution's own by default).
  func runPointwise(
    input: UnsafePointer<Float>, positions: Int, residual: UnsafePointer<Float>?,
    output: UnsafeMutablePointer<Float>, weights: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, bounds: (low: Float, high: Float)? = nil, threads: Int
  ) {
    let native = layout.native
    let blocks = layout.blocks(outputChannels)
    let inputFloats = layout.paddedChannels(inputChannels)
    // The set's tiling for planes of a multiple of 7 positions (every plane of a 224-input
    // EfficientNet or MobileNet: no partial tile) or for others; chunks of positions whose
    // inputs stay in cache.
    var tiling = positions % 7 == 0 ? native.pointwiseTilingSevens : native.pointwiseTilingOther
    let (blockTile, positionTile) = (Int(tiling.blocks), Int(tiling.positions))
    tiling.chunk = Int64(max(positionTile, Int(tiling.chunk) / inputFloats))
    // Work items: ranges of whole position tiles times ranges of whole block groups, at least
    // four per thread so that a late or busy thread costs little.
    let wanted = threads > 1 ? 4 * threads : 1
    let groups = (blocks + blockTile - 1) / blockTile
    let groupsPerPiece = (groups + min(groups, wanted) - 1) / min(groups, wanted)
    let blocksPerPiece = groupsPerPiece * blockTile
    let blockPieces = (groups + groupsPerPiece - 1) / groupsPerPiece
    let tiles = (positions + positionTile - 1) / positionTile
    var positionPieces = min(tiles, (wanted + blockPieces - 1) / blockPieces)
    let positionsPerPiece =
      ((positions + positionPieces - 1) / positionPieces + positionTile - 1) / positionTile
      * positionTile
    positionPieces = (positions + positionsPerPiece - 1) / positionsPerPiece
    let channels = (Int64(inputChannels), Int64(outputChannels))
    let activation = bounds == nil ? self.activation : .identity
    let bounds = bounds ?? self.bounds
    withUnsafePointer(to: &tiling) { tiling in
      Parallel.forEach(blockPieces * positionPieces, threads: threads) { item in
        let firstBlock = (item % blockPieces) * blocksPerPiece
        let start = (item / blockPieces) * positionsPerPiece
        let (blockCount, count) = (
          min(blocksPerPiece, blocks - firstBlock), min(positionsPerPiece, positions - start)
        )
        native.pointwiseBlocked(
          input, channels.0, Int64(positions), weights, bias, channels.1, Int64(firstBlock),
          Int64(blockCount), Int64(start), Int64(count), residual, bounds.low, bounds.high,
          output, tiling)
        for block in firstBlock..<(firstBlock + blockCount) {
          apply(
            activation, to: output + (block * positions + start) * layout.lanes, block: block,
            count: count)
        }
      }
    }
  }

  private func runDepthwise(
    input: UnsafePointer<Float>, height: Int, width: Int, output: UnsafeMutablePointer<Float>,
    size: (height: Int, width: Int), weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    threads: Int
  ) {
    let native = layout.native
    let lanes = layout.lanes
    let taps = window.kernelHeight * window.kernelWidth
    let channels = Int64(outputChannels)
    forEachBlockRows(output: output, size: size, threads: threads) {
      window, block, firstRow, rows in
      native.depthwiseBlocked(
        input + block * height * width * lanes, Int64(height), Int64(width),
        weights + block * taps * lanes, bias + block * lanes, Int64(block), channels, window,
        output + block * size.height * size.width * lanes, Int64(size.height),
        Int64(size.width), Int64(firstRow), Int64(rows), bounds.low, bounds.high)
    }
  }

  private func runGrouped(
    input: UnsafePointer<Float>, height: Int, width: Int, output: UnsafeMutablePointer<Float>,
    size: (height: Int, width: Int), weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    threads: Int
  ) {
    let native = layout.native
    let lanes = layout.lanes
    let blockWeights = span * window.kernelHeight * window.kernelWidth * lanes * lanes
    let (channels, span) = (Int64(outputChannels), self.span)
    forEachBlockRows(output: output, size: size, threads: threads) {
      window, block, firstRow, rows in
      native.groupedBlocked(
        input + block / span * span * height * width * lanes, Int64(height), Int64(width),
        Int64(span), weights + block * blockWeights, bias + block * lanes, Int64(block),
        channels, window, output + block * size.height * size.width * lanes,
        Int64(size.height), Int64(size.width), Int64(firstRow), Int64(rows), bounds.low,
        bounds.high)
    }
  }

  /// Runs `body(window, block, firstRow, rows)` for every output block and piece of its rows,
  /// as parallel work items, then applies the activation to the rows each item wrote.
  private func forEachBlockRows(
    output: UnsafeMutablePointer<Float>, size: (height: Int, width: Int), threads: Int,
    _ body: (_ window: UnsafePointer<cnk_window>, _ block: Int, _ firstRow: Int, _ rows: Int) ->
      Void
  ) {
    let blocks = layout.blocks(outputChannels)
    let (rowsPerPiece, pieces) = Parallel.pieces(of: size.height, groups: blocks, threads: threads)
    var cWindow = window.native
    withUnsafePointer(to: &cWindow) { window in
      Parallel.forEach(blocks * pieces, threads: threads) { item in
        let block = item / pieces
        let firstRow = (item % pieces) * rowsPerPiece
        let rows = min(rowsPerPiece, size.height - firstRow)
        body(window, block, firstRow, rows)
        apply(
          activation, to: output + (block * size.height + firstRow) * size.width * layout.lanes,
          block: block, count: rows * size.width)
      }
    }
  }

  /// Packs grouped weights (`[channel][input of its group][tap]`) as each output block's
  /// `[input block of its span][tap][input lane][lanes]`, zero outside a channel's group.
  private static func groupedWeights(
    _ raw: [Float], channels: Int, groupWidth: Int, taps: Int, span: Int, layout: BlockedLayout
  ) -> [Float] {
    let lanes = layout.lanes
    let perBlock = span * taps * lanes * lanes
    var packed = [Float](repeating: 0, count: layout.blocks(channels) * perBlock)
    for channel in 0..<channels {
      let block = channel / lanes
      let firstInput = block / span * span * lanes
      let groupStart = channel / groupWidth * groupWidth
      for input in groupStart..<(groupStart + groupWidth) {
        let (spanBlock, lane) = ((input - firstInput) / lanes, (input - firstInput) % lanes)
        for tap in 0..<taps {
          packed[
            block * perBlock + ((spanBlock * taps + tap) * lanes + lane) * lanes + channel % lanes
          ] = raw[(channel * groupWidth + input - groupStart) * taps + tap]
        }
      }
    }
    return packed
  }

  private func runDirect(
    input: UnsafePointer<Float>, height: Int, width: Int, output: UnsafeMutablePointer<Float>,
    size: (height: Int, width: Int), weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    threads: Int
  ) {
    let native = layout.native
    let blocks = layout.blocks(outputChannels)
    let (rowsPerPiece, pieces) = Parallel.pieces(of: size.height, threads: threads)
    var cWindow = window.native
    let channels = (Int64(inputChannels), Int64(outputChannels))
    let (bounds, activation) = (self.bounds, self.activation)
    withUnsafePointer(to: &cWindow) { window in
      Parallel.forEach(pieces, threads: threads) { piece in
        let firstRow = piece * rowsPerPiece
        native.convDirectBlocked(
          input, channels.0, Int64(height), Int64(width), weights, bias, channels.1, window,
          output, Int64(size.height), Int64(size.width), 0, Int64(blocks), Int64(firstRow),
          Int64(min(rowsPerPiece, size.height - firstRow)), bounds.low, bounds.high)
        for block in 0..<blocks {
          apply(
            activation, to: output + (block * size.height + firstRow) * size.width * layout.lanes,
            block: block,
            count: min(rowsPerPiece, size.height - firstRow) * size.width)
        }
      }
    }
  }

  /// Applies `activation` to `count` positions of output block `block` starting at `values`,
  /// keeping the block's padding channels zero.
  func apply(
    _ activation: Activation, to values: UnsafeMutablePointer<Float>, block: Int, count: Int
  ) {
    guard activation != .identity, count > 0 else { return }
    var function = activation.native
    let lanes = layout.lanes
    let valid = activation.keepsZero ? lanes : min(lanes, outputChannels - block * lanes)
    if valid == lanes {
      layout.native.activate(&function, values, values, Int64(count * lanes))
    } else {
      layout.native.activateBlocked(&function, values, Int64(count), Int64(valid))
    }
  }
}
