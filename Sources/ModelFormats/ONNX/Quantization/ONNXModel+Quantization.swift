import NeuralCore

extension ONNXModel {
  /// The layers ``quantized(ranges:keepingFloat:channelMeans:)`` turns to int8, by name, in
  /// graph order: `Conv`, `Gemm` (without `transA`) and `MatMul` nodes whose weight is a float
  /// initializer.
  ///
  /// A layer's name is its node's name, or its first output's name when the node has none.
  public var quantizableLayers: [String] {
    QDQRewriter.layers(of: graph).map(\.name)
  }

  /// The inputs fed at run time, by name, in model order.
  public var inputNames: [String] { graph.runtimeInputs.map(\.name) }

  /// The outputs, by name, in model order.
  public var outputNames: [String] { graph.outputs.map(\.name) }

  /// The activations whose calibrated ranges ``quantized(ranges:keepingFloat:channelMeans:)``
  /// needs, by name: the inputs and outputs of every quantized operator when every quantizable
  /// layer is quantized, which covers any layers kept in float too.
  ///
  /// The list may hold graph inputs (see ``inputNames``); the other names are intermediate
  /// values that ``addingOutputs(_:)`` makes a session return.
  public var calibrationTensors: [String] {
    QDQRewriter(graph: graph, keepingFloat: []).quantizedTensors
  }

  /// A copy whose graph also outputs the given intermediate values, so a session returns
  /// them (for calibration); names that are already outputs or are graph inputs are skipped.
  ///
  /// - Parameter names: The values to return.
  /// - Returns: The model with the extra outputs after its own.
  public func addingOutputs(_ names: [String]) -> ONNXModel {
    var model = self
    var known = Set(graph.outputs.map(\.name)).union(graph.inputs.map(\.name))
    for name in names where known.insert(name).inserted {
      model.graph.outputs.append(ONNXValueInfo(name: name, type: nil))
    }
    return model
  }

  /// The model quantized statically to the standard QDQ form that ONNX Runtime runs.
  ///
  /// Each quantized layer reads its weight through `DequantizeLinear` of per-channel symmetric
  /// int8 values (zero point 0, axis 0 for `Conv` and `Gemm` with `transB = 1`, axis 1 for
  /// `MatMul` and `Gemm` with `transB = 0`) and its bias through `DequantizeLinear` of int32
  /// values with scale `input scale * weight scale` and zero point 0. Activations are asymmetric
  /// uint8: every input of a quantized operator (the layers, `Add`, `AveragePool`,
  /// `GlobalAveragePool`) and every output of one (a `Gemm` or `MatMul` output only when
  /// another quantized operator reads it) passes through a `QuantizeLinear` and
  /// `DequantizeLinear` pair that all its readers share. A `Relu`, or a `Clip` from 0, that
  /// alone reads a quantized operator's output is removed: that output's range, calibrated
  /// after the activation, clamps exactly as the activation did, as ONNX Runtime does.
  ///
  /// With `channelMeans`, each quantized layer's bias is corrected for its weights' rounding
  /// before it is quantized (bias correction): the mean error that the int8 weights make on
  /// inputs with those channel means is subtracted, so the layer's outputs keep the float
  /// layer's means. A layer without a constant bias is left uncorrected.
  ///
  /// - Parameters:
  ///   - ranges: The calibrated range of each name in ``calibrationTensors``.
  ///   - keepingFloat: Names from ``quantizableLayers`` to leave in float32.
  ///   - channelMeans: The mean of each channel of layer inputs from ``calibrationTensors``
  ///     (dimension 1 of the value), by name; none by default.
  /// - Returns: The quantized model; weights no node reads any more are dropped.
  /// - Throws: ``ModelFormatsError``: `invalidArgument` when no layer is left to quantize (a model
  ///   without `Conv`, `Gemm` or `MatMul` weights, or every layer kept in float) or the model
  ///   imports the default operator set before version 13 (per-channel `DequantizeLinear`
  ///   needs 13); `missingValue` naming an activation without a range.
  public func quantized(
    ranges: [String: ClosedRange<Float>], keepingFloat: Set<String> = [],
    channelMeans: [String: [Float]] = [:]
  ) throws(ModelFormatsError) -> ONNXModel {
    let version = opsetVersion(forDomain: "") ?? 0
    guard version >= 13 else {
      throw ModelFormatsError(
        .invalidArgument,
        "the model imports operator set \(version); quantizing needs 13 or later (per-channel "
          + "DequantizeLinear), so export it again with opset 13")
    }
    let rewriter = QDQRewriter(graph: graph, keepingFloat: keepingFloat)
    guard !rewriter.quantizedLayers.isEmpty else {
      let layers = QDQRewriter.layers(of: graph)
      throw ModelFormatsError(
        .invalidArgument,
        layers.isEmpty
          ? "the model has no Conv, Gemm or MatMul layer with constant float weights to quantize"
          : "every one of the model's \(layers.count) layers is kept in float, none is quantized")
    }
    var model = self
    model.graph = try rewriter.rewritten(ranges: ranges, channelMeans: channelMeans)
    return model
  }
}
