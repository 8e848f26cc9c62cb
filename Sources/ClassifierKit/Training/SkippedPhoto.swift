/// A photo the trainer could not use, and why.
public struct SkippedPhoto: Sendable, Hashable {
  /// The photo's name: its path, or the name given with its bytes.
  public var name: String
  /// The label it was given.
  public var label: String
  /// Why it was skipped.
  public var reason: String

  /// A skipped photo.
  ///
  /// - Parameters:
  ///   - name: The photo's name.
  ///   - label: Its label.
  ///   - reason: Why it was skipped.
  public init(name: String, label: String, reason: String) {
    self.name = name
    self.label = label
    self.reason = reason
  }
}
