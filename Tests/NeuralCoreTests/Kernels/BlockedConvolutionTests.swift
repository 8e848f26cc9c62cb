import TestSupport
import Testing

@testable import NeuralCore

/// The blocked kernels of every set this CPU runs (portable, AVX-512, AVX2 or NEON), each
/// against the scalar reference convolution (max pooling: against the NCHW pooling).
struct BlockedConvolutionTests {
  /// NCHW arrays to blocked layout and back.
  static func blocked(
    _ values: [Float], _ layout: BlockedLayout, batch: Int, channels: Int, positions: Int
  ) -> [Float] {
    reordered(
      values, .block, layout, batch: batch, channels: channels, positions: positions, threads: 2)
  }

  static func unblocked(
    _ values: [Float], _ layout: BlockedLayout, batch: Int, channels: Int, positions: Int
  ) -> [Float] {
    reordered(
      values, .unblock, layout, batch: batch, channels: channels, positions: positions,
      threads: 1)
  }

  static func reordered(
    _ values: [Float], _ direction: BlockedLayout.Direction, _ layout: BlockedLayout, batch: Int,
    channels: Int, positions: Int, threads: Int
  ) -> [Float] {
    let count =
      direction == .block
      ? batch * layout.imageSize(channels: channels, positions: positions)
      : batch * channels * positions
    var output = [Float](repeating: .nan, count: count)
    values.withUnsafeBufferPointer { source in
      output.withUnsafeMutableBufferPointer { target in
        // Safety: both buffers have the sizes the copy reads and writes.
        guard let from = source.baseAddress, let to = target.baseAddress else { return }
        layout.reorder(
          from, direction: direction, batch: batch, channels: channels, positions: positions,
          into: to, threads: threads)
      }
    }
    return output
  }

  /// Runs a blocked convolution on NCHW arrays, checking the padding lanes stay zero.
  static func run(
    _ convolution: BlockedConvolution, input: [Float], batch: Int, height: Int, width: Int,
    residual: [Float]? = nil, threads: Int
  ) -> [Float] {
    guard let size = convolution.window.outputSize(height: height, width: width) else { return [] }
    let layout = convolution.layout
    let positions = size.height * size.width
    let source =
      convolution.kind == .direct
      ? input
      : blocked(
        input, layout, batch: batch, channels: convolution.inputChannels,
        positions: height * width)
    let addend = residual.map {
      blocked($0, layout, batch: batch, channels: convolution.outputChannels, positions: positions)
    }
    var output = [Float](
      repeating: .nan,
      count: batch * layout.imageSize(channels: convolution.outputChannels, positions: positions))
    source.withUnsafeBufferPointer { from in
      output.withUnsafeMutableBufferPointer { to in
        // Safety: the buffers have the sizes the convolution reads and writes.
        guard let input = from.baseAddress, let target = to.baseAddress else { return }
        if let addend {
          addend.withUnsafeBufferPointer { residual in
            convolution.run(
              input: input, batch: batch, height: height, width: width,
              residual: residual.baseAddress, output: target, threads: threads)
          }
        } else {
          convolution.run(
            input: input, batch: batch, height: height, width: width, output: target,
            threads: threads)
        }
      }
    }
    let lanes = layout.lanes
    for (index, value) in output.enumerated() {
      let channel =
        (index / (positions * lanes)) % layout.blocks(convolution.outputChannels) * lanes
        + index % lanes
      if channel >= convolution.outputChannels && value != 0 {
        Issue.record("padding lane \(index) holds \(value)")
        break
      }
    }
    return unblocked(
      output, layout, batch: batch, channels: convolution.outputChannels, positions: positions)
  }

  @Test(arguments: KernelSet.available)
  func layoutRoundTripsAndZeroesPaddingLanes(kernels: KernelSet) throws {
    let layout = BlockedLayout(kernels: kernels)
    #expect(layout.lanes == [.portable: 4, .avx512: 16][kernels, default: 8])
    var generator = SeededGenerator(seed: 3)
    for channels in [1, 5, 8, 9, 16, 17, 40] {
      let values = generator.floats(2 * channels * 9)
      let blocked = Self.blocked(values, layout, batch: 2, channels: channels, positions: 9)
      let blocks = (channels + layout.lanes - 1) / layout.lanes
      #expect(blocked.count == 2 * blocks * layout.lanes * 9)
      // Position 0's lane 1 is channel 1 at position 0; position 1's lane 0 is channel 0.
      #expect(blocked[1] == (channels > 1 ? values[9] : 0))
      #expect(blocked[layout.lanes] == values[1])
      #expect(Self.unblocked(blocked, layout, batch: 2, channels: channels, positions: 9) == values)
    }
  }

  @Test(arguments: KernelSet.available)
  func randomizedShapesMatchTheReference(kernels: KernelSet) throws {
    var generator = SeededGenerator(seed: 19)
    let activations: [Activation] = [.identity, .relu, .clip(min: 0, max: 6)]
    var ran: [BlockedConvolution.Kind: Int] = [:]
    for trial in 0..<150 {
      let kind = [BlockedConvolution.Kind.pointwise, .depthwise, .direct][trial % 3]
      let channels =
        kind == .direct
        ? Int.random(in: 1...4, using: &generator) : Int.random(in: 1...40, using: &generator)
      let outputs =
        kind == .depthwise ? channels : Int.random(in: 1...50, using: &generator)
      let groups = kind == .depthwise ? channels : 1
      let kernel =
        kind == .pointwise ? 1 : [2, 3, 3, 5, 5, 7, kind == .depthwise ? 1 : 4][trial % 7]
      let stride = kind == .pointwise ? 1 : Int.random(in: 1...3, using: &generator)
      let dilation = kind == .pointwise ? 1 : [1, 1, 1, 2][trial % 4]
      let pad = { kind == .pointwise ? 0 : Int.random(in: 0...2, using: &generator) }
      let window = Window(
        kernelHeight: kernel, kernelWidth: kernel, strideY: stride, strideX: stride,
        dilationY: dilation, dilationX: dilation, padTop: pad(), padLeft: pad(),
        padBottom: pad(), padRight: pad())
      let height = window.effectiveHeight + Int.random(in: 0...14, using: &generator)
      let width = window.effectiveWidth + Int.random(in: 0...30, using: &generator)
      let batch = Int.random(in: 1...2, using: &generator)
      let weights = generator.floats(outputs * channels / groups * kernel * kernel)
      let bias = trial % 4 == 0 ? nil : generator.floats(outputs)
      let input = generator.floats(batch * channels * height * width)
      let activation = activations[trial % activations.count]
      let convolution = try #require(
        BlockedConvolution(
          weights: weights, bias: bias, outputChannels: outputs, inputChannels: channels,
          groups: groups, window: window, activation: activation, kernels: kernels))
      #expect(convolution.kind == kind)
      let size = try #require(window.outputSize(height: height, width: width))
      let residual =
        kind == .pointwise && trial % 2 == 0
        ? generator.floats(batch * outputs * size.height * size.width) : nil
      var expected = Convolution.reference(
        input: input, batch: batch, inputChannels: channels, height: height, width: width,
        weights: weights, bias: bias, outputChannels: outputs, groups: groups, window: window,
        activation: residual == nil ? activation : .identity)
      if let residual {
        expected = zip(expected, residual).map { activation($0 + $1) }
      }
      let actual = Self.run(
        convolution, input: input, batch: batch, height: height, width: width,
        residual: residual, threads: trial % 2 + 1)
      let mismatch = relativeMismatch(actual, expected)
      #expect(mismatch == nil, "trial \(trial) \(kind) \(channels)->\(outputs) \(window)")
      ran[kind, default: 0] += 1
    }
    #expect(ran.count == 3)
  }

  @Test(arguments: KernelSet.available)
  func winogradMatchesTheReference(kernels: KernelSet) throws {
    var generator = SeededGenerator(seed: 29)
    let activations: [Activation] = [.identity, .relu, .clip(min: 0, max: 6)]
    for trial in 0..<40 {
      let channels = Int.random(in: 5...40, using: &generator)
      let outputs = Int.random(in: 1...50, using: &generator)
      let pad = { Int.random(in: 0...2, using: &generator) }
      let window = Window(
        kernelHeight: 3, kernelWidth: 3, padTop: pad(), padLeft: pad(), padBottom: pad(),
        padRight: pad())
      let height = 3 + Int.random(in: 0...17, using: &generator)
      let width = 3 + Int.random(in: 0...30, using: &generator)
      let batch = Int.random(in: 1...2, using: &generator)
      let weights = generator.floats(outputs * channels * 9)
      let bias = trial % 4 == 0 ? nil : generator.floats(outputs)
      let input = generator.floats(batch * channels * height * width)
      let activation = activations[trial % activations.count]
      let convolution = try #require(
        BlockedConvolution(
          weights: weights, bias: bias, outputChannels: outputs, inputChannels: channels,
          groups: 1, window: window, activation: activation, kernels: kernels))
      #expect(convolution.kind == .winograd)
      let size = try #require(window.outputSize(height: height, width: width))
      let residual =
        trial % 2 == 0 ? generator.floats(batch * outputs * size.height * size.width) : nil
      var expected = Convolution.reference(
        input: input, batch: batch, inputChannels: channels, height: height, width: width,
        weights: weights, bias: bias, outputChannels: outputs, groups: 1, window: window,
        activation: residual == nil ? activation : .identity)
      if let residual {
        expected = zip(expected, residual).map { activation($0 + $1) }
      }
      let actual = Self.run(
        convolution, input: input, batch: batch, height: height, width: width,
        residual: residual, threads: trial % 2 + 1)
      // F(4x4, 3x3) rounds sums of up to 360 terms in its transforms: about two bits more than
      // a direct sum, relative to the sums' size rather than to each output's.
      let mismatch = relativeMismatch(actual, expected, tolerance: 1e-4)
      #expect(
        mismatch == nil, "trial \(trial) \(channels)->\(outputs) \(height)x\(width) \(window)")
    }
  }

  @Test(arguments: KernelSet.available)
  func blockedMaxPoolMatchesTheNCHWPooling(kernels: KernelSet) throws {
    let layout = BlockedLayout(kernels: kernels)
    var generator = SeededGenerator(seed: 31)
    for trial in 0..<30 {
      let channels = Int.random(in: 1...40, using: &generator)
      let kernel = Int.random(in: 1...4, using: &generator)
      let stride = Int.random(in: 1...3, using: &generator)
      let dilation = trial % 5 == 0 ? 2 : 1
      let pad = { Int.random(in: 0...(kernel - 1), using: &generator) }
      let window = Window(
        kernelHeight: kernel, kernelWidth: kernel, strideY: stride, strideX: stride,
        dilationY: dilation, dilationX: dilation, padTop: pad(), padLeft: pad(),
        padBottom: pad(), padRight: pad())
      let height = window.effectiveHeight + Int.random(in: 0...12, using: &generator)
      let width = window.effectiveWidth + Int.random(in: 0...20, using: &generator)
      let batch = Int.random(in: 1...2, using: &generator)
      var input = generator.floats(batch * channels * height * width)
      if trial % 3 == 0 { input[input.count / 2] = .nan }
      let pooling = Pooling(kind: .max, window: window, ceilMode: trial % 2 == 0)
      let size = try #require(pooling.outputSize(height: height, width: width))
      var expected = [Float](repeating: 0, count: batch * channels * size.height * size.width)
      input.withUnsafeBufferPointer { source in
        expected.withUnsafeMutableBufferPointer { target in
          // Safety: both buffers have the sizes the pooling reads and writes.
          guard let from = source.baseAddress, let to = target.baseAddress else { return }
          pooling.run(
            input: from, planes: batch * channels, height: height, width: width, output: to,
            threads: 1)
        }
      }
      let blocked = Self.blocked(
        input, layout, batch: batch, channels: channels, positions: height * width)
      var output = [Float](
        repeating: .nan,
        count: batch * layout.imageSize(channels: channels, positions: size.height * size.width))
      blocked.withUnsafeBufferPointer { source in
        output.withUnsafeMutableBufferPointer { target in
          // Safety: both buffers have the sizes the pooling reads and writes.
          guard let from = source.baseAddress, let to = target.baseAddress else { return }
          layout.maxPool(
            from, batch: batch, channels: channels, height: height, width: width,
            window: window, size: size, into: to, threads: trial % 2 + 1)
        }
      }
      let actual = Self.unblocked(
        output, layout, batch: batch, channels: channels, positions: size.height * size.width)
      #expect(relativeMismatch(actual, expected, tolerance: 0) == nil, "trial \(trial) \(window)")
      let lanes = layout.lanes
      let padding = output.enumerated().filter { index, _ in
        (index / (size.height * size.width * lanes)) % layout.blocks(channels) * lanes
          + index % lanes >= channels
      }
      #expect(padding.allSatisfy { $0.element == 0 }, "trial \(trial): padding lanes not zero")
    }
  }

  @Test(arguments: KernelSet.available)
  func networkShapesMatchTheReference(kernels: KernelSet) throws {
    var generator = SeededGenerator(seed: 23)
    // EfficientNet-Lite0's layers, smaller planes: the stem, expansions, depthwise 3x3/5x5 at
    // strides 1 and 2 (TensorFlow SAME padding), projections with residuals, the head.
    let cases:
      [(channels: Int, outputs: Int, kernel: Int, stride: Int, depthwise: Bool, size: Int)] =
        [
          (3, 32, 3, 2, false, 45), (32, 32, 3, 1, true, 28), (32, 16, 1, 1, false, 28),
          (16, 96, 1, 1, false, 28), (96, 96, 3, 2, true, 28), (144, 144, 5, 2, true, 14),
          (240, 240, 3, 1, true, 7), (672, 672, 5, 1, true, 7), (480, 112, 1, 1, false, 14),
          (1152, 320, 1, 1, false, 7), (320, 1280, 1, 1, false, 7), (40, 240, 1, 1, false, 7),
        ]
    for item in cases {
      let same = Window.samePadding(
        input: item.size, kernel: item.kernel, stride: item.stride, dilation: 1, upper: true)
      let window = Window(
        kernelHeight: item.kernel, kernelWidth: item.kernel, strideY: item.stride,
        strideX: item.stride, padTop: same.begin, padLeft: same.begin, padBottom: same.end,
        padRight: same.end)
      let groups = item.depthwise ? item.channels : 1
      let weights = generator.floats(
        item.outputs * item.channels / groups * item.kernel * item.kernel)
      let bias = generator.floats(item.outputs)
      let input = generator.floats(item.channels * item.size * item.size)
      let convolution = try #require(
        BlockedConvolution(
          weights: weights, bias: bias, outputChannels: item.outputs,
          inputChannels: item.channels, groups: groups, window: window,
          activation: .clip(min: 0, max: 6), kernels: kernels))
      let expected = Convolution.reference(
        input: input, batch: 1, inputChannels: item.channels, height: item.size,
        width: item.size, weights: weights, bias: bias, outputChannels: item.outputs,
        groups: groups, window: window, activation: .clip(min: 0, max: 6))
      for threads in [1, 2] {
        let actual = Self.run(
          convolution, input: input, batch: 1, height: item.size, width: item.size,
          threads: threads)
        #expect(relativeMismatch(actual, expected) == nil, "\(item) threads \(threads)")
      }
    }
  }

  /// Grouped 3x3 convolutions as RegNet and ResNeXt have them (groups narrower than a block,
  /// and wider), and strided pointwise ones (their shortcut projections) with a residual.
  @Test(arguments: KernelSet.available)
  func groupedAndStridedPointwiseMatchTheReference(kernels: KernelSet) throws {
    var generator = SeededGenerator(seed: 29)
    let cases:
      [(
        channels: Int, outputs: Int, groupWidth: Int, kernel: Int, stride: Int, pad: Int,
        size: Int, kind: BlockedConvolution.Kind
      )] = [
        (48, 48, 8, 3, 2, 1, 29, .grouped), (104, 104, 8, 3, 1, 1, 14, .grouped),
        (64, 64, 32, 3, 1, 1, 9, .grouped), (24, 24, 2, 5, 2, 2, 11, .grouped),
        (40, 40, 4, 3, 1, 2, 8, .grouped), (32, 48, 32, 1, 2, 0, 29, .pointwise),
        (20, 36, 20, 1, 3, 0, 13, .pointwise),
      ]
    for (index, item) in cases.enumerated() {
      let window = Window(
        kernelHeight: item.kernel, kernelWidth: item.kernel, strideY: item.stride,
        strideX: item.stride, dilationY: index == 4 ? 2 : 1, dilationX: index == 4 ? 2 : 1,
        padTop: item.pad, padLeft: item.pad, padBottom: item.pad, padRight: item.pad)
      let groups = item.channels / item.groupWidth
      let weights = generator.floats(item.outputs * item.groupWidth * item.kernel * item.kernel)
      let bias = generator.floats(item.outputs)
      let input = generator.floats(2 * item.channels * item.size * item.size)
      let activation: Activation = index % 2 == 0 ? .relu : .silu
      let convolution = try #require(
        BlockedConvolution(
          weights: weights, bias: bias, outputChannels: item.outputs,
          inputChannels: item.channels, groups: groups,
          window: Window(kernelHeight: item.kernel, kernelWidth: item.kernel),
          activation: activation, kernels: kernels
        )?.with(window: window))
      #expect(convolution.kind == item.kind)
      let size = try #require(window.outputSize(height: item.size, width: item.size))
      let residual =
        item.kind == .pointwise
        ? generator.floats(2 * item.outputs * size.height * size.width) : nil
      var expected = Convolution.reference(
        input: input, batch: 2, inputChannels: item.channels, height: item.size,
        width: item.size, weights: weights, bias: bias, outputChannels: item.outputs,
        groups: groups, window: window, activation: residual == nil ? activation : .identity)
      if let residual {
        expected = zip(expected, residual).map { activation($0 + $1) }
      }
      for threads in [1, 2] {
        let actual = Self.run(
          convolution, input: input, batch: 2, height: item.size, width: item.size,
          residual: residual, threads: threads)
        #expect(relativeMismatch(actual, expected) == nil, "\(item) threads \(threads)")
      }
    }
  }

  @Test(arguments: KernelSet.available)
  func unsupportedConvolutionsHaveNoBlockedForm(kernels: KernelSet) {
    let window = Window(kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2)
    let grouped = BlockedConvolution(
      weights: [Float](repeating: 1, count: 8 * 2 * 9), bias: nil, outputChannels: 8,
      inputChannels: 4, groups: 2, window: window, activation: .relu, kernels: kernels)
    #expect(grouped == nil)
    let wide = BlockedConvolution(
      weights: [Float](repeating: 1, count: 8 * 8 * 9), bias: nil, outputChannels: 8,
      inputChannels: 8, groups: 1, window: window, activation: .relu, kernels: kernels)
    #expect(wide == nil)
  }

  /// Activations that are not a clamp run after each kind's stores; with 21 output channels the
  /// last block has padding lanes, which sigmoid and hard-sigmoid (nonzero at zero) must leave
  /// zero (``run(_:input:batch:height:width:residual:threads:)`` checks).
  @Test(arguments: KernelSet.available)
  func otherActivationsMatchTheReference(kernels: KernelSet) throws {
    var generator = SeededGenerator(seed: 29)
    let activations: [Activation] = [
      .sigmoid, .silu, .hardSwish, .hardSigmoid(alpha: 0.2, beta: 0.5),
    ]
    // pointwise, depthwise, direct (3 input channels), winograd (3x3, stride 1)
    let shapes: [(channels: Int, outputs: Int, kernel: Int, groups: Int)] = [
      (13, 21, 1, 1), (21, 21, 3, 21), (3, 21, 3, 1), (13, 21, 3, 1),
    ]
    for activation in activations {
      for shape in shapes {
        let pad = shape.kernel / 2
        let window = Window(
          kernelHeight: shape.kernel, kernelWidth: shape.kernel, padTop: pad, padLeft: pad,
          padBottom: pad, padRight: pad)
        let size = 19
        let weights = generator.floats(
          shape.outputs * shape.channels / shape.groups * shape.kernel * shape.kernel)
        let bias = generator.floats(shape.outputs)
        let input = generator.floats(shape.channels * size * size)
        let convolution = try #require(
          BlockedConvolution(
            weights: weights, bias: bias, outputChannels: shape.outputs,
            inputChannels: shape.channels, groups: shape.groups, window: window,
            activation: activation, kernels: kernels))
        let expected = Convolution.reference(
          input: input, batch: 1, inputChannels: shape.channels, height: size, width: size,
          weights: weights, bias: bias, outputChannels: shape.outputs, groups: shape.groups,
          window: window, activation: activation)
        for threads in [1, 2] {
          let actual = Self.run(
            convolution, input: input, batch: 1, height: size, width: size, threads: threads)
          // Winograd's transforms round more than a direct sum (as in the Winograd test).
          let tolerance: Float = convolution.kind == .winograd ? 1e-4 : 1e-5
          #expect(
            relativeMismatch(actual, expected, tolerance: tolerance) == nil,
            "\(activation) \(convolution.kind) threads \(threads)")
        }
      }
    }
  }
}
