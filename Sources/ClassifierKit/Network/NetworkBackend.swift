import NeuralCore

/// What runs a classifier's network.
///
/// A network built from NeuralCore layers or an imported ONNX graph; both map
/// `[batch, 3, height, width]` to one score vector per image.
enum NetworkBackend: Sendable {
  case layer(any Layer, threadCount: Int)
  case session(InferenceSession, input: String, output: String)

  func run(_ input: Tensor) throws(NeuralCoreError) -> Tensor {
    switch self {
    case .layer(let network, let threadCount):
      return try network.forward(input, threadCount: threadCount)
    case .session(let session, let inputName, let outputName):
      let outputs = try session.run([inputName: input])
      guard let output = outputs[outputName] else {
        throw NeuralCoreError(.missingValue, "the model produced no output '\(outputName)'")
      }
      return output
    }
  }
}
