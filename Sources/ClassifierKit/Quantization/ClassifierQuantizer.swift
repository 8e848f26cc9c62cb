public import ImagePipeline
public import ModelFormats
import NeuralCore

/// Quantizes a float32 classifier to int8 after training, calibrated on photos.
///
/// ``quantize(_:photos:progress:)`` runs the float32 model with NeuralCore on each photo,
/// prepared as the model's description says, and adds every activation it will quantize to a
/// bounded histogram (`ActivationHistogram`) and its channels' means; the calibration method
/// turns each histogram into a range, and
/// `ONNXModel.quantized(ranges:keepingFloat:channelMeans:)` writes the QDQ model, each layer's
/// bias corrected for its weights' rounding by the means of its input's channels. The int8
/// model then runs on the same photos, and when its top class agrees with the float32 model's
/// on fewer than ``minimumAgreement`` of them, the layers nearest the input are kept in float32
/// one more at a time (up to a sixth of the layers), then the best of those choices with the
/// last layer (the classifier) too; the first choice that reaches the bar (or else the best) is
/// kept. The first layers work at the highest resolution on the fewest channels, where
/// int8 loses the most: on EfficientNet-Lite0, the int8 weights of the first two depthwise
/// convolutions alone change the top class of 16 and 13 of the trainer's 120 photos.
public struct ClassifierQuantizer: Sendable {
  /// How activation ranges are calibrated; the 99.99th percentile by default.
  public var method: CalibrationMethod
  /// The share of photos, from 0 to 1, whose top class the int8 model must keep before no
  /// layer is left in float32; 0.95 by default.
  public var minimumAgreement: Double
  /// How photos are decoded.
  public var preparation: PreparationOptions
  /// The threads one network call may use; `nil` means every active processor.
  public var threadCount: Int?
  /// The bins of each activation's histogram.
  public var binCount: Int

  /// Creates a quantizer.
  ///
  /// - Parameters:
  ///   - method: How activation ranges are calibrated.
  ///   - minimumAgreement: The share of top classes the int8 model must keep.
  ///   - preparation: How photos are decoded.
  ///   - threadCount: The threads one network call may use.
  ///   - binCount: The bins of each histogram, a multiple of 4 from 8 up; 2048 (as ONNX
  ///     Runtime's calibrators use) by default.
  public init(
    method: CalibrationMethod = .percentile(CalibrationMethod.defaultPercentile),
    minimumAgreement: Double = 0.95, preparation: PreparationOptions = .default,
    threadCount: Int? = nil, binCount: Int = 2048
  ) {
    self.method = method
    self.minimumAgreement = minimumAgreement
    self.preparation = preparation
    self.threadCount = threadCount
    self.binCount = binCount
  }

  /// Calibrates, quantizes and measures the agreement, keeping layers in float32 as the type
  /// describes.
  ///
  /// - Parameters:
  ///   - classifier: The float32 classifier.
  ///   - photos: The calibration photos; those that cannot be read are skipped and reported.
  ///   - progress: Told after each photo of each pass.
  /// - Returns: The quantized classifier and its report.
  /// - Throws: ``ClassificationError``: `invalidArgument` for no photos or a model without
  ///   layers to quantize; `invalidImage` when no photo can be read; `modelUnavailable` when
  ///   NeuralCore cannot run the float32 or the quantized model; `inferenceFailed` when a run
  ///   fails.
  public func quantize(
    _ classifier: QuantizableClassifier, photos: [ImageSource],
    progress: (QuantizationProgress) -> Void = { _ in }
  ) throws(ClassificationError) -> QuantizedClassifier {
    let layers = classifier.model.quantizableLayers
    guard !layers.isEmpty else {
      throw ClassificationError(
        .invalidArgument,
        "the model has no Conv, Gemm or MatMul layer with constant float weights to quantize")
    }
    let calibration = try calibrate(classifier, photos: photos, progress: progress)
    let ranges = calibration.ranges(for: method)
    var best: (model: ONNXModel, agreement: Double, float: [String])?
    func attempt(_ keptFloat: [String]) throws(ClassificationError) -> Bool {
      let model = try Self.quantized(
        classifier.model, ranges: ranges, keepingFloat: keptFloat,
        channelMeans: calibration.channelMeans)
      let agreement = try self.agreement(
        of: model, description: classifier.description, calibration: calibration,
        keepingFloat: keptFloat, progress: progress)
      if best.map({ agreement > $0.agreement }) ?? true {
        best = (model, agreement, keptFloat)
      }
      return agreement >= minimumAgreement
    }
    var reached = false
    for keptFloat in Self.fallbacks(layers) where !reached {
      reached = try attempt(keptFloat)
    }
    if !reached, let last = layers.last, let chosen = best?.float, !chosen.contains(last),
      chosen.count + 1 < layers.count
    {
      _ = try attempt(chosen + [last])
    }
    guard let best else {
      throw ClassificationError(.invalidArgument, "no layer could be quantized")
    }
    let report = QuantizationReport(
      method: method, calibrationPhotoCount: calibration.topClasses.count,
      topOneAgreement: best.agreement,
      quantizedLayers: layers.filter { !best.float.contains($0) }, floatLayers: best.float,
      skipped: calibration.skipped)
    return QuantizedClassifier(
      model: best.model, description: classifier.description, report: report)
  }

  /// The layer choices to keep in float32, in the order they are tried: none, then the first
  /// layer, the first two, and so on up to a sixth of the layers (at least one); a choice that
  /// keeps every layer is left out.
  static func fallbacks(_ layers: [String]) -> [[String]] {
    let most = min(max(1, layers.count / 6), layers.count - 1)
    guard most >= 0 else { return [] }
    return (0...most).map { Array(layers.prefix($0)) }
  }

  /// `model.quantized(ranges:keepingFloat:channelMeans:)` with its failure as a
  /// ``ClassificationError``.
  private static func quantized(
    _ model: ONNXModel, ranges: [String: ClosedRange<Float>], keepingFloat: [String],
    channelMeans: [String: [Float]]
  ) throws(ClassificationError) -> ONNXModel {
    do {
      return try model.quantized(
        ranges: ranges, keepingFloat: Set(keepingFloat), channelMeans: channelMeans)
    } catch {
      throw ClassificationError(
        .invalidArgument, "cannot quantize the model: \(error.message)", underlying: error)
    }
  }

  /// Runs the float32 model on every photo, accumulating the histogram of each activation the
  /// quantized model needs and recording the top class.
  ///
  /// Only one photo's activations are held at a time: each is folded into the histograms
  /// before the next photo runs.
  ///
  /// - Parameters:
  ///   - classifier: The float32 classifier.
  ///   - photos: The calibration photos.
  ///   - progress: Told after each photo.
  /// - Returns: The histograms and top classes.
  /// - Throws: ``ClassificationError`` as ``quantize(_:photos:progress:)`` does.
  package func calibrate(
    _ classifier: QuantizableClassifier, photos: [ImageSource],
    progress: (QuantizationProgress) -> Void = { _ in }
  ) throws(ClassificationError) -> QuantizationCalibration {
    guard !photos.isEmpty else {
      throw ClassificationError(.invalidArgument, "no calibration photos given")
    }
    let model = classifier.model
    let tensors = model.calibrationTensors
    let runner = try PhotoRunner(
      model: model.addingOutputs(tensors), description: classifier.description,
      threadCount: threadCount, what: "the float32 model")
    var histograms: [String: ActivationHistogram] = [:]
    var means: [String: ChannelMeans] = [:]
    for name in tensors {
      histograms[name] = ActivationHistogram(binCount: binCount)
      means[name] = ChannelMeans()
    }
    var topClasses: [Int] = []
    var used: [ImageSource] = []
    var skipped: [SkippedPhoto] = []
    var prepared: [Tensor] = []
    var preparedBytes = 0
    for (index, photo) in photos.enumerated() {
      defer { progress(.calibrating(photo: index + 1, of: photos.count)) }
      let input: Tensor
      do {
        input = try runner.prepare(photo, preparation: preparation)
      } catch {
        skipped.append(
          SkippedPhoto(
            name: photo.name, label: "", reason: error.underlying.map { "\($0)" } ?? error.message))
        continue
      }
      let outputs = try runner.run(input)
      for name in tensors {
        let value = name == runner.inputName ? input : outputs[name]
        guard let value else {
          throw ClassificationError(
            .inferenceFailed, "the float32 model returned no value '\(name)'")
        }
        histograms[name]?.add(value.scalars)
        means[name]?.add(value.scalars, shape: value.shape)
      }
      topClasses.append(try runner.topClass(outputs))
      used.append(photo)
      // The first photos' inputs, while they fit the budget, for measuring the candidates.
      preparedBytes += input.count * MemoryLayout<Float>.stride
      if prepared.count == topClasses.count - 1,
        preparedBytes <= QuantizationCalibration.preparedBudget
      {
        prepared.append(input)
      }
    }
    guard !used.isEmpty else {
      throw ClassificationError(
        .invalidImage,
        "none of the \(photos.count) calibration photos could be read"
          + (skipped.first.map { " (\($0.name): \($0.reason))" } ?? ""))
    }
    var calibration = QuantizationCalibration(
      histograms: histograms, channelMeans: means.compactMapValues(\.means),
      topClasses: topClasses, photos: used, skipped: skipped)
    calibration.prepared = prepared
    return calibration
  }

  /// The share of calibration photos whose top class a model gives as the float32 model did,
  /// with both run by NeuralCore.
  ///
  /// - Parameters:
  ///   - model: The quantized model.
  ///   - description: The classifier's description.
  ///   - calibration: The photos and the float32 model's top classes.
  ///   - keepingFloat: The layers kept in float32, for ``QuantizationProgress``.
  ///   - progress: Told after each photo.
  /// - Returns: The agreement, from 0 to 1.
  /// - Throws: ``ClassificationError``: `modelUnavailable` when NeuralCore cannot run the
  ///   model, `invalidImage` when a photo that calibrated can no longer be read,
  ///   `inferenceFailed` when a run fails.
  package func agreement(
    of model: ONNXModel, description: ModelDescription, calibration: QuantizationCalibration,
    keepingFloat: [String] = [], progress: (QuantizationProgress) -> Void = { _ in }
  ) throws(ClassificationError) -> Double {
    let runner = try PhotoRunner(
      model: model, description: description, threadCount: threadCount,
      what: "the quantized model")
    var agreeing = 0
    for (index, photo) in calibration.photos.enumerated() {
      // The first photos' inputs were kept when calibrating; only the rest are decoded again.
      let input =
        index < calibration.prepared.count
        ? calibration.prepared[index] : try runner.prepare(photo, preparation: preparation)
      let outputs = try runner.run(input)
      if try runner.topClass(outputs) == calibration.topClasses[index] { agreeing += 1 }
      progress(
        .measuring(photo: index + 1, of: calibration.photos.count, floatLayers: keepingFloat))
    }
    return calibration.photos.isEmpty ? 0 : Double(agreeing) / Double(calibration.photos.count)
  }
}
