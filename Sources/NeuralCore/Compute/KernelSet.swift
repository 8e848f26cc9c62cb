import CNative
import Foundation

/// Which micro-kernels convolutions, matrix products and the blocked layout run.
///
/// Every set lives in the C target, compiled from one kernel source per instruction set and
/// described by one C descriptor (``NativeKernels``): its vector width, tile sizes and entry
/// points. A plain Swift package cannot be built for a specific CPU, so the vector sets use
/// per-function target attributes, and the ``portable`` set is the same source over 4-float
/// vectors of baseline x86-64 (SSE2, no FMA) or aarch64. The fastest set the CPU runs is chosen
/// once per process; `VISION_CATALOG_KERNELS=portable|avx2|avx512|neon` overrides the choice,
/// and asking for a set the CPU lacks makes model loading throw.
enum KernelSet: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
  /// Baseline kernels (4-float vectors, no FMA) from the C target that run on any CPU.
  case portable
  /// AVX2 + FMA kernels (8-float vectors) from the C target.
  case avx2
  /// AVX-512F kernels (16-float vectors) from the C target.
  case avx512
  /// NEON kernels (fused multiply-add, two `float32x4` per vector) on aarch64.
  case neon

  /// The environment variable that overrides the choice.
  static let environmentVariable = "VISION_CATALOG_KERNELS"

  /// The set's name, as `VISION_CATALOG_KERNELS` takes it.
  var description: String { rawValue }

  /// The set's C descriptor.
  ///
  /// - Precondition: the set is one of ``available``.
  var native: NativeKernels {
    guard let descriptor = Self.descriptors[self] else {
      preconditionFailure("this CPU has no \(self) kernels")
    }
    return descriptor
  }

  /// The descriptors of the sets this CPU runs, read once.
  private static let descriptors: [KernelSet: NativeKernels] = {
    var found: [KernelSet: NativeKernels] = [:]
    found[.portable] = NativeKernels(cnk_kernel_set_portable())
    found[.avx2] = NativeKernels(cnk_kernel_set_avx2())
    found[.avx512] = NativeKernels(cnk_kernel_set_avx512())
    found[.neon] = NativeKernels(cnk_kernel_set_neon())
    return found
  }()

  /// Every set this CPU runs, slowest first (``portable`` always).
  static let available: [KernelSet] = allCases.filter { descriptors[$0] != nil }

  /// The value of `VISION_CATALOG_KERNELS` when the process started, or `nil`.
  private static let override = ProcessInfo.processInfo.environment[environmentVariable]

  /// The set this process runs: the override when it names a set this CPU has, else the fastest.
  static let selection: Result<KernelSet, NeuralCoreError> = choose(override: override)

  /// The set kernels use by default: ``selection`` or, when the override could not be honoured
  /// (model loading reports that as an error), the fastest set.
  static var active: KernelSet {
    (try? selection.get()) ?? fastest
  }

  /// The sets a test compares: the one `VISION_CATALOG_KERNELS` forces, or every set this CPU
  /// runs when it forces none.
  static var underTest: [KernelSet] {
    (override ?? "").isEmpty ? available : [active]
  }

  /// The fastest set this CPU runs.
  static var fastest: KernelSet { available.last ?? .portable }

  /// The set this process runs.
  ///
  /// - Throws: ``NeuralCoreError`` with code `unsupported` when `VISION_CATALOG_KERNELS` names
  ///   an unknown set or one this CPU lacks.
  static func selected() throws(NeuralCoreError) -> KernelSet {
    try selection.get()
  }

  /// The set an override names, checked against this CPU; the fastest without one.
  static func choose(override: String?) -> Result<KernelSet, NeuralCoreError> {
    guard let override, !override.isEmpty else { return .success(fastest) }
    let names = available.map(\.rawValue).joined(separator: ", ")
    guard let requested = KernelSet(rawValue: override.lowercased()) else {
      return .failure(
        NeuralCoreError(
          .unsupported,
          "\(environmentVariable)=\(override) names no kernel set; this CPU runs \(names)"))
    }
    guard available.contains(requested) else {
      return .failure(
        NeuralCoreError(
          .unsupported,
          "\(environmentVariable)=\(override): this CPU has no \(requested) kernels; it runs \(names)"
        ))
    }
    return .success(requested)
  }

  /// Rows of C one GEMM micro-kernel call computes: the height of a packed A panel.
  var rowTile: Int { native.rowTile }

  /// Columns of C one GEMM micro-kernel call computes: the width of a packed B panel.
  var columnTile: Int { native.columnTile }
}
