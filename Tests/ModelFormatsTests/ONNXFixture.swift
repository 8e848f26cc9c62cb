import ModelFormats

@testable import NeuralCore

/// Small ONNX models for tests: `y = Relu(x)` with one initializer described by the caller.
enum ONNXFixture {
  static func model(initializer: (inout ProtobufWriter) -> Void) -> [UInt8] {
    var model = ProtobufWriter()
    model.int(1, 8)
    model.message(8) {
      $0.string(1, "")
      $0.int(2, 13)
    }
    model.message(7) { graph in
      graph.message(1) { node in
        node.string(1, "x")
        node.string(2, "y")
        node.string(3, "relu")
        node.string(4, "Relu")
        node.message(5) { attribute in
          attribute.string(1, "alpha")
          attribute.float(2, 0.5)
          attribute.int(20, 1)
        }
      }
      graph.string(2, "fixture")
      graph.message(5, initializer)
      graph.message(11) { input in
        input.string(1, "x")
        input.message(2) { type in
          type.message(1) { tensorType in
            tensorType.int(1, 1)
            tensorType.message(2) { shape in
              shape.message(1) { $0.string(2, "N") }
              shape.message(1) { $0.int(1, 4) }
            }
          }
        }
      }
      graph.message(12) { $0.string(1, "y") }
    }
    return model.bytes
  }

  /// A float initializer `w` of shape [2, 2] stored in raw_data.
  static func validInitializer(_ tensor: inout ProtobufWriter) {
    tensor.int(1, 2)
    tensor.int(1, 2)
    tensor.int(2, 1)
    tensor.string(8, "w")
    tensor.bytes(
      9,
      [Float(1), 2, 3, 4].flatMap { v in
        (0..<4).map { UInt8(truncatingIfNeeded: v.bitPattern >> (8 * $0)) }
      })
  }
}
