package import NeuralCore

/// An ordered collection of named tensors loaded from a PyTorch checkpoint (`.pth`).
///
/// Load one with ``init(contentsOf:limits:)``; both checkpoint layouts are read: the zip
/// layout of `torch.save` since PyTorch 1.6 (stored, uncompressed entries) and the legacy layout.
/// Every tensor is converted to float32. Give ``tensors`` to a layer's `loading(_:)` to put
/// the trained parameters into a network built in Swift.
package struct StateDict: Sendable, Hashable {
  /// The element types a checkpoint's storages can have.
  package enum ElementType: String, Sendable, Hashable {
    /// `torch.float32`.
    case float32
    /// `torch.float64`, rounded to float32 on load.
    case float64
    /// `torch.float16`, widened exactly.
    case float16
    /// `torch.bfloat16`, widened exactly.
    case bfloat16
    /// `torch.int64`, such as BatchNorm's `num_batches_tracked`; exact up to 2^24.
    case int64
    /// `torch.int32`.
    case int32
    /// `torch.int16`.
    case int16
    /// `torch.int8`.
    case int8
    /// `torch.uint8`.
    case uint8
    /// `torch.bool`, as 0 and 1.
    case bool
  }

  /// One named tensor.
  package struct Entry: Sendable, Hashable {
    /// The parameter or buffer name, such as `_conv_stem.weight`.
    package var name: String
    /// The values as float32, in the checkpoint's shape.
    package var tensor: Tensor
    /// The element type the checkpoint stored.
    package var elementType: ElementType

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - name: The parameter or buffer name.
    ///   - tensor: The values.
    ///   - elementType: The element type the checkpoint stored.
    package init(name: String, tensor: Tensor, elementType: ElementType) {
      self.name = name
      self.tensor = tensor
      self.elementType = elementType
    }
  }

  /// The entries in checkpoint order.
  package private(set) var entries: [Entry]
  private var indexByName: [String: Int]

  /// Creates a state dict from entries; a later entry replaces an earlier one of the same name.
  ///
  /// - Parameter entries: The named tensors in order.
  package init(entries: [Entry]) {
    self.entries = []
    self.indexByName = [:]
    for entry in entries {
      if let index = indexByName[entry.name] {
        self.entries[index] = entry
      } else {
        indexByName[entry.name] = self.entries.count
        self.entries.append(entry)
      }
    }
  }

  /// The tensors by name, as a layer's `loading(_:)` takes them.
  package var tensors: [String: Tensor] {
    Dictionary(entries.map { ($0.name, $0.tensor) }, uniquingKeysWith: { _, last in last })
  }

  /// The names in checkpoint order.
  package var names: [String] { entries.map(\.name) }

  /// The number of entries.
  package var count: Int { entries.count }

  /// The tensor with the given name.
  ///
  /// - Parameter name: The parameter or buffer name.
  /// - Returns: The tensor, or `nil` when the checkpoint has no such entry.
  package subscript(name: String) -> Tensor? {
    indexByName[name].map { entries[$0].tensor }
  }

  /// The tensor with the given name, or an error naming it.
  ///
  /// - Parameter name: The parameter or buffer name.
  /// - Returns: The tensor.
  /// - Throws: ``ModelFormatsError`` with code `missingValue` when there is no such entry.
  package func tensor(named name: String) throws(ModelFormatsError) -> Tensor {
    guard let tensor = self[name] else {
      throw ModelFormatsError(.missingValue, "the state dict has no entry '\(name)'")
    }
    return tensor
  }
}
