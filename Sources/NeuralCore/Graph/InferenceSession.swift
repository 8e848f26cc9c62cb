import Synchronization

/// A loaded network ready to run: the graph optimized once, memory planned per input shape.
///
/// Sessions are safe to share between tasks and threads; concurrent runs each take their own
/// arena, and arenas are kept for reuse.
public final class InferenceSession: Sendable {
  /// The inputs the caller provides, in model order.
  public let inputs: [TensorDescription]
  /// The outputs a run returns, in model order.
  public let outputs: [TensorDescription]
  /// The settings the session was created with.
  public let options: SessionOptions

  /// The ONNX operators (default domain) a session can run.
  public static var supportedOperators: Set<String> { ImportedGraph.supportedOperators }

  private let graph: ImportedGraph
  private let cache = Mutex<[[[Int]]: CachedPlan]>([:])

  private struct CachedPlan: Sendable {
    var plan: ExecutionPlan
    var arenas: [[Float]]
  }

  /// Loads a parsed ONNX model.
  ///
  /// - Parameters:
  ///   - model: The parsed model.
  ///   - options: Thread count and other settings.
  /// - Throws: ``NeuralCoreError`` with code `unsupported` naming the node and operator for an
  ///   operator or attribute NeuralCore does not run, `malformedFile` for an inconsistent graph.
  public init(model: ONNXModel, options: SessionOptions = SessionOptions())
    throws(NeuralCoreError)
  {
    graph = try ImportedGraph(model: model)
    inputs = graph.inputs
    outputs = graph.outputs
    self.options = options
    if let shapes = Self.declaredShapes(inputs) {
      var builder = try PlanBuilder(graph: graph, inputShapes: shapes)
      let plan = try builder.build()
      cache.withLock { $0[inputs.map { shapes[$0.name] ?? [] }] = CachedPlan(plan: plan, arenas: []) }
    }
  }

  /// Loads an ONNX model file.
  ///
  /// - Parameters:
  ///   - path: The `.onnx` file's path.
  ///   - options: Thread count and other settings.
  /// - Throws: ``NeuralCoreError``: `io` when the file cannot be read, `malformedFile` for a
  ///   damaged file, `unsupported` naming the node and operator NeuralCore does not run.
  public convenience init(contentsOfFile path: String, options: SessionOptions = SessionOptions())
    throws(NeuralCoreError)
  {
    try self.init(model: ONNXModel(contentsOfFile: path), options: options)
  }

  private static func declaredShapes(_ inputs: [TensorDescription]) -> [String: [Int]]? {
    var shapes: [String: [Int]] = [:]
    for input in inputs {
      guard let shape = input.shape else { return nil }
      let fixed = shape.compactMap { $0 }
      guard fixed.count == shape.count else { return nil }
      shapes[input.name] = fixed
    }
    return shapes
  }

  /// Runs the network.
  ///
  /// - Parameter feeds: One tensor per input name; shapes may differ from the declared ones
  ///   only where the model leaves a dimension open (for example the batch size).
  /// - Returns: Every model output by name.
  /// - Throws: ``NeuralCoreError``: `missingValue` for a missing input, `shapeMismatch` when a
  ///   shape contradicts the declaration or the graph.
  public func run(_ feeds: [String: Tensor]) throws(NeuralCoreError) -> [String: Tensor] {
    var shapes: [String: [Int]] = [:]
    for input in inputs {
      guard let tensor = feeds[input.name] else {
        throw NeuralCoreError(.missingValue, "input '\(input.name)' was not given")
      }
      if let declared = input.shape {
        let matches =
          declared.count == tensor.rank
          && zip(declared, tensor.shape).allSatisfy { $0.0 == nil || $0.0 == $0.1 }
        guard matches else {
          throw NeuralCoreError(
            .shapeMismatch,
            "input '\(input.name)' has shape \(tensor.shape), the model declares "
              + declared.map { $0.map(String.init) ?? "?" }.joined(separator: "x"))
        }
      }
      shapes[input.name] = tensor.shape
    }
    let key = inputs.map { shapes[$0.name] ?? [] }
    var checkout = cache.withLock { cache -> (ExecutionPlan, [Float])? in
      guard var entry = cache[key] else { return nil }
      let arena = entry.arenas.popLast() ?? []
      cache[key] = entry
      return (entry.plan, arena)
    }
    if checkout == nil {
      var builder = try PlanBuilder(graph: graph, inputShapes: shapes)
      let plan = try builder.build()
      cache.withLock { cache in
        if cache[key] == nil { cache[key] = CachedPlan(plan: plan, arenas: []) }
      }
      checkout = (plan, [])
    }
    guard case (let plan, var arena)? = checkout else { return [:] }
    let results = plan.run(feeds, arena: &arena, threads: options.threadCount)
    cache.withLock { cache in
      cache[key]?.arenas.append(arena)
    }
    return results
  }
}
