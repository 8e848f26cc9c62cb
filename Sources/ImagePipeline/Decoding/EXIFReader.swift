/// Reads the orientation tag from an EXIF (TIFF-structured) block.
///
/// Every read is bounds-checked against the block; anything malformed (a bad byte-order mark, an
/// IFD offset outside the block, a wrong tag type or count) yields `nil` so that the caller falls
/// back to ``ImageOrientation/up`` and never fails a decode because of metadata.
struct EXIFReader {
  /// The TIFF structure: byte-order mark, magic 42, IFD0 offset, IFDs.
  let tiff: [UInt8]

  private static let orientationTag: UInt16 = 0x0112
  private static let shortType: UInt16 = 3
  private static let longType: UInt16 = 4

  /// The orientation stored in IFD0, or `nil` when there is none or the block is malformed.
  func orientation() -> ImageOrientation? {
    guard tiff.count >= 8 else { return nil }
    let bigEndian: Bool
    switch (tiff[0], tiff[1]) {
    case (0x49, 0x49): bigEndian = false
    case (0x4D, 0x4D): bigEndian = true
    default: return nil
    }
    guard let magic = uint16(at: 2, bigEndian: bigEndian), magic == 42,
      let ifdOffset = uint32(at: 4, bigEndian: bigEndian),
      let entryCount = uint16(at: Int(ifdOffset), bigEndian: bigEndian)
    else { return nil }
    // An IFD that claims more entries than the block holds is malformed as a whole.
    guard Int(ifdOffset) + 2 + Int(entryCount) * 12 <= tiff.count else { return nil }
    for index in 0..<Int(entryCount) {
      let entry = Int(ifdOffset) + 2 + index * 12
      guard let tag = uint16(at: entry, bigEndian: bigEndian),
        let type = uint16(at: entry + 2, bigEndian: bigEndian),
        let count = uint32(at: entry + 4, bigEndian: bigEndian)
      else { return nil }
      guard tag == Self.orientationTag else { continue }
      guard count >= 1 else { return nil }
      // The value fits in the entry itself, left-justified in its 4 bytes.
      switch type {
      case Self.shortType:
        return uint16(at: entry + 8, bigEndian: bigEndian).map {
          ImageOrientation(exifValue: Int($0))
        }
      case Self.longType:
        return uint32(at: entry + 8, bigEndian: bigEndian).map {
          ImageOrientation(exifValue: Int($0))
        }
      default:
        return nil
      }
    }
    return nil
  }

  private func uint16(at offset: Int, bigEndian: Bool) -> UInt16? {
    guard offset >= 0, offset <= tiff.count - 2 else { return nil }
    let first = UInt16(tiff[offset])
    let second = UInt16(tiff[offset + 1])
    return bigEndian ? first << 8 | second : second << 8 | first
  }

  private func uint32(at offset: Int, bigEndian: Bool) -> UInt32? {
    guard let first = uint16(at: offset, bigEndian: bigEndian),
      let second = uint16(at: offset + 2, bigEndian: bigEndian)
    else { return nil }
    return bigEndian
      ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
  }
}
