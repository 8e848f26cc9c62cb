import NeuralCore

/// What runs a classifier's network.
///
/// A network built from NeuralCore layers or an imported ONNX graph; both map
/// `[batch, 3, height, width]` to one score vector per image.
enum NetworkBackend: Sendable {
  case layer(any Layer, threadCount: Int)
  case session(InferenceSession, input: String, output: String)

  /// Runs the network; on a worker of the ``ComputeExecutor``, with no more threads than the
  /// worker's share of the cores.
  func run(_ input: Tensor) throws(NeuralCoreError) -> Tensor {
    let share = ComputeExecutor.threadShare
    switch self {
    case .layer(let network, let threadCount):
      return try network.forward(input, threadCount: min(threadCount, share ?? threadCount))
    case .session(let session, let inputName, let outputName):
      let feeds = [inputName: input]
      let outputs: [String: Tensor]
      if let share {
        outputs = try session.run(feeds, threadCount: share)
      } else {
        outputs = try session.run(feeds)
      }
      guard let output = outputs[outputName] else {
        throw NeuralCoreError(.missingValue, "the model produced no output '\(outputName)'")
      }
      return output
    }
  }
}
