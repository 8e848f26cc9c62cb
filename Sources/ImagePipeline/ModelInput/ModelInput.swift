/// A preprocessed model input together with what was done to produce it.
public struct ModelInput: Sendable, Hashable {
  /// The float32 tensor, shape `[1, 3, height, width]`.
  package let tensor: ImageTensor
  /// The orientation, region, crop and placement that produced the tensor.
  package let provenance: PreprocessingProvenance

  /// The tensor's shape, `[1, 3, height, width]`.
  public var shape: [Int] { tensor.shape }

  /// The tensor's float32 values in NCHW order: each channel's plane of `height * width` values,
  /// row by row.
  public var values: [Float] { tensor.values }
}
