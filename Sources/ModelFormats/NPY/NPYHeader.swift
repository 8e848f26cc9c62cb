import NeuralCore

/// The dictionary literal of a `.npy` header: `{'descr': '<f4', 'fortran_order': False,
/// 'shape': (1, 3, 224, 224), }`.
///
/// A tiny tokenizer for exactly this literal (quoted strings, `True`/`False`, tuples of integers);
/// nothing is evaluated.
struct NPYHeader {
  /// The element type descriptor, such as `<f4`.
  var descriptor: String
  /// Whether the data is in column-major order.
  var isFortranOrder: Bool
  /// The dimensions.
  var shape: [Int]

  /// Parses the header text.
  ///
  /// - Parameter text: The header between the length field and the data.
  /// - Throws: `malformedFile` when a key is missing or a value has the wrong form.
  init(parsing text: String) throws(ModelFormatsError) {
    var scanner = Scanner(Array(text.unicodeScalars))
    var descriptor: String?
    var isFortranOrder: Bool?
    var shape: [Int]?
    try scanner.expect("{")
    while true {
      scanner.skipSpaces()
      if scanner.consume("}") { break }
      let key = try scanner.quoted()
      try scanner.expect(":")
      scanner.skipSpaces()
      switch key {
      case "descr": descriptor = try scanner.quoted()
      case "fortran_order": isFortranOrder = try scanner.boolean()
      case "shape": shape = try scanner.integerTuple()
      default: throw Scanner.failure("unexpected key '\(key)'")
      }
      scanner.skipSpaces()
      if scanner.consume("}") { break }
      try scanner.expect(",")
    }
    guard let descriptor, let isFortranOrder, let shape else {
      throw Scanner.failure("descr, fortran_order or shape is missing")
    }
    self.descriptor = descriptor
    self.isFortranOrder = isFortranOrder
    self.shape = shape
  }

  private struct Scanner {
    let characters: [Unicode.Scalar]
    var index = 0

    init(_ characters: [Unicode.Scalar]) {
      self.characters = characters
    }

    static func failure(_ message: String) -> ModelFormatsError {
      ModelFormatsError(.malformedFile, "npy header: \(message)")
    }

    mutating func skipSpaces() {
      while index < characters.count, characters[index].properties.isWhitespace { index += 1 }
    }

    mutating func consume(_ character: Unicode.Scalar) -> Bool {
      guard index < characters.count, characters[index] == character else { return false }
      index += 1
      return true
    }

    mutating func expect(_ character: Unicode.Scalar) throws(ModelFormatsError) {
      skipSpaces()
      guard consume(character) else { throw Self.failure("expected '\(character)'") }
    }

    mutating func quoted() throws(ModelFormatsError) -> String {
      skipSpaces()
      guard index < characters.count, characters[index] == "'" || characters[index] == "\""
      else { throw Self.failure("expected a quoted string") }
      let quote = characters[index]
      index += 1
      var result = String.UnicodeScalarView()
      while index < characters.count, characters[index] != quote {
        result.append(characters[index])
        index += 1
      }
      guard consume(quote) else { throw Self.failure("unterminated string") }
      return String(result)
    }

    mutating func boolean() throws(ModelFormatsError) -> Bool {
      if word("True") { return true }
      if word("False") { return false }
      throw Self.failure("expected True or False")
    }

    private mutating func word(_ text: String) -> Bool {
      let scalars = Array(text.unicodeScalars)
      guard index + scalars.count <= characters.count,
        Array(characters[index..<(index + scalars.count)]) == scalars
      else { return false }
      index += scalars.count
      return true
    }

    mutating func integerTuple() throws(ModelFormatsError) -> [Int] {
      try expect("(")
      var values: [Int] = []
      while true {
        skipSpaces()
        if consume(")") { return values }
        var digits = ""
        while index < characters.count, characters[index].properties.numericType != nil,
          digits.count < 19
        {
          digits.unicodeScalars.append(characters[index])
          index += 1
        }
        guard let value = Int(digits) else { throw Self.failure("expected a dimension") }
        values.append(value)
        skipSpaces()
        if consume(")") { return values }
        try expect(",")
      }
    }
  }
}
