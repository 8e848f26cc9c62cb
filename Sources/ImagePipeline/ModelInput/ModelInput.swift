/// A preprocessed model input together with what was done to produce it.
public struct ModelInput: Sendable, Hashable {
  /// The float32 tensor, shape `[1, 3, height, width]`.
  public let tensor: ImageTensor
  /// The orientation, region, crop and placement that produced the tensor.
  public let provenance: PreprocessingProvenance
}
