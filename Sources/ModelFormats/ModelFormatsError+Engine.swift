package import NeuralCore

extension ModelFormatsError {
  /// Wraps an error the engine raised for what a file describes, keeping it as ``underlying``.
  ///
  /// The engine's `unsupported`, `limitExceeded` and `missingValue` keep their meaning, and its
  /// `invalidGraph` (an attribute of the wrong type, a cycle) is a damaged file, since the graph
  /// came from one. Any other code (a shape mismatch, an argument out of range) becomes `code`:
  /// `invalidGraph` when the engine refuses a graph it cannot plan, `malformedFile` when the
  /// file's own values do not fit together.
  ///
  /// - Parameters:
  ///   - error: The engine's error.
  ///   - code: The code for an engine error without a counterpart here.
  package init(wrapping error: any EngineFailure, as code: Code = .invalidGraph) {
    let mapped: Code =
      switch error.code {
      case .unsupported: .unsupported
      case .limitExceeded: .limitExceeded
      case .missingValue: .missingValue
      case .invalidGraph: .malformedFile
      default: code
      }
    self.init(mapped, error.message, underlying: error)
  }

  /// Evaluates `body`, a call into the engine, and wraps an engine error it throws.
  ///
  /// - Parameters:
  ///   - code: The code for an engine error without a counterpart here, as in
  ///     ``init(wrapping:as:)``.
  ///   - body: The call into NeuralCore or NeuralLayers.
  /// - Returns: What `body` returns.
  /// - Throws: The engine's error wrapped by ``init(wrapping:as:)``.
  package static func converting<T>(
    as code: Code = .invalidGraph, _ body: @autoclosure () throws -> T
  ) throws(ModelFormatsError) -> T {
    do {
      return try body()
    } catch let failure as any EngineFailure {
      throw ModelFormatsError(wrapping: failure, as: code)
    } catch {
      // The engine throws only its own error; anything else is kept as it is.
      throw ModelFormatsError(code, "\(error)", underlying: error)
    }
  }
}

extension Tensor {
  /// Creates a tensor from a shape and elements read from a file, where elements that do not fill
  /// the shape mean the file is damaged.
  ///
  /// - Parameters:
  ///   - shape: The dimensions, each at least 0.
  ///   - scalars: The elements in row-major order.
  /// - Throws: ``ModelFormatsError`` with code `malformedFile` (the engine's `shapeMismatch` as
  ///   its underlying error) when the counts differ or a dimension is negative.
  init(fileShape shape: [Int], scalars: [Float]) throws(ModelFormatsError) {
    self = try ModelFormatsError.converting(
      as: .malformedFile, try Tensor(shape: shape, scalars: scalars))
  }
}
