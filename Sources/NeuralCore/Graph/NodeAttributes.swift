/// Typed access to one node's attributes, with errors that name the node and operator.
struct NodeAttributes {
  let node: Graph.Node

  /// A load-time error naming the node and its operator.
  func error(_ code: NeuralCoreError.Code = .unsupported, _ message: String) -> NeuralCoreError {
    let name = node.name.isEmpty ? (node.outputs.first { !$0.isEmpty } ?? "?") : node.name
    return NeuralCoreError(code, "node '\(name)' (\(node.operatorName)): \(message)")
  }

  /// Refuses any attribute outside `known`.
  func requireOnly(_ known: Set<String>) throws(NeuralCoreError) {
    for attribute in node.attributes where !known.contains(attribute.name) {
      throw error(.unsupported, "attribute '\(attribute.name)' is not supported")
    }
  }

  func int(_ name: String) throws(NeuralCoreError) -> Int? {
    guard let value = node.attribute(named: name) else { return nil }
    guard case .int(let integer) = value, let result = Int(exactly: integer) else {
      throw error(.invalidGraph, "attribute '\(name)' is not an integer")
    }
    return result
  }

  func int(_ name: String, default fallback: Int) throws(NeuralCoreError) -> Int {
    try int(name) ?? fallback
  }

  func ints(_ name: String) throws(NeuralCoreError) -> [Int]? {
    guard let value = node.attribute(named: name) else { return nil }
    guard case .ints(let integers) = value else {
      throw error(.invalidGraph, "attribute '\(name)' is not a list of integers")
    }
    var result: [Int] = []
    for integer in integers {
      guard let converted = Int(exactly: integer), abs(converted) < 1 << 40 else {
        throw error(.limitExceeded, "attribute '\(name)' holds an absurd value \(integer)")
      }
      result.append(converted)
    }
    return result
  }

  func float(_ name: String) throws(NeuralCoreError) -> Float? {
    guard let value = node.attribute(named: name) else { return nil }
    switch value {
    case .float(let number): return number
    case .int(let integer): return Float(integer)
    default: throw error(.invalidGraph, "attribute '\(name)' is not a float")
    }
  }

  func float(_ name: String, default fallback: Float) throws(NeuralCoreError) -> Float {
    try float(name) ?? fallback
  }

  func floats(_ name: String) throws(NeuralCoreError) -> [Float]? {
    guard let value = node.attribute(named: name) else { return nil }
    guard case .floats(let numbers) = value else {
      throw error(.invalidGraph, "attribute '\(name)' is not a list of floats")
    }
    return numbers
  }

  func string(_ name: String, default fallback: String) throws(NeuralCoreError) -> String {
    guard let value = node.attribute(named: name) else { return fallback }
    guard case .string(let text) = value else {
      throw error(.invalidGraph, "attribute '\(name)' is not a string")
    }
    return text
  }

  func tensor(_ name: String) throws(NeuralCoreError) -> Graph.Constant? {
    switch node.attribute(named: name) {
    case nil: return nil
    case .tensor(let tensor): return tensor
    case .unsupported(let kind): throw error(.unsupported, "attribute '\(name)' is \(kind)")
    default: throw error(.invalidGraph, "attribute '\(name)' is not a tensor")
    }
  }
}
