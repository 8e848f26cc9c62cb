import NeuralCore
import NeuralLayers

/// What runs a classifier's network: a planned session, of an imported graph or of NeuralCore
/// layers, mapping `[batch, 3, height, width]` to one score vector per image.
struct NetworkBackend: Sendable {
  /// The planned network, or why the layers it was made from cannot be planned.
  let session: Result<InferenceSession, NeuralCoreError>
  /// The name of its image input.
  let input: String
  /// The name of its score output.
  let output: String

  /// A backend running an imported network.
  init(session: InferenceSession, input: String, output: String) {
    self.session = .success(session)
    self.input = input
    self.output = output
  }

  /// A backend running NeuralCore layers, planned once from their graph.
  init(_ network: some Layer, threadCount: Int) {
    input = "input"
    let planned = Result { () throws(NeuralCoreError) -> (InferenceSession, String) in
      let graph = try network.graph(
        input: TensorDescription(name: "input", shape: [nil, 3, nil, nil]))
      let session = try InferenceSession(
        graph: graph, options: SessionOptions(threadCount: threadCount))
      return (session, graph.outputs.first?.name ?? "")
    }
    session = planned.map(\.0)
    output = (try? planned.get().1) ?? ""
  }

  /// Runs the network; on a worker of the ``ComputeExecutor``, with no more threads than the
  /// worker's share of the cores.
  func run(_ tensor: Tensor) throws(NeuralCoreError) -> Tensor {
    let session = try session.get()
    let feeds = [input: tensor]
    let outputs: [String: Tensor]
    if let share = ComputeExecutor.threadShare {
      outputs = try session.run(feeds, threadCount: share)
    } else {
      outputs = try session.run(feeds)
    }
    guard let scores = outputs[output] else {
      throw NeuralCoreError(.missingValue, "the model produced no output '\(output)'")
    }
    return scores
  }
}
