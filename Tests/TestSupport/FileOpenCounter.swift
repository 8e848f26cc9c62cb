public import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Counts how many times a file is opened, with Linux's inotify, so a test can check that a
/// step reads its input once, whichever process does the reading.
public final class FileOpenCounter {
  private let descriptor: Int32

  /// Starts watching a file.
  ///
  /// - Parameter url: The file, which must exist.
  /// - Throws: `CocoaError(.fileReadUnknown)` when inotify is unavailable.
  public init(watching url: URL) throws {
    descriptor = inotify_init1(Int32(IN_NONBLOCK))
    guard descriptor >= 0, inotify_add_watch(descriptor, url.path, UInt32(IN_OPEN)) >= 0 else {
      throw CocoaError(.fileReadUnknown)
    }
  }

  deinit { close(descriptor) }

  /// The opens seen since the last call (or since the watch started).
  public func opensSinceLastCall() -> Int {
    var opens = 0
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { raw in
        read(descriptor, raw.baseAddress, raw.count)
      }
      guard count > 0 else { return opens }
      var offset = 0
      while offset + MemoryLayout<inotify_event>.size <= count {
        let (mask, length) = buffer.withUnsafeBytes { raw in
          (
            raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
            raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)
          )
        }
        if mask & UInt32(IN_OPEN) != 0 { opens += 1 }
        offset += MemoryLayout<inotify_event>.size + Int(length)
      }
    }
  }
}
