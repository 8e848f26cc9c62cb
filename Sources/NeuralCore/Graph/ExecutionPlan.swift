import Dispatch

/// A graph specialized to concrete input shapes: steps, buffer offsets and constants.
///
/// Built once per distinct set of input shapes. Every intermediate tensor lives at a fixed
/// offset of one arena; a buffer is reused as soon as its last reader has run, so a run
/// allocates nothing but its outputs.
struct ExecutionPlan: Sendable {
  /// Where a step reads a tensor.
  enum Operand: Sendable, Hashable {
    case buffer(Int)
    case constant(offset: Int)
  }

  /// One kernel invocation.
  struct Step: Sendable {
    var name: String
    var inputs: [Operand]
    var outputs: [Int]
    var execute:
      @Sendable (
        _ inputs: [UnsafePointer<Float>], _ outputs: [UnsafeMutablePointer<Float>], _ threads: Int
      ) -> Void
  }

  /// How a graph output is produced.
  enum Output: Sendable {
    case buffer(Int, shape: [Int])
    case constant(Tensor)
  }

  var steps: [Step]
  var constants: [Float]
  var bufferSizes: [Int]
  /// Each buffer's element type; an integer buffer holds one `Int32` per element slot.
  var bufferTypes: [ElementType]
  var bufferOffsets: [Int]
  var arenaSize: Int
  var inputBuffers: [String: Int]
  var outputs: [(name: String, value: Output)]

  /// Assigns arena offsets: each buffer takes the best-fitting free block when it is written
  /// and returns it after its last reader.
  static func assignOffsets(
    sizes: [Int], steps: [Step], inputs: [Int], keep: Set<Int>
  ) -> (offsets: [Int], arenaSize: Int) {
    var lastUse = [Int](repeating: -1, count: sizes.count)
    for (index, step) in steps.enumerated() {
      for case .buffer(let id) in step.inputs { lastUse[id] = index }
    }
    for id in keep { lastUse[id] = Int.max }
    var offsets = [Int](repeating: 0, count: sizes.count)
    var free: [(offset: Int, size: Int)] = []
    var end = 0
    func allocate(_ id: Int) {
      let size = max(sizes[id], 1)
      var best: Int?
      for (index, block) in free.enumerated() where block.size >= size {
        if let current = best, free[current].size <= block.size { continue }
        best = index
      }
      if let best {
        offsets[id] = free[best].offset
        free.remove(at: best)
      } else {
        offsets[id] = end
        end += (size + 15) / 16 * 16
      }
    }
    func release(_ id: Int) {
      free.append((offsets[id], (max(sizes[id], 1) + 15) / 16 * 16))
    }
    for id in inputs { allocate(id) }
    for id in inputs where lastUse[id] == -1 { release(id) }
    for (index, step) in steps.enumerated() {
      for id in step.outputs { allocate(id) }
      var released = Set<Int>()
      for case .buffer(let id) in step.inputs where lastUse[id] == index {
        if released.insert(id).inserted { release(id) }
      }
      for id in step.outputs where lastUse[id] == -1 { release(id) }
    }
    return (offsets, end)
  }

  /// Checks that a tensor fed to an integer input holds integers of its type.
  static func checkIntegers(
    _ tensor: Tensor, named name: String, as type: ElementType
  ) throws(NeuralCoreError) {
    guard let range = type.integerRange else { return }
    for value in tensor.scalars {
      guard let integer = Int32(exactly: value), range.contains(integer) else {
        throw NeuralCoreError(
          .invalidArgument,
          "input '\(name)' is \(type) and holds \(value), not an integer in \(range)")
      }
    }
  }

  /// Runs the plan with `arena` as scratch memory.
  ///
  /// Every copy across the arena's edge is checked by element count, not only by shape, so an
  /// input that does not fill its buffer, or a plan whose layout disagrees with itself, stops
  /// here instead of reading or writing outside the arena.
  ///
  /// - Throws: ``NeuralCoreError`` with code `missingValue` for an input the plan reads but
  ///   `inputs` lacks, `shapeMismatch` when an input's element count differs from its buffer's.
  func run(
    _ inputs: [String: Tensor], arena: inout [Float], threads: Int,
    stepTimes: UnsafeMutableBufferPointer<UInt64>? = nil
  ) throws(NeuralCoreError) -> [String: Tensor] {
    for (name, id) in inputBuffers {
      guard let tensor = inputs[name] else {
        throw NeuralCoreError(.missingValue, "input '\(name)' was not given")
      }
      guard tensor.count == bufferSizes[id] else {
        throw NeuralCoreError(
          .shapeMismatch,
          "input '\(name)' has \(tensor.count) elements, the plan's buffer holds \(bufferSizes[id])"
        )
      }
      try Self.checkIntegers(tensor, named: name, as: bufferTypes[id])
    }
    // assignOffsets places every buffer inside `arenaSize`; checked once per run because the
    // step kernels below write through raw pointers.
    precondition(
      bufferSizes.indices.allSatisfy { id in
        bufferOffsets[id] >= 0 && bufferSizes[id] >= 0
          && bufferOffsets[id] + bufferSizes[id] <= arenaSize
      }, "execution plan buffer outside the arena")
    if arena.count < arenaSize {
      arena = [Float](repeating: 0, count: arenaSize)
    }
    var results: [String: Tensor] = [:]
    var failure: NeuralCoreError?
    constants.withUnsafeBufferPointer { constantBuffer in
      arena.withUnsafeMutableBufferPointer { arenaBuffer in
        // Safety: offsets and sizes come from assignOffsets, so every buffer lies inside the
        // arena (checked above); constant offsets index the constant pool they were interned
        // into; each input copy is exactly its buffer's size (checked above).
        guard let base = arenaBuffer.baseAddress else { return }
        let constantBase = constantBuffer.baseAddress ?? UnsafePointer(base)
        for (name, id) in inputBuffers {
          guard let tensor = inputs[name] else { continue }
          if bufferTypes[id] != .float {
            let target = UnsafeMutableRawPointer(base + bufferOffsets[id])
            for (index, value) in tensor.scalars.enumerated() {
              target.storeBytes(of: Int32(value), toByteOffset: index * 4, as: Int32.self)
            }
            continue
          }
          tensor.scalars.withUnsafeBufferPointer { source in
            guard let from = source.baseAddress else { return }
            (base + bufferOffsets[id]).update(from: from, count: source.count)
          }
        }
        for (index, step) in steps.enumerated() {
          let start = stepTimes == nil ? 0 : DispatchTime.now().uptimeNanoseconds
          defer {
            if let stepTimes, index < stepTimes.count {
              stepTimes[index] += DispatchTime.now().uptimeNanoseconds - start
            }
          }
          let inputPointers = step.inputs.map { operand -> UnsafePointer<Float> in
            switch operand {
            case .buffer(let id): return UnsafePointer(base + bufferOffsets[id])
            case .constant(let offset): return constantBase + offset
            }
          }
          let outputPointers = step.outputs.map { base + bufferOffsets[$0] }
          step.execute(inputPointers, outputPointers, threads)
        }
        for (name, output) in outputs {
          switch output {
          case .constant(let tensor):
            results[name] = tensor
          case .buffer(let id, let shape):
            // An output reads as many elements as its shape says, and no more than its buffer.
            guard let count = Tensor.elementCount(of: shape), count <= bufferSizes[id] else {
              failure = NeuralCoreError(
                .shapeMismatch,
                "output '\(name)' of shape \(shape) does not fit its buffer of \(bufferSizes[id])")
              return
            }
            let start = base + bufferOffsets[id]
            let scalars =
              bufferTypes[id] == .float
              ? Array(UnsafeBufferPointer(start: start, count: count))
              : (0..<count).map { index in
                Float(
                  UnsafeRawPointer(start).load(fromByteOffset: index * 4, as: Int32.self))
              }
            do throws(NeuralCoreError) {
              results[name] = try Tensor(shape: shape, scalars: scalars)
            } catch {
              failure = error
              return
            }
          }
        }
      }
    }
    if let failure { throw failure }
    return results
  }
}
