import CNative

/// Turns the C target's status and message into the module's error.
enum CodecStatus {
  /// Throws when a codec call failed.
  ///
  /// - Parameters:
  ///   - status: The status the C function returned.
  ///   - message: The NUL-terminated message buffer it filled.
  ///   - operation: What was attempted, such as "PNG decoding", to prefix the codec's message.
  /// - Throws: ``ImageDecodingError`` matching the status, carrying the codec's own message.
  static func check(_ status: cic_status, message: [CChar], operation: String)
    throws(ImageDecodingError)
  {
    guard status != CIC_STATUS_OK else { return }
    let code: ImageDecodingError.Code
    switch status {
    case CIC_STATUS_TRUNCATED: code = .truncated
    case CIC_STATUS_UNSUPPORTED: code = .unsupported
    case CIC_STATUS_LIMIT_EXCEEDED: code = .limitExceeded
    case CIC_STATUS_INVALID_ARGUMENT: code = .invalidArgument
    default: code = .corrupt
    }
    let text = String(
      decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    throw ImageDecodingError(code, "\(operation) failed: \(text.isEmpty ? "\(status)" : text)")
  }

  /// A zeroed message buffer of the capacity the C target writes into.
  static func messageBuffer() -> [CChar] {
    [CChar](repeating: 0, count: Int(CIC_MESSAGE_CAPACITY))
  }
}
