/// A failure of the engine as the layers above it see it: a code to map to their own and a
/// message to keep.
///
/// ModelFormats wraps the engine's failures in its own error through this protocol, so that it
/// speaks of files and the engine of graphs.
package protocol EngineFailure: Error, Sendable {
  /// What kind of failure occurred.
  var code: NeuralCoreError.Code { get }
  /// A human-readable explanation naming the node or operator involved.
  var message: String { get }
}

extension NeuralCoreError: EngineFailure {}
