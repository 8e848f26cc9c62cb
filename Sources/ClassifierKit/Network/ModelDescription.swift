public import ImagePipeline

/// What a classification network expects and produces: its input preparation, labels and the
/// names of its input and output.
///
/// A network-backed classifier owns one, so callers pass only a photo.
public struct ModelDescription: Sendable, Hashable {
  /// A short name for reports, such as `efficientnet-lite0`.
  public var name: String
  /// The input size, crop and scale, normalization and channel order.
  public var input: ModelInputSpec
  /// The labels in class-index order; their count must equal the network's output count.
  public var labels: [String]
  /// The network input that receives the image tensor; `nil` uses the first input.
  public var inputName: String?
  /// The network output that holds the class scores; `nil` uses the first output.
  public var outputName: String?
  /// Whether the scores are already probabilities (the network ends in a softmax), so softmax
  /// scoring keeps them as they are.
  public var scoresAreProbabilities: Bool
  /// The softmax confidence below which a photo is of no label.
  ///
  /// Classifications under it are dropped, so a photo of something else comes back with none.
  /// `nil` (the default) keeps
  /// every label. A trained classifier calibrates it on its validation photos
  /// (``ClassifierTrainer/UnknownThreshold``).
  public var unknownThreshold: Float?

  /// Creates a description.
  ///
  /// - Parameters:
  ///   - name: A short name for reports.
  ///   - input: The input size, crop and scale, normalization and channel order.
  ///   - labels: The labels in class-index order.
  ///   - inputName: The network input for the image; `nil` uses the first input.
  ///   - outputName: The network output with the scores; `nil` uses the first output.
  ///   - scoresAreProbabilities: Whether the network already ends in a softmax; `false` by
  ///     default.
  ///   - unknownThreshold: The confidence below which a photo is of no label; `nil` by default.
  public init(
    name: String, input: ModelInputSpec, labels: [String], inputName: String? = nil,
    outputName: String? = nil, scoresAreProbabilities: Bool = false,
    unknownThreshold: Float? = nil
  ) {
    self.unknownThreshold = unknownThreshold
    self.name = name
    self.input = input
    self.labels = labels
    self.inputName = inputName
    self.outputName = outputName
    self.scoresAreProbabilities = scoresAreProbabilities
  }

  /// EfficientNet-Lite0 on ImageNet-1k: 224 x 224, the Lite center crop of 224/256 of the shorter
  /// side, `(level - 127) / 128`, RGB, the bundled ImageNet labels.
  ///
  /// - Returns: The description.
  public static func efficientNetLite0() -> ModelDescription {
    ModelDescription(
      name: "efficientnet-lite0", input: .efficientNetLite(size: 224),
      labels: LabelList.imageNet(), inputName: "input", outputName: "logits")
  }
}
