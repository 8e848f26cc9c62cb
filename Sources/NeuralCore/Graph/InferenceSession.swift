import Foundation

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

  /// The kernel set the session's convolutions and matrix products run: `portable`, `avx2`,
  /// `avx512` or `neon`.
  ///
  /// The fastest set the CPU supports, unless `VISION_CATALOG_KERNELS` names another.
  public var kernelSet: String { imported.kernels.rawValue }

  /// The kernel set new sessions run: the fastest this CPU supports, or the one
  /// `VISION_CATALOG_KERNELS` (`portable`, `avx2`, `avx512` or `neon`) names.
  ///
  /// - Throws: ``NeuralCoreError`` with code `unsupported`, naming the sets this CPU runs, when
  ///   the variable names an unknown set or one this CPU lacks; loading a model throws the same.
  public static func selectedKernelSet() throws(NeuralCoreError) -> String {
    try KernelSet.selected().rawValue
  }

  /// The ONNX operators (default domain) a session can run.
  public static var supportedOperators: Set<String> { ImportedGraph.supportedOperators }

  let imported: ImportedGraph
  private let cache = Locked<[[[Int]]: CachedPlan]>([:])

  private struct CachedPlan: Sendable {
    var plan: ExecutionPlan
    var arenas: [[Float]]
  }

  /// Loads a graph.
  ///
  /// The `ModelFormats` module makes graphs from ONNX and Core ML files, and adds initializers
  /// that take a parsed model or a file.
  ///
  /// - Parameters:
  ///   - graph: The network.
  ///   - options: Thread count and other settings.
  /// - Throws: ``NeuralCoreError`` with code `unsupported` naming the node and operator for an
  ///   operator or attribute NeuralCore does not run, or when `VISION_CATALOG_KERNELS` asks for
  ///   a kernel set this CPU lacks; `invalidGraph` for an inconsistent graph.
  package convenience init(graph: Graph, options: SessionOptions = SessionOptions())
    throws(NeuralCoreError)
  {
    try self.init(graph: graph, options: options, kernels: KernelSet.selected())
  }

  /// Loads a graph for the given kernel set (tests compare the sets this way).
  init(graph: Graph, options: SessionOptions, kernels: KernelSet) throws(NeuralCoreError) {
    imported = try ImportedGraph(graph: graph, kernels: kernels)
    inputs = imported.inputs
    outputs = imported.outputs
    self.options = options
    if let shapes = Self.declaredShapes(inputs) {
      var builder = try PlanBuilder(graph: imported, inputShapes: shapes)
      let plan = try builder.build()
      cache.withLock {
        $0[inputs.map { shapes[$0.name] ?? [] }] = CachedPlan(plan: plan, arenas: [])
      }
    }
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
  ///   shape contradicts the declaration or the graph. A tensor always holds as many elements as
  ///   its shape says, and the run checks each input's element count against the buffer it is
  ///   copied into, so no feed can make a run read or write outside its memory.
  public func run(_ feeds: [String: Tensor]) throws(NeuralCoreError) -> [String: Tensor] {
    try run(feeds, threadCount: options.threadCount, stepTimes: nil)
  }

  /// Runs the network with at most `threadCount` threads instead of the session's count, for an
  /// executor that shares the cores between several runs.
  ///
  /// - Parameters:
  ///   - feeds: One tensor per input name.
  ///   - threadCount: The threads this run may use; at least 1, at most the session's count.
  /// - Returns: Every model output by name.
  /// - Throws: ``NeuralCoreError`` as ``run(_:)`` does.
  package func run(_ feeds: [String: Tensor], threadCount: Int) throws(NeuralCoreError)
    -> [String: Tensor]
  {
    try run(
      feeds, threadCount: min(options.threadCount, max(1, threadCount)), stepTimes: nil)
  }

  /// Runs the network repeatedly and reports the time each step took, for finding hot spots.
  ///
  /// Steps are the kernels left after optimization (a convolution includes its folded
  /// BatchNormalization and fused activation) and are named after their ONNX node.
  /// - Parameters:
  ///   - feeds: One tensor per input name.
  ///   - runs: How many runs to time; at least 1.
  /// - Returns: One entry per step in execution order, with the mean time per run.
  /// - Throws: ``NeuralCoreError`` as ``run(_:)`` does.
  package func profile(
    _ feeds: [String: Tensor], runs: Int = 10
  ) throws(NeuralCoreError) -> [StepTiming] {
    let (key, plan, arena) = try plan(for: feeds)
    cache.withLock { $0[key]?.arenas.append(arena) }
    let names = plan.steps.map(\.name)
    var totals = [UInt64](repeating: 0, count: names.count)
    for _ in 0..<max(runs, 1) {
      try totals.withUnsafeMutableBufferPointer { buffer throws(NeuralCoreError) in
        _ = try run(feeds, threadCount: options.threadCount, stepTimes: buffer)
      }
    }
    return zip(names, totals).map { name, total in
      StepTiming(name: name, milliseconds: Double(total) / 1e6 / Double(max(runs, 1)))
    }
  }

  private func run(
    _ feeds: [String: Tensor], threadCount: Int, stepTimes: UnsafeMutableBufferPointer<UInt64>?
  ) throws(NeuralCoreError) -> [String: Tensor] {
    let (key, plan, arena) = try plan(for: feeds)
    var scratch = arena
    let outcome = Result { () throws(NeuralCoreError) in
      try plan.run(feeds, arena: &scratch, threads: threadCount, stepTimes: stepTimes)
    }
    cache.withLock { cache in
      // A burst of concurrent runs must not leave one arena per caller behind.
      if let count = cache[key]?.arenas.count, count < Self.keptArenaCount {
        cache[key]?.arenas.append(scratch)
      }
    }
    return try outcome.get()
  }

  /// The most arenas kept per input shape for later runs.
  private static let keptArenaCount = max(2, ProcessInfo.processInfo.activeProcessorCount)

  /// The plan for the feeds' shapes (built on first use) and a free arena for it.
  private func plan(
    for feeds: [String: Tensor]
  ) throws(NeuralCoreError) -> (key: [[Int]], plan: ExecutionPlan, arena: [Float]) {
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
      var builder = try PlanBuilder(graph: imported, inputShapes: shapes)
      let plan = try builder.build()
      cache.withLock { cache in
        if cache[key] == nil { cache[key] = CachedPlan(plan: plan, arenas: []) }
      }
      checkout = (plan, [])
    }
    guard let (plan, arena) = checkout else {
      throw NeuralCoreError(.missingValue, "no plan for input shapes \(key)")
    }
    return (key, plan, arena)
  }
}
