import Foundation

/// Layer normalization of `rows` rows of `length` values (ONNX `LayerNormalization`): each row
/// minus its mean, divided by `sqrt(variance + epsilon)`, times `scale`, plus `bias`, with the
/// statistics in `Double`.
enum LayerNormalization {
  /// Normalizes every row.
  ///
  /// `scale` and `bias` hold `length` values (already broadcast); `mean` and `inverseDeviation`, when given, receive one value per row.
  ///
  /// Without `centering` the mean is taken as 0 (ONNX `RMSNormalization`: `x / sqrt(mean(x^2) +
  /// epsilon)`). A nil `scale` is 1.
  static func run(
    _ input: UnsafePointer<Float>, rows: Int, length: Int, epsilon: Float,
    scale: UnsafePointer<Float>?, bias: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>,
    mean: UnsafeMutablePointer<Float>? = nil,
    inverseDeviation: UnsafeMutablePointer<Float>? = nil, centering: Bool = true
  ) {
    for row in 0..<rows {
      let line = input + row * length
      var sum = 0.0
      for index in 0..<length { sum += Double(line[index]) }
      let average = length > 0 && centering ? sum / Double(length) : 0
      var squares = 0.0
      for index in 0..<length {
        let difference = Double(line[index]) - average
        squares += difference * difference
      }
      let variance = length > 0 ? squares / Double(length) : 0
      let inverse = 1 / (variance + Double(epsilon)).squareRoot()
      let target = output + row * length
      for index in 0..<length {
        let normalized = Float((Double(line[index]) - average) * inverse) * (scale?[index] ?? 1)
        target[index] = normalized + (bias?[index] ?? 0)
      }
      mean?[row] = Float(average)
      inverseDeviation?[row] = Float(inverse)
    }
  }
}
