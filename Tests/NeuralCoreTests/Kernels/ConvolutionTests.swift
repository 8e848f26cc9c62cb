import TestSupport
import Testing

@testable import NeuralCore

@Suite struct ConvolutionTests {
  static let activations: [Activation] = [
    .identity, .relu, .clip(min: 0, max: 6), .sigmoid, .hardSwish, .silu,
  ]

  /// Runs the fast convolution on arrays.
  static func fast(
    _ convolution: Convolution, input: [Float], batch: Int, height: Int, width: Int,
    threads: Int
  ) -> [Float] {
    guard let size = convolution.window.outputSize(height: height, width: width) else { return [] }
    var output = [Float](
      repeating: .nan, count: batch * convolution.outputChannels * size.height * size.width)
    input.withUnsafeBufferPointer { source in
      output.withUnsafeMutableBufferPointer { target in
        // Safety: both buffers have exactly the sizes the convolution reads and writes.
        guard let from = source.baseAddress, let to = target.baseAddress else { return }
        convolution.run(
          input: from, batch: batch, height: height, width: width, output: to, threads: threads)
      }
    }
    return output
  }

  @Test(arguments: KernelSet.available)
  func randomizedShapesMatchTheReference(kernels: KernelSet) {
    var generator = SeededGenerator(seed: 7)
    for trial in 0..<120 {
      let groups = [1, 1, 2, 3][trial % 4]
      let isDepthwise = trial % 5 == 0
      let groupInputs = isDepthwise ? 1 : Int.random(in: 1...5, using: &generator)
      let inputChannels =
        isDepthwise ? Int.random(in: 1...9, using: &generator) : groupInputs * groups
      let effectiveGroups = isDepthwise ? inputChannels : groups
      let outputChannels =
        isDepthwise ? inputChannels : effectiveGroups * Int.random(in: 1...6, using: &generator)
      let kernel = (
        Int.random(in: 1...5, using: &generator), Int.random(in: 1...5, using: &generator)
      )
      let window = Window(
        kernelHeight: kernel.0, kernelWidth: kernel.1,
        strideY: Int.random(in: 1...3, using: &generator),
        strideX: Int.random(in: 1...3, using: &generator),
        dilationY: Int.random(in: 1...2, using: &generator),
        dilationX: Int.random(in: 1...2, using: &generator),
        padTop: Int.random(in: 0...2, using: &generator),
        padLeft: Int.random(in: 0...2, using: &generator),
        padBottom: Int.random(in: 0...2, using: &generator),
        padRight: Int.random(in: 0...2, using: &generator))
      let height = window.effectiveHeight + Int.random(in: 0...12, using: &generator)
      let width = window.effectiveWidth + Int.random(in: 0...17, using: &generator)
      let batch = Int.random(in: 1...2, using: &generator)
      let weights = generator.floats(
        outputChannels * inputChannels / effectiveGroups * kernel.0 * kernel.1)
      let bias = trial % 3 == 0 ? nil : generator.floats(outputChannels)
      let input = generator.floats(batch * inputChannels * height * width)
      let activation = Self.activations[trial % Self.activations.count]
      let convolution = Convolution(
        weights: weights, bias: bias, outputChannels: outputChannels,
        inputChannels: inputChannels, groups: effectiveGroups, window: window,
        activation: activation, kernels: kernels)
      let expected = Convolution.reference(
        input: input, batch: batch, inputChannels: inputChannels, height: height, width: width,
        weights: weights, bias: bias, outputChannels: outputChannels, groups: effectiveGroups,
        window: window, activation: activation)
      let actual = Self.fast(
        convolution, input: input, batch: batch, height: height, width: width,
        threads: trial % 2 + 1)
      let mismatch = relativeMismatch(actual, expected)
      #expect(
        mismatch == nil, "trial \(trial) \(window) groups \(effectiveGroups): \(mismatch ?? "")")
    }
  }

  @Test(arguments: KernelSet.available)
  func pointwiseAndDepthwiseNetworkShapesMatchTheReference(kernels: KernelSet) {
    var generator = SeededGenerator(seed: 11)
    // EfficientNet-like layers: 1x1 expansions/projections and 3x3/5x5 depthwise, stride 1 and 2.
    let cases: [(channels: Int, outputs: Int, kernel: Int, stride: Int, groups: Int, size: Int)] = [
      (16, 96, 1, 1, 1, 14), (96, 24, 1, 1, 1, 7), (96, 40, 1, 1, 1, 14), (24, 24, 3, 2, 24, 15),
      (40, 40, 5, 1, 40, 9),
      (3, 32, 3, 2, 1, 17),
      // Planes wide enough for the vector kernels' unmasked interior chunks.
      (4, 4, 3, 1, 4, 45), (4, 4, 5, 1, 4, 38), (4, 4, 3, 2, 4, 70), (4, 4, 5, 2, 4, 57),
      // Full convolutions wide enough for whole-row im2col loads (the stem's 3x3 stride 2).
      (3, 16, 3, 2, 1, 70), (4, 8, 3, 1, 1, 40),
    ]
    for item in cases {
      let pad = item.kernel / 2
      let window = Window(
        kernelHeight: item.kernel, kernelWidth: item.kernel, strideY: item.stride,
        strideX: item.stride, padTop: pad, padLeft: pad, padBottom: pad + item.stride - 1,
        padRight: pad + item.stride - 1)
      let weights = generator.floats(
        item.outputs * item.channels / item.groups * item.kernel * item.kernel)
      let bias = generator.floats(item.outputs)
      let input = generator.floats(2 * item.channels * item.size * item.size)
      let convolution = Convolution(
        weights: weights, bias: bias, outputChannels: item.outputs, inputChannels: item.channels,
        groups: item.groups, window: window, activation: .clip(min: 0, max: 6), kernels: kernels)
      let expected = Convolution.reference(
        input: input, batch: 2, inputChannels: item.channels, height: item.size,
        width: item.size, weights: weights, bias: bias, outputChannels: item.outputs,
        groups: item.groups, window: window, activation: .clip(min: 0, max: 6))
      let actual = Self.fast(
        convolution, input: input, batch: 2, height: item.size, width: item.size, threads: 2)
      #expect(relativeMismatch(actual, expected) == nil, "\(item)")
    }
  }

  @Test func samePaddingPutsTheExtraElementAtTheEnd() {
    let upper = Window.samePadding(input: 224, kernel: 3, stride: 2, dilation: 1, upper: true)
    #expect(upper.begin == 0 && upper.end == 1)
    let lower = Window.samePadding(input: 224, kernel: 3, stride: 2, dilation: 1, upper: false)
    #expect(lower.begin == 1 && lower.end == 0)
    let odd = Window.samePadding(input: 15, kernel: 5, stride: 2, dilation: 1, upper: true)
    #expect(odd.begin == 2 && odd.end == 2)
  }
}
