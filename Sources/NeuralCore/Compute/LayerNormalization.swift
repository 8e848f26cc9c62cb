import CNative

/// Layer normalization of `rows` rows of `length` values (ONNX `LayerNormalization`): each row
/// minus its mean, divided by `sqrt(variance + epsilon)`, times `scale`, plus `bias`, in the
/// kernel set's C kernel (float statistics, two passes over each row).
enum LayerNormalization {
  /// Normalizes every row.
  ///
  /// `scale` and `bias` hold `length` values (already broadcast); `mean` and
  /// `inverseDeviation`, when given, receive one value per row.
  ///
  /// Without `centering` the mean is taken as 0 (ONNX `RMSNormalization`: `x / sqrt(mean(x^2) +
  /// epsilon)`). A nil `scale` is 1.
  static func run(
    _ input: UnsafePointer<Float>, rows: Int, length: Int, epsilon: Float,
    scale: UnsafePointer<Float>?, bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>,
    mean: UnsafeMutablePointer<Float>? = nil,
    inverseDeviation: UnsafeMutablePointer<Float>? = nil, centering: Bool = true,
    kernels: KernelSet = .active, threads: Int = 1
  ) {
    let native = kernels.native
    Parallel.forEachRows(rows, length: length, threads: threads) { first, count in
      native.layerNorm(
        input + first * length, Int64(count), Int64(length), epsilon, scale, bias,
        output + first * length, mean.map { $0 + first }, inverseDeviation.map { $0 + first },
        centering ? 1 : 0)
    }
  }
}
