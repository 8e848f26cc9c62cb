/// A parsed ONNX model, ready to be given to an `InferenceSession`.
///
/// Load one with ``init(contentsOf:limits:)`` or ``init(serializedBytes:limits:)``. Parsing
/// once and creating several sessions from the value (with different `SessionOptions`) reads
/// the file once. The parsed contents (metadata, operator sets, graph, nodes and initializers)
/// are not public API: they are an implementation detail of the importer that may change
/// between releases.
public struct ONNXModel: Sendable, Hashable {
  /// The ONNX IR version the file follows.
  package var irVersion: Int64
  /// The operator sets the model imports.
  package var opsetImports: [ONNXOperatorSetID]
  /// The tool that wrote the model, such as `pytorch`.
  package var producerName: String
  /// The version of that tool.
  package var producerVersion: String
  /// The model's namespace, such as `org.example`.
  package var domain: String
  /// The model's own version number.
  package var modelVersion: Int64
  /// The main graph.
  package var graph: ONNXGraph
  /// Model-local functions that nodes of ``graph`` may call.
  package var functions: [ONNXFunction]

  /// Creates a model.
  ///
  /// - Parameters:
  ///   - irVersion: The ONNX IR version.
  ///   - opsetImports: The imported operator sets.
  ///   - producerName: The tool that wrote the model.
  ///   - producerVersion: The version of that tool.
  ///   - domain: The model's namespace.
  ///   - modelVersion: The model's own version number.
  ///   - graph: The main graph.
  ///   - functions: Model-local functions.
  package init(
    irVersion: Int64, opsetImports: [ONNXOperatorSetID], producerName: String,
    producerVersion: String, domain: String, modelVersion: Int64, graph: ONNXGraph,
    functions: [ONNXFunction] = []
  ) {
    self.irVersion = irVersion
    self.opsetImports = opsetImports
    self.producerName = producerName
    self.producerVersion = producerVersion
    self.domain = domain
    self.modelVersion = modelVersion
    self.graph = graph
    self.functions = functions
  }

  /// The imported version of an operator set domain.
  ///
  /// - Parameter domain: The domain; `""` and `"ai.onnx"` both name the default domain.
  /// - Returns: The version, or `nil` when the model does not import the domain.
  package func opsetVersion(forDomain domain: String) -> Int64? {
    let isDefault = domain.isEmpty || domain == "ai.onnx"
    return opsetImports.first {
      isDefault ? ($0.domain.isEmpty || $0.domain == "ai.onnx") : $0.domain == domain
    }?.version
  }
}
