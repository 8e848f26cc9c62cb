/// How far ``ClassifierQuantizer`` has come, reported after each photo of each pass.
public enum QuantizationProgress: Sendable, Hashable {
  /// The float32 model ran on a calibration photo: `photo` of `of`, counted from 1.
  case calibrating(photo: Int, of: Int)
  /// A quantized model, with the given layers kept in float32, ran on a photo to measure its
  /// agreement: `photo` of `of`, counted from 1.
  case measuring(photo: Int, of: Int, floatLayers: [String])
}
