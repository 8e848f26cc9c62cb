public import Foundation
import NeuralCore

/// A Core ML model file (`.mlmodel`) whose neural network this library runs: its image input
/// with Core ML's preprocessing, its class labels, and the network lowered to the graph the ONNX
/// importer builds.
///
/// ```swift
/// let model = try CoreMLModel(contentsOf: URL(fileURLWithPath: "MobileNetV2.mlmodel"))
/// print(model.inputName, model.scoresOutput, model.classLabels?.count ?? 0)
/// ```
///
/// The network's input is the image's raw 0-255 samples, `[1, channels, height, width]` in the
/// model's colour order; the graph applies `channelScale * pixel + bias` itself, as Core ML does.
public struct CoreMLModel: Sendable {
  /// The channel order an image input expects.
  package enum ColorLayout: Sendable, Hashable {
    /// Red, green, blue.
    case rgb
    /// Blue, green, red.
    case bgr
    /// One gray channel.
    case grayscale
  }

  /// An image input and the preprocessing Core ML applies to it.
  package struct ImageInput: Sendable, Hashable {
    /// The input's name in the model.
    package var name: String
    /// The width the model takes.
    package var width: Int
    /// The height the model takes.
    package var height: Int
    /// The channel order.
    package var colorLayout: ColorLayout
    /// `channelScale`: every sample is multiplied by it first.
    package var scale: Float
    /// The bias added to each channel after scaling, in the model's channel order.
    package var biases: [Float]
  }

  /// The image input.
  package let imageInput: ImageInput
  /// The class labels of a classifier, in output order (integer labels as text); `nil` for a
  /// plain network.
  public let classLabels: [String]?
  /// The name of the output that holds one score per class (for a classifier) or the network's
  /// output.
  public let scoresOutput: String
  /// Whether ``scoresOutput`` comes from a softmax layer, so it holds probabilities (many
  /// converted classifiers end without one: their "probabilities" are logits).
  public let scoresAreProbabilities: Bool
  /// The network, lowered to ONNX nodes (opset 13).
  package let graph: ONNXModel

  /// The network input an `InferenceSession` made from this model takes: the image's raw
  /// 0-255 samples, `[1, channels, height, width]` in the model's colour order.
  public var inputName: String { graph.graph.inputs[0].name }

  /// Reads a `.mlmodel` file, or an `.mlpackage` folder (an ML Program and its weights, or a
  /// neural network).
  ///
  /// - Parameters:
  ///   - url: The file or package folder.
  ///   - limits: Bounds on file size, nesting and element counts.
  /// - Throws: ``ModelFormatsError``: `io` when the file cannot be read, `malformedFile` for
  ///   damaged protobuf, blob files or inconsistent layers and operations, `limitExceeded` past
  ///   a limit, `unsupported` for a model this library cannot run (naming why).
  public init(contentsOf url: URL, limits: ImportLimits = .default)
    throws(ModelFormatsError)
  {
    let path = url.path(percentEncoded: false)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      try self.init(
        serializedBytes: FileBytes.read(path: path, maximumBytes: limits.maximumFileBytes),
        limits: limits)
      return
    }
    let (root, model) = try MLPackage.rootModel(ofPackage: url, limits: limits)
    let directory = model.deletingLastPathComponent()
    try self.init(
      serializedBytes: FileBytes.read(path: model.path, maximumBytes: limits.maximumFileBytes),
      limits: limits
    ) { name throws(ModelFormatsError) in
      try MLPackage.blobFile(named: name, modelDirectory: directory, root: root, limits: limits)
    }
  }

  /// Reads a serialized Core ML `Model` message (an ML Program whose weights are all in the
  /// message; one with blob files must be read from its package).
  ///
  /// - Parameters:
  ///   - bytes: The file's bytes.
  ///   - limits: Bounds on size, nesting and element counts.
  /// - Throws: ``ModelFormatsError`` as ``init(contentsOf:limits:)`` does.
  public init(serializedBytes bytes: [UInt8], limits: ImportLimits = .default)
    throws(ModelFormatsError)
  {
    try self.init(serializedBytes: bytes, limits: limits) { name throws(ModelFormatsError) in
      throw ModelFormatsError(
        .unsupported,
        "this ML Program keeps its weights in '\(name)' beside the model file: open the "
          + ".mlpackage folder")
    }
  }

  /// Reads a serialized `Model` message whose ML Program reads its blob files through
  /// `blobFiles`.
  package init(
    serializedBytes bytes: [UInt8], limits: ImportLimits,
    blobFiles: @escaping (String) throws(ModelFormatsError) -> MILBlobFile
  ) throws(ModelFormatsError) {
    try limits.checkFileSize(bytes.count, of: "model")
    let model = try CoreMLMessage(
      ProtobufReader(bytes, maximumDepth: limits.maximumNestingDepth))
    guard let description = try model.message(2) else {
      throw ModelFormatsError(.malformedFile, "Core ML model has no description")
    }
    let parts: Parts
    if let program = try model.message(502) {
      parts = try Self.program(
        program, description: description, limits: limits, blobFiles: blobFiles)
    } else {
      parts = try Self.network(model, description: description, limits: limits)
    }
    self.imageInput = parts.imageInput
    self.classLabels = parts.classLabels
    self.scoresOutput = parts.scoresOutput
    self.scoresAreProbabilities = parts.scoresAreProbabilities
    let channels = parts.imageInput.colorLayout == .grayscale ? 1 : 3
    let inputType = ONNXValueType.tensor(
      elementType: .float,
      shape: [1, channels, parts.imageInput.height, parts.imageInput.width].map {
        ONNXDimension.value($0)
      })
    self.graph = ONNXModel(
      irVersion: 8, opsetImports: [ONNXOperatorSetID(domain: "", version: parts.opset)],
      producerName: "Core ML", producerVersion: "", domain: "", modelVersion: 0,
      graph: ONNXGraph(
        name: "coreml", nodes: parts.nodes, initializers: parts.initializers,
        inputs: [ONNXValueInfo(name: parts.graphInput, type: inputType)],
        outputs: [ONNXValueInfo(name: parts.scoresOutput, type: nil)], valueInfo: []))
  }

  /// What either kind of model gives: its image input, labels and scores, and its nodes.
  struct Parts {
    var imageInput: ImageInput
    var classLabels: [String]?
    var scoresOutput: String
    var scoresAreProbabilities: Bool
    var graphInput: String
    var opset: Int64
    var nodes: [ONNXNode]
    var initializers: [ONNXTensor]
  }

  /// A `NeuralNetwork` model's parts: its preprocessing and layers lowered to opset 13.
  private static func network(
    _ model: CoreMLMessage, description: CoreMLMessage, limits: ImportLimits
  ) throws(ModelFormatsError) -> Parts {
    let network = try Self.network(of: model)
    let input = try Self.imageInput(description, preprocessing: network.message.messages(2))
    var lowering = CoreMLNetworkLowering(limits: limits)
    let pixels = input.name + "__pixels"
    try lowering.preprocess(
      pixels: pixels, output: input.name, scale: input.scale, biases: input.biases)
    let layers = try network.message.messages(1)
    guard !layers.isEmpty else {
      throw ModelFormatsError(.malformedFile, "Core ML network has no layers")
    }
    for layer in layers { try lowering.lower(layer) }
    let labels = network.isClassifier ? try Self.labels(network.message) : nil
    let scores = Self.scoresOutput(
      description, network: network, lastOutput: layers.last?.strings(3).first ?? "")
    let producer = layers.last { $0.strings(3).first == scores }
    if network.isClassifier { lowering.flattenOutput(scores) }
    return Parts(
      imageInput: input, classLabels: labels, scoresOutput: scores,
      scoresAreProbabilities: producer?.oneOf([175, 950]) != nil, graphInput: pixels, opset: 13,
      nodes: lowering.nodes, initializers: lowering.initializers)
  }

  /// The `NeuralNetwork` or `NeuralNetworkClassifier` inside the model, or the reason there
  /// is none this library can run.
  private static func network(of model: CoreMLMessage) throws(ModelFormatsError)
    -> (message: CoreMLMessage, isClassifier: Bool)
  {
    if let classifier = try model.message(403) { return (classifier, true) }
    if let plain = try model.message(500) { return (plain, false) }
    if model.has(303) {
      throw ModelFormatsError(.unsupported, "Core ML neural network regressors are not run yet")
    }
    // A pipeline classifier or regressor wraps a `Pipeline` (field 1); field 202 is one.
    var pipeline = try model.message(202)
    for wrapper in [200, 201] where pipeline == nil {
      pipeline = try model.message(wrapper)?.message(1)
    }
    if let pipeline {
      if try pipeline.messages(1).first?.has(2002) == true {
        throw ModelFormatsError(
          .unsupported,
          "this is a Create ML image classifier: its first model is Apple's Vision feature print, "
            + "whose weights ship with Apple's operating systems and are not in the file, so it "
            + "cannot run anywhere else; retrain it on the same labeled folders with "
            + "`vision-catalog train`")
      }
      throw ModelFormatsError(.unsupported, "Core ML pipelines are not run yet")
    }
    throw ModelFormatsError(.unsupported, "this Core ML model holds no neural network")
  }

  static func imageInput(
    _ description: CoreMLMessage, preprocessing: [CoreMLMessage]
  ) throws(ModelFormatsError) -> ImageInput {
    for feature in try description.messages(1) {
      guard let type = try feature.message(3), let image = try type.message(4) else { continue }
      let name = feature.string(1)
      let width = Int(image.integer(1))
      let height = Int(image.integer(2))
      guard (1...65_536).contains(width), (1...65_536).contains(height) else {
        throw ModelFormatsError(
          .malformedFile, "Core ML image input '\(name)' is \(width)x\(height)")
      }
      let layout: ColorLayout
      switch image.integer(3) {
      case 10: layout = .grayscale
      case 20: layout = .rgb
      case 30: layout = .bgr
      case let other:
        throw ModelFormatsError(
          .unsupported, "Core ML image input '\(name)' has colour space \(other)")
      }
      let scaler = try preprocessing.first { $0.string(1) == name || $0.string(1).isEmpty }
        .flatMap { preprocessing throws(ModelFormatsError) in try preprocessing.message(10) }
      let scale = scaler.map { $0.has(10) ? $0.float(10) : 1 } ?? 1
      let biases: [Float] =
        switch layout {
        case .grayscale: [scaler?.float(30) ?? 0]
        case .rgb: [scaler?.float(22) ?? 0, scaler?.float(21) ?? 0, scaler?.float(20) ?? 0]
        case .bgr: [scaler?.float(20) ?? 0, scaler?.float(21) ?? 0, scaler?.float(22) ?? 0]
        }
      return ImageInput(
        name: name, width: width, height: height, colorLayout: layout, scale: scale,
        biases: biases)
    }
    throw ModelFormatsError(
      .unsupported, "this Core ML model has no image input; only image classifiers are run")
  }

  private static func labels(_ classifier: CoreMLMessage) throws(ModelFormatsError) -> [String] {
    if let strings = try classifier.message(100) { return strings.strings(1) }
    if let integers = try classifier.message(101) {
      return try integers.integers(1).map(String.init)
    }
    throw ModelFormatsError(.malformedFile, "Core ML classifier has no class labels")
  }

  private static func scoresOutput(
    _ description: CoreMLMessage, network: (message: CoreMLMessage, isClassifier: Bool),
    lastOutput: String
  ) -> String {
    let named = network.message.string(200)
    if !named.isEmpty { return named }
    let probabilities = description.string(12)
    return network.isClassifier && !probabilities.isEmpty ? probabilities : lastOutput
  }
}
