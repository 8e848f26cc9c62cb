/// A model whose concurrent asynchronous classifications the ``ComputeExecutor`` may stack into
/// one `classify(prepared:options:)` call.
protocol DynamicallyBatched: ImageClassificationModel {
  /// What identifies the model; copies that behave the same share it.
  var batchingIdentity: ObjectIdentifier { get }
  /// The most photos one call takes.
  var maximumBatchSize: Int { get }
}

/// An object whose identity names one loaded model and its copies.
final class BatchingIdentity: Sendable {
  /// A new identity.
  init() {}
}
