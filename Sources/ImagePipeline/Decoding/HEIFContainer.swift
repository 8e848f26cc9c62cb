/// The geometry a HEIF or AVIF container gives its primary image, read from the boxes without
/// libheif: the stored size (`ispe`) and the rotation (`irot`) and mirroring (`imir`) a reader
/// applies, in their order.
///
/// Only `ftyp`, `meta`, `pitm`, `iprp`, `ipco` and `ipma` are walked; every length is checked
/// against the buffer and the walk visits a bounded number of boxes, so a damaged file gives
/// `nil` (nothing known) rather than an error or a long loop.
struct HEIFContainer {
  /// One geometric transform, as the container lists it.
  enum Transform: Equatable {
    /// `irot`: the image turned anticlockwise by this many quarter turns (0...3).
    case rotation(quarterTurns: Int)
    /// `imir`: 0 swaps top and bottom, 1 swaps left and right, as libheif applies them
    /// (checked on pillow-heif's and Pillow's files in all eight orientations).
    case mirror(axis: Int)
  }

  /// The primary image's `ispe` width and height (before any transform), if it has one.
  var storedSize: (width: Int, height: Int)?
  /// The rotation and mirroring to apply, first to last.
  var transforms: [Transform]
  /// Whether the primary image has a clean aperture (`clap`), the crop libheif applies.
  var hasCleanAperture: Bool

  /// The most boxes one walk visits.
  private static let maximumBoxes = 4096

  /// Reads the container of a HEIF or AVIF file, or returns `nil` when its boxes are not there
  /// or not well formed.
  init?(bytes: UnsafeRawBufferPointer) {
    var budget = Self.maximumBoxes
    guard
      let meta = Self.children(of: 0..<bytes.count, in: bytes, budget: &budget)
        .first(where: { $0.type == "meta" }),
      meta.payload.count >= 4
    else { return nil }
    // `meta` is a full box: version and flags first.
    let metaChildren = Self.children(
      of: (meta.payload.lowerBound + 4)..<meta.payload.upperBound, in: bytes, budget: &budget)
    guard let pitm = metaChildren.first(where: { $0.type == "pitm" }),
      let primary = Self.primaryItem(pitm.payload, bytes),
      let iprp = metaChildren.first(where: { $0.type == "iprp" })
    else { return nil }
    let propertyBoxes = Self.children(of: iprp.payload, in: bytes, budget: &budget)
    guard let ipco = propertyBoxes.first(where: { $0.type == "ipco" }) else { return nil }
    let properties = Self.children(of: ipco.payload, in: bytes, budget: &budget)
    var indices: [Int] = []
    for ipma in propertyBoxes where ipma.type == "ipma" {
      guard let found = Self.associations(of: primary, in: ipma.payload, bytes) else {
        return nil
      }
      indices += found
    }
    var storedSize: (width: Int, height: Int)?
    var transforms: [Transform] = []
    var hasCleanAperture = false
    for index in indices where index >= 1 && index <= properties.count {
      let property = properties[index - 1]
      let payload = property.payload
      switch property.type {
      case "ispe" where payload.count >= 12:
        storedSize = (
          Self.integer(bytes, payload.lowerBound + 4, 4),
          Self.integer(bytes, payload.lowerBound + 8, 4)
        )
      case "irot" where payload.count >= 1:
        transforms.append(.rotation(quarterTurns: Int(bytes[payload.lowerBound] & 3)))
      case "imir" where payload.count >= 1:
        transforms.append(.mirror(axis: Int(bytes[payload.lowerBound] & 1)))
      case "clap":
        hasCleanAperture = true
      default:
        break
      }
    }
    self.storedSize = storedSize
    self.transforms = transforms
    self.hasCleanAperture = hasCleanAperture
  }

  /// The EXIF orientation that turns the stored image as the transforms do.
  var orientation: ImageOrientation {
    // A 3x2 grid of distinct values, transformed both ways and compared.
    var grid = [[0, 1, 2], [3, 4, 5]]
    for transform in transforms {
      switch transform {
      case .rotation(let turns):
        for _ in 0..<turns { grid = Self.turnedAnticlockwise(grid) }
      case .mirror(let axis):
        grid = axis == 1 ? grid.map { Array($0.reversed()) } : grid.reversed()
      }
    }
    let flat = grid.flatMap { $0 }
    return ImageOrientation.allCases.first { orientation in
      guard
        let image = try? RasterImage(
          width: 3, height: 2, format: .gray, pixels: [0, 1, 2, 3, 4, 5], orientation: orientation)
      else { return false }
      let upright = image.oriented()
      return upright.width == grid[0].count && upright.pixels.map(Int.init) == flat
    } ?? .up
  }

  private static func turnedAnticlockwise(_ grid: [[Int]]) -> [[Int]] {
    let width = grid[0].count
    return (0..<width).map { row in grid.indices.map { column in grid[column][width - 1 - row] } }
  }

  /// A box: its four-character type and the range of its payload.
  struct Box {
    var type: String
    var payload: Range<Int>
  }

  /// The boxes laid end to end in `range`; stops at the first malformed one.
  static func children(
    of range: Range<Int>, in bytes: UnsafeRawBufferPointer, budget: inout Int
  ) -> [Box] {
    var boxes: [Box] = []
    var position = range.lowerBound
    while position + 8 <= range.upperBound, budget > 0 {
      budget -= 1
      var size = integer(bytes, position, 4)
      var header = 8
      if size == 1 {
        guard position + 16 <= range.upperBound else { break }
        size = integer(bytes, position + 8, 8)
        header = 16
      } else if size == 0 {
        size = range.upperBound - position
      }
      guard size >= header, size <= range.upperBound - position else { break }
      let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
      boxes.append(Box(type: type, payload: (position + header)..<(position + size)))
      position += size
    }
    return boxes
  }

  /// A big-endian unsigned integer of `count` bytes (at most 8; larger values saturate).
  static func integer(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ count: Int) -> Int {
    var value: UInt64 = 0
    for index in offset..<(offset + count) { value = value << 8 | UInt64(bytes[index]) }
    return value > UInt64(Int.max) ? Int.max : Int(value)
  }

  /// The item id of `pitm` (a full box: 16 bits in version 0, 32 in version 1).
  private static func primaryItem(_ payload: Range<Int>, _ bytes: UnsafeRawBufferPointer) -> Int? {
    guard payload.count >= 6 else { return nil }
    let wide = bytes[payload.lowerBound] != 0
    guard !wide || payload.count >= 8 else { return nil }
    return integer(bytes, payload.lowerBound + 4, wide ? 4 : 2)
  }

  /// The property indices (1-based) `ipma` associates with `item`, or `nil` when it is cut
  /// short.
  private static func associations(
    of item: Int, in payload: Range<Int>, _ bytes: UnsafeRawBufferPointer
  ) -> [Int]? {
    guard payload.count >= 8 else { return nil }
    let version = bytes[payload.lowerBound]
    let wideIndices = bytes[payload.lowerBound + 3] & 1 == 1
    let entries = integer(bytes, payload.lowerBound + 4, 4)
    var position = payload.lowerBound + 8
    var found: [Int] = []
    for _ in 0..<min(entries, payload.count) {
      let idSize = version < 1 ? 2 : 4
      guard position + idSize + 1 <= payload.upperBound else { return nil }
      let id = integer(bytes, position, idSize)
      let count = Int(bytes[position + idSize])
      position += idSize + 1
      let indexSize = wideIndices ? 2 : 1
      guard position + count * indexSize <= payload.upperBound else { return nil }
      if id == item {
        for entry in 0..<count {
          let raw = integer(bytes, position + entry * indexSize, indexSize)
          found.append(raw & (wideIndices ? 0x7FFF : 0x7F))
        }
      }
      position += count * indexSize
    }
    return found
  }
}
