/// When and how often a provider repeats a GET the server asked it to retry (429 and 503).
public struct RetryPolicy: Sendable, Hashable {
  /// Retries after the first attempt; 0 turns retrying off.
  public var maximumRetries: Int
  /// The delay before the first retry, in seconds; each further retry doubles it.
  public var initialDelay: Double
  /// The longest delay, in seconds; a larger `Retry-After` is shortened to it.
  public var maximumDelay: Double

  /// Creates a retry policy.
  ///
  /// - Parameters:
  ///   - maximumRetries: Retries after the first attempt.
  ///   - initialDelay: The first delay in seconds.
  ///   - maximumDelay: The longest delay in seconds.
  public init(maximumRetries: Int = 2, initialDelay: Double = 0.25, maximumDelay: Double = 4) {
    self.maximumRetries = maximumRetries
    self.initialDelay = initialDelay
    self.maximumDelay = maximumDelay
  }

  /// No retries.
  public static let none = RetryPolicy(maximumRetries: 0)

  /// The delay before retry number `attempt` (0-based), honouring a `Retry-After` in seconds.
  func delay(attempt: Int, retryAfter: String?) -> Double {
    if let retryAfter, let seconds = Double(retryAfter), seconds >= 0 {
      return min(seconds, maximumDelay)
    }
    return min(initialDelay * Double(1 << min(attempt, 20)), maximumDelay)
  }
}
