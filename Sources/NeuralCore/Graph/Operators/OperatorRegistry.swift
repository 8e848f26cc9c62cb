/// Every operator NeuralCore runs, keyed by domain and name, collected from the family lists.
enum OperatorRegistry {
  /// A registry key: an operator set domain (`""` for standard ONNX) and an operator name.
  struct Key: Hashable, Sendable {
    /// The domain, with `ai.onnx` spelled `""`.
    let domain: String
    /// The operator's name.
    let name: String

    /// The key of an operator; `ai.onnx` and `""` name the same domain.
    init(domain: String, name: String) {
      self.domain = OperatorRegistry.canonicalDomain(domain)
      self.name = name
    }
  }

  /// The families' entries; one key may have entries for disjoint opset ranges.
  static let entries: [Key: [OperatorEntry]] = Dictionary(
    grouping: ConvolutionOperators.entries + ElementwiseOperators.entries
      + ActivationOperators.entries + NormalizationOperators.entries
      + ReductionOperators.entries + MatrixOperators.entries + ShapeOperators.entries
      + LayoutOperators.entries + LogicOperators.entries + ResizeOperators.entries
      + QuantizationOperators.entries,
    by: { Key(domain: $0.domain, name: $0.name) })

  /// The names of the standard ONNX operators with an entry.
  static var standardOperators: Set<String> {
    Set(entries.keys.filter { $0.domain.isEmpty }.map(\.name))
  }

  /// The domain as keys spell it: `""` for `ai.onnx`.
  static func canonicalDomain(_ domain: String) -> String {
    domain == "ai.onnx" ? "" : domain
  }

  /// The domain as messages spell it: `ai.onnx` for the standard domain.
  static func displayDomain(_ domain: String) -> String {
    domain.isEmpty ? "ai.onnx" : domain
  }

  /// The entry that runs a node at an opset.
  ///
  /// - Parameters:
  ///   - node: The node, whose domain and operator are looked up.
  ///   - opset: The version of the node's domain the model imports, `nil` for none.
  /// - Returns: The entry whose opsets include `opset`.
  /// - Throws: ``NeuralCoreError`` with code `unsupported` naming the operator and its domain
  ///   when no entry runs it, or the opsets that are run when `opset` is outside them.
  static func entry(for node: Graph.Node, opset: Int?) throws(NeuralCoreError) -> OperatorEntry {
    let attributes = NodeAttributes(node: node)
    let key = Key(domain: node.domain, name: node.operatorName)
    let described = "operator '\(node.operatorName)' of domain '\(displayDomain(key.domain))'"
    guard let candidates = entries[key] else {
      throw attributes.error(.unsupported, "\(described) is not supported")
    }
    guard let opset else {
      throw attributes.error(.unsupported, "\(described) needs an import of its operator set")
    }
    guard let entry = candidates.first(where: { $0.opsets.contains(opset) }) else {
      let ranges = candidates.map(\.opsets.description).joined(separator: ", ")
      throw attributes.error(
        .unsupported, "\(described) is not supported at opset \(opset) (only \(ranges))")
    }
    return entry
  }
}
