import CNative

/// Copies the bytes of a buffer the C target allocated.
enum CodecBuffer {
  /// The buffer's contents as an array; the caller still frees the buffer.
  ///
  /// - Parameter buffer: A buffer filled by an encoder.
  /// - Returns: A copy of its `size` bytes.
  static func bytes(of buffer: cic_buffer) -> [UInt8] {
    guard let data = buffer.data, buffer.size > 0 else { return [] }
    // The C target keeps `size <= capacity`; a buffer that claims more than it holds is a bug
    // there, and stopping beats copying bytes past the allocation.
    precondition(buffer.size <= buffer.capacity, "codec buffer size exceeds its allocation")
    // Safety: the encoder wrote `size` bytes at `data`, which stays allocated until freed.
    return Array(UnsafeBufferPointer(start: data, count: buffer.size))
  }
}
