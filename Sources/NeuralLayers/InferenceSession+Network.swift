public import NeuralCore

extension InferenceSession {
  /// Loads a network built from layers, planned once for many runs.
  ///
  /// - Parameters:
  ///   - network: The network, such as a ``Sequential`` of loaded layers.
  ///   - input: The network's input; its shape may leave dimensions open.
  ///   - options: Thread count and other settings.
  /// - Throws: `NeuralCoreError` with code `invalidArgument` when two of the layers' parameters
  ///   have the same name, or what loading a graph throws.
  public convenience init(
    network: some Layer, input: TensorDescription, options: SessionOptions = SessionOptions()
  ) throws(NeuralCoreError) {
    try self.init(graph: network.graph(input: input), options: options)
  }
}
