/// The time one executed step took, from ``InferenceSession/profile(_:runs:)``.
package struct StepTiming: Sendable, Hashable {
  /// The ONNX node the step runs (with anything fused into it).
  package var name: String
  /// The mean wall time per run, in milliseconds.
  package var milliseconds: Double

  /// Creates a timing.
  ///
  /// - Parameters:
  ///   - name: The step's node name.
  ///   - milliseconds: The mean wall time per run.
  package init(name: String, milliseconds: Double) {
    self.name = name
    self.milliseconds = milliseconds
  }
}
