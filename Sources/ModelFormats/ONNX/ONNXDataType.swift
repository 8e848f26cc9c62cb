package import NeuralCore

/// An ONNX tensor element type: the engine's element type, whose raw values are ONNX's.
package typealias ONNXDataType = ElementType
