public import Foundation
import ImagePipeline

extension ModelDescription {
  /// The largest sidecar file read.
  static let maximumSidecarBytes = 1 << 20

  /// The fields a sidecar may have.
  static let sidecarFields: Set<String> = [
    "name", "inputSize", "crop", "cropFraction", "mean", "std", "scale", "bias", "channelOrder",
    "labels", "inputName", "outputName", "unknownThreshold",
  ]

  /// Reads a model description from a JSON sidecar file.
  ///
  /// A sidecar describes how an ONNX classifier wants its input:
  /// ```json
  /// {
  ///   "inputSize": 224,
  ///   "crop": "centerCrop", "cropFraction": 0.875,
  ///   "mean": [127, 127, 127], "std": [128, 128, 128],
  ///   "channelOrder": "rgb",
  ///   "labels": "imagenet1k_labels.txt",
  ///   "inputName": "input", "outputName": "logits"
  /// }
  /// ```
  /// - `inputSize` (required): the side of a square input, or `[width, height]`.
  /// - `crop`: `centerCrop` (default), `scaleFit`, `scaleFill`, `scaleFitRotate90CCW` or
  ///   `scaleFillRotate90CCW`; `cropFraction` (0 < f <= 1) only with `centerCrop`.
  /// - Normalization (required): `mean` and `std` in levels 0...255, or `scale` and `bias` for
  ///   `level * scale + bias`; each three numbers (red, green, blue) or one for all channels.
  /// - `channelOrder`: `rgb` (default) or `bgr`.
  /// - `labels` (required): a text file with one label per line, relative to the sidecar, or
  ///   the labels themselves as an array of strings.
  /// - `unknownThreshold`: a confidence in 0...1 below which a photo is of no label
  ///   (``ModelDescription/unknownThreshold``); a trained model may carry one.
  /// - `inputName`, `outputName`: the network's image input and score output; the first ones
  ///   by default. `name`: a name for reports; the sidecar's file name by default.
  ///
  /// Unknown fields are refused, so that a misspelt field is not silently ignored.
  ///
  /// - Parameter url: The sidecar's URL.
  /// - Throws: ``ClassificationError`` with code `modelUnavailable` when the file cannot be read,
  ///   or `invalidModelDescription` naming the field that is missing or wrong.
  public init(sidecarAt url: URL) throws(ClassificationError) {
    let data: Data
    do {
      let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
      let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
      guard size <= Self.maximumSidecarBytes else {
        throw ClassificationError(
          .invalidModelDescription,
          "sidecar \(url.path) has \(size) bytes, above the \(Self.maximumSidecarBytes)-byte limit")
      }
      data = try Data(contentsOf: url)
    } catch let error as ClassificationError {
      throw error
    } catch {
      throw ClassificationError(
        .modelUnavailable, "cannot read the model sidecar \(url.path)",
        underlying: FileError(description: "\(error)"))
    }
    try self.init(
      sidecarData: data, relativeTo: url.deletingLastPathComponent(),
      defaultName: url.deletingPathExtension().lastPathComponent)
  }

  /// Reads a model description from the bytes of a JSON sidecar.
  ///
  /// - Parameters:
  ///   - data: The JSON text, in the format of ``init(sidecarAt:)``.
  ///   - directory: The directory that relative label paths start from.
  ///   - defaultName: The name used when the sidecar has no `name`.
  /// - Throws: ``ClassificationError`` with code `invalidModelDescription` naming the field that
  ///   is missing or wrong.
  public init(sidecarData data: Data, relativeTo directory: URL, defaultName: String = "model")
    throws(ClassificationError)
  {
    let fields = try SidecarFields(data)
    let size = try fields.inputSize()
    var cropAndScale = try fields.crop()
    if let fraction = try fields.number("cropFraction") {
      guard cropAndScale.mode == .centerCrop, fraction > 0, fraction <= 1 else {
        throw ClassificationError(
          .invalidModelDescription,
          "field 'cropFraction': \(fraction) needs crop 'centerCrop' and 0 < fraction <= 1")
      }
      cropAndScale = .centerCrop(fraction: fraction)
    }
    let normalization = try fields.normalization()
    let channelOrder = try fields.channelOrder()
    let labels = try fields.labels(relativeTo: directory)
    let input = ModelInputSpec(
      width: size.width, height: size.height, cropAndScale: cropAndScale,
      normalization: normalization, channelOrder: channelOrder)
    self.init(
      name: try fields.string("name") ?? defaultName, input: input, labels: labels,
      inputName: try fields.string("inputName"), outputName: try fields.string("outputName"),
      unknownThreshold: try fields.unknownThreshold())
  }
}

/// The parsed top-level object of a sidecar, with typed accessors that name the field on error.
private struct SidecarFields {
  let object: [String: Any]

  init(_ data: Data) throws(ClassificationError) {
    let parsed: Any
    do {
      parsed = try JSONSerialization.jsonObject(with: data)
    } catch {
      throw ClassificationError(
        .invalidModelDescription, "the sidecar is not valid JSON",
        underlying: FileError(description: "\(error)"))
    }
    guard let object = parsed as? [String: Any] else {
      throw ClassificationError(.invalidModelDescription, "the sidecar is not a JSON object")
    }
    if let unknown = object.keys.sorted().first(where: {
      !ModelDescription.sidecarFields.contains($0)
    }) {
      throw ClassificationError(
        .invalidModelDescription,
        "field '\(unknown)' is unknown (known: "
          + ModelDescription.sidecarFields.sorted().joined(separator: ", ") + ")")
    }
    self.object = object
  }

  func fail(_ field: String, _ expectation: String) -> ClassificationError {
    ClassificationError(
      .invalidModelDescription,
      "field '\(field)': expected \(expectation), got \(object[field] ?? "nothing")")
  }

  func string(_ field: String) throws(ClassificationError) -> String? {
    guard let value = object[field] else { return nil }
    guard let string = value as? String, !string.isEmpty else {
      throw fail(field, "a non-empty string")
    }
    return string
  }

  func number(_ field: String) throws(ClassificationError) -> Double? {
    guard let value = object[field] else { return nil }
    guard let number = value as? Double, number.isFinite else { throw fail(field, "a number") }
    return number
  }

  /// The labels: inline strings, or the lines of the file the field names.
  func labels(relativeTo directory: URL) throws(ClassificationError) -> [String] {
    if let inline = object["labels"] as? [Any] {
      let labels = inline.compactMap { $0 as? String }
      guard !labels.isEmpty, labels.count == inline.count, labels.allSatisfy({ !$0.isEmpty })
      else {
        throw fail("labels", "a label file path or a non-empty array of non-empty strings")
      }
      return labels
    }
    guard let path = try string("labels") else {
      throw ClassificationError(
        .invalidModelDescription, "field 'labels' (a label file path or list) is missing")
    }
    let url =
      path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
    return try LabelList.read(contentsOf: url, field: "labels")
  }

  func unknownThreshold() throws(ClassificationError) -> Float? {
    guard let value = try number("unknownThreshold") else { return nil }
    guard (0...1).contains(value) else { throw fail("unknownThreshold", "a number in 0...1") }
    return Float(value)
  }

  func inputSize() throws(ClassificationError) -> (width: Int, height: Int) {
    guard let value = object["inputSize"] else {
      throw ClassificationError(
        .invalidModelDescription, "field 'inputSize' (the input side in pixels) is missing")
    }
    let sides: [Double]
    if let side = value as? Double {
      sides = [side, side]
    } else if let pair = value as? [Double], pair.count == 2 {
      sides = pair
    } else {
      throw fail("inputSize", "a side or [width, height]")
    }
    let limit = Double(ModelInputSpec.maximumSide)
    guard sides.allSatisfy({ $0 >= 1 && $0 <= limit && $0 == $0.rounded() }),
      Int(sides[0]) * Int(sides[1]) <= ModelInputSpec.maximumPixelCount
    else {
      throw fail("inputSize", "whole sides of 1...\(ModelInputSpec.maximumSide)")
    }
    return (Int(sides[0]), Int(sides[1]))
  }

  func crop() throws(ClassificationError) -> CropAndScale {
    guard let name = try string("crop") else { return .centerCrop }
    guard let mode = CropAndScale.Mode(rawValue: name) else {
      throw fail(
        "crop", CropAndScale.Mode.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))
    }
    return CropAndScale(mode)
  }

  func channels(_ field: String) throws(ClassificationError) -> SIMD3<Float>? {
    guard let value = object[field] else { return nil }
    let numbers: [Double]
    if let single = value as? Double {
      numbers = [single, single, single]
    } else if let triple = value as? [Double], triple.count == 3 {
      numbers = triple
    } else {
      throw fail(field, "one number or three (red, green, blue)")
    }
    guard numbers.allSatisfy(\.isFinite) else { throw fail(field, "finite numbers") }
    return SIMD3(Float(numbers[0]), Float(numbers[1]), Float(numbers[2]))
  }

  func normalization() throws(ClassificationError) -> PixelNormalization {
    let mean = try channels("mean")
    let deviation = try channels("std")
    let scale = try channels("scale")
    let bias = try channels("bias")
    let normalization: PixelNormalization
    switch (mean, deviation, scale, bias) {
    case (let mean?, let deviation?, nil, nil):
      guard (0..<3).allSatisfy({ deviation[$0] != 0 }) else {
        throw fail("std", "non-zero standard deviations")
      }
      normalization = PixelNormalization(mean: mean, standardDeviation: deviation)
    case (nil, nil, let scale?, let bias?):
      normalization = PixelNormalization(scale: scale, bias: bias)
    case (nil, nil, nil, nil):
      throw ClassificationError(
        .invalidModelDescription,
        "fields 'mean' and 'std' (or 'scale' and 'bias') are missing: the normalization is required"
      )
    default:
      let given = ["mean", "std", "scale", "bias"].filter { object[$0] != nil }
      throw ClassificationError(
        .invalidModelDescription,
        "fields \(given.map { "'\($0)'" }.joined(separator: ", ")): give either 'mean' and 'std' "
          + "or 'scale' and 'bias'")
    }
    guard normalization.isValid else {
      throw fail(scale == nil ? "std" : "scale", "non-zero finite values")
    }
    return normalization
  }

  func channelOrder() throws(ClassificationError) -> ChannelOrder {
    guard let name = try string("channelOrder") else { return .rgb }
    guard let order = ChannelOrder(rawValue: name) else {
      throw fail("channelOrder", "'rgb' or 'bgr'")
    }
    return order
  }
}
