/// One operator NeuralCore runs: its domain, name and opsets, the attributes it accepts, and
/// how it is planned.
///
/// Entries are declared by family (`ConvolutionOperators`, `ShapeOperators`, ...) and collected
/// by ``OperatorRegistry``; adding an operator means adding one entry to its family.
struct OperatorEntry: Sendable {
  /// Adds a node's steps to a plan, or binds its outputs to folded values.
  typealias Planner =
    @Sendable (inout PlanBuilder, ImportedGraph.Node) throws(NeuralCoreError) -> Void

  /// Plans a node on blocked (NCHWxc) tensors, returning `false` when it must run on NCHW.
  typealias BlockedPlanner =
    @Sendable (inout PlanBuilder, ImportedGraph.Node, BlockedLayout) throws(NeuralCoreError)
    -> Bool

  /// Computes, while importing, the value of an operator that is a constant by definition.
  typealias ConstantFolder = @Sendable (NodeAttributes) throws(NeuralCoreError) -> Graph.Constant

  /// Plans a node on quantized channels-last images, returning `false` when it must run on
  /// NCHW tensors.
  typealias ChannelsLastPlanner =
    @Sendable (inout PlanBuilder, ImportedGraph.Node) throws(NeuralCoreError) -> Bool

  /// Computes, while importing, the outputs of a node whose inputs are all constants, with
  /// their element types; `nil` when the node must run (QuantizeLinear of a constant, or a
  /// DequantizeLinear of int8 weights, which then reach their convolution as float weights).
  typealias ConstantInputsFolder =
    @Sendable (NodeAttributes, _ inputs: [Graph.Constant?], _ types: [ElementType])
    throws(NeuralCoreError) -> [Folded]?

  /// A value computed while importing, with its element type.
  struct Folded: Sendable {
    var value: Graph.Constant
    var elementType: ElementType
  }

  /// The activation a node computes when it can be fused into a preceding convolution.
  typealias FusedActivation =
    @Sendable (ImportedGraph, ImportedGraph.Node) throws(NeuralCoreError) -> Activation?

  /// The activation `x * g(x)` is when a node of this operator computes the gate `g(x)`
  /// (Sigmoid gives SiLU, HardSigmoid with alpha 1/6 and beta 1/2 gives hard-swish), for
  /// gates that an element-wise product with their own input fuses into a preceding
  /// convolution.
  typealias GatedActivation =
    @Sendable (ImportedGraph.Node) throws(NeuralCoreError) -> Activation?

  /// Rewrites a pattern of several nodes around this operator's node at an index into fewer
  /// (GELU's erf form into one `Gelu`), given the graph's use counts; `true` when it did.
  typealias Rewrite =
    @Sendable (inout ImportedGraph, _ index: Int, _ uses: [String: Int]) throws(NeuralCoreError)
    -> Bool

  /// The operator set domain: `""` for standard ONNX (which `ai.onnx` also names).
  let domain: String
  /// The operator's name, as ONNX spells it (`Conv`, `ReduceMean`).
  let name: String
  /// The versions of the domain's operator set this entry runs.
  let opsets: OpsetRange
  /// The attributes the operator accepts; import refuses any other.
  let attributes: Set<String>
  /// Plans a node of this operator.
  let plan: Planner
  /// Plans a node on blocked tensors, for the few operators with blocked kernels.
  var planBlocked: BlockedPlanner?
  /// Folds the node into a graph constant while importing (`Constant`).
  var constantValue: ConstantFolder?
  /// The activation to fuse into a preceding convolution, for element-wise activations.
  var fusedActivation: FusedActivation?
  /// The pattern rewrite rooted at this operator's nodes.
  var rewrite: Rewrite?
  /// The activation of `x * g(x)` when this operator's node is the gate `g`.
  var gatedActivation: GatedActivation?
  /// Whether the operator multiplies its two inputs element-wise, so that `x * g(x)` with a
  /// gate `g` (``gatedActivation``) fuses into the convolution computing `x`.
  var multipliesGates = false
  /// Plans a node with the int8 kernels on quantized channels-last images.
  var planChannelsLast: ChannelsLastPlanner?
  /// Folds a node whose inputs are all constants while importing.
  var constantInputs: ConstantInputsFolder?
  /// Whether the operator reads integer tensors computed at run time (the quantized operators,
  /// and the reshapes that only rename a buffer); any other operator refuses them while planning.
  var readsIntegerTensors = false
  /// Whether each output element depends only on the input elements at its own position, with
  /// scalar constant operands broadcast: such nodes between an 8-bit tensor and its
  /// quantization fuse into one 256-entry table (`fuseQuantizedLookups`).
  var computesPerElement = false

  /// Declares an operator.
  ///
  /// - Parameters:
  ///   - name: The operator's name.
  ///   - domain: Its operator set domain, `""` for standard ONNX.
  ///   - opsets: The operator set versions it runs.
  ///   - attributes: The attributes it accepts.
  ///   - plan: Plans one of its nodes.
  init(
    _ name: String, domain: String = "", opsets: OpsetRange = .since(1),
    attributes: Set<String> = [], plan: @escaping Planner
  ) {
    self.name = name
    self.domain = domain
    self.opsets = opsets
    self.attributes = attributes
    self.plan = plan
  }

  /// This entry with a planner for blocked tensors.
  func blocked(_ planner: @escaping BlockedPlanner) -> OperatorEntry {
    var entry = self
    entry.planBlocked = planner
    return entry
  }

  /// This entry with the activation it fuses into a preceding convolution.
  func fusing(_ activation: @escaping FusedActivation) -> OperatorEntry {
    var entry = self
    entry.fusedActivation = activation
    return entry
  }

  /// This entry with a pattern rewrite rooted at its nodes.
  func rewriting(_ rewrite: @escaping Rewrite) -> OperatorEntry {
    var entry = self
    entry.rewrite = rewrite
    return entry
  }

  /// This entry as the gate `g` of `x * g(x)`, with the activation that product is.
  func gating(_ activation: @escaping GatedActivation) -> OperatorEntry {
    var entry = self
    entry.gatedActivation = activation
    return entry
  }

  /// This entry as the product `x * g(x)` of a gate and its input.
  func multiplyingGates() -> OperatorEntry {
    var entry = self
    entry.multipliesGates = true
    return entry
  }

  /// This entry folded while importing when every input is a constant.
  func foldingConstantInputs(_ folder: @escaping ConstantInputsFolder) -> OperatorEntry {
    var entry = self
    entry.constantInputs = folder
    return entry
  }

  /// This entry with a planner for quantized channels-last images.
  func channelsLast(_ planner: @escaping ChannelsLastPlanner) -> OperatorEntry {
    var entry = self
    entry.planChannelsLast = planner
    return entry
  }

  /// This entry allowed to read integer tensors computed at run time.
  func readingIntegerTensors() -> OperatorEntry {
    var entry = self
    entry.readsIntegerTensors = true
    return entry
  }

  /// This entry as an element-wise function, which quantized lookups may absorb.
  func perElement() -> OperatorEntry {
    var entry = self
    entry.computesPerElement = true
    return entry
  }

  /// This entry folded into a graph constant while importing.
  func folding(_ folder: @escaping ConstantFolder) -> OperatorEntry {
    var entry = self
    entry.constantValue = folder
    return entry
  }
}

/// The versions of an operator set an ``OperatorEntry`` runs, as ONNX Runtime's versioned and
/// unversioned kernel registrations state them.
struct OpsetRange: Sendable, Hashable, CustomStringConvertible {
  /// The first version.
  let first: Int
  /// The last version, or `nil` when every later version is run as well.
  let last: Int?

  /// Every version from `first` on: the operator has not changed since in ways NeuralCore
  /// handles differently.
  static func since(_ first: Int) -> OpsetRange { OpsetRange(first: first, last: nil) }

  /// The versions in `versions` only: a later version changed or removed the operator.
  static func versions(_ versions: ClosedRange<Int>) -> OpsetRange {
    OpsetRange(first: versions.lowerBound, last: versions.upperBound)
  }

  /// Whether `version` is one of the range's versions.
  func contains(_ version: Int) -> Bool {
    version >= first && version <= (last ?? .max)
  }

  /// The range in words: `opset 11 and later` or `opsets 7 to 9`.
  var description: String {
    guard let last else { return "opset \(first) and later" }
    return first == last ? "opset \(first)" : "opsets \(first) to \(last)"
  }
}
