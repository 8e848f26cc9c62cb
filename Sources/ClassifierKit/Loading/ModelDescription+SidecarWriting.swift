public import Foundation
import ImagePipeline

extension ModelDescription {
  /// The description as a JSON sidecar that ``init(sidecarAt:)`` reads back to an equal
  /// description: labels inline, normalization as `scale` and `bias`, keys sorted, so the same
  /// description always gives the same bytes.
  ///
  /// - Returns: The JSON text, ending in a newline.
  /// - Throws: ``ClassificationError`` with code `invalidModelDescription` when the description
  ///   holds what a sidecar cannot say: a region of interest, a pad or background color other
  ///   than black, or scores that are already probabilities.
  public func sidecarData() throws(ClassificationError) -> Data {
    guard input.regionOfInterest == .full, input.padColor == .black,
      input.alphaBackground == .black, !scoresAreProbabilities
    else {
      throw ClassificationError(
        .invalidModelDescription,
        "a sidecar cannot hold a region of interest, pad or background colors, or "
          + "probability outputs")
    }
    var object: [String: Any] = [
      "name": name,
      "inputSize": [input.width, input.height],
      "crop": input.cropAndScale.mode.rawValue,
      "scale": Self.channels(input.normalization.scale),
      "bias": Self.channels(input.normalization.bias),
      "channelOrder": input.channelOrder.rawValue,
      "labels": labels,
    ]
    if input.width == input.height { object["inputSize"] = input.width }
    if input.cropAndScale.mode == .centerCrop, input.cropAndScale.cropFraction != 1 {
      object["cropFraction"] = input.cropAndScale.cropFraction
    }
    if let inputName { object["inputName"] = inputName }
    if let outputName { object["outputName"] = outputName }
    if let unknownThreshold { object["unknownThreshold"] = Double(unknownThreshold) }
    do {
      var data = try JSONSerialization.data(
        withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
      data.append(UInt8(ascii: "\n"))
      return data
    } catch {
      throw ClassificationError(
        .invalidModelDescription, "the description cannot be written as JSON",
        underlying: FileError(description: "\(error)"))
    }
  }

  private static func channels(_ values: SIMD3<Float>) -> [Double] {
    [Double(values[0]), Double(values[1]), Double(values[2])]
  }
}
