/// The order of the color planes in a model input.
public enum ChannelOrder: String, Sendable, Hashable, CaseIterable {
  /// Red, green, blue: PyTorch and ONNX models converted from it.
  case rgb
  /// Blue, green, red: Caffe and OpenCV-trained models.
  case bgr
}
