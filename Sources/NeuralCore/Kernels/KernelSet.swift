import CNative
import Foundation

/// Which micro-kernels convolutions, matrix products and the blocked layout run.
///
/// A plain Swift package cannot be built for a specific CPU, so the ``portable`` set is Swift
/// `SIMD8` code for baseline x86-64 (SSE, no FMA) or aarch64. The vector sets live in the C
/// target, compiled with per-function target attributes, each described by one C descriptor
/// (``NativeKernels``): its vector width, tile sizes and entry points. The fastest set the CPU
/// runs is chosen once per process; `VISION_CATALOG_KERNELS=portable|avx2|avx512|neon` overrides
/// the choice, and asking for a set the CPU lacks makes model loading throw.
enum KernelSet: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
  /// Swift `SIMD8` kernels that run on any CPU.
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

  /// The C descriptor of a vector set, or `nil` for ``portable`` and for a set this CPU or
  /// architecture lacks.
  var native: NativeKernels? { Self.descriptors[self] }

  /// The descriptors of the vector sets this CPU runs, read once.
  private static let descriptors: [KernelSet: NativeKernels] = {
    var found: [KernelSet: NativeKernels] = [:]
    found[.avx2] = NativeKernels(cnk_kernel_set_avx2())
    found[.avx512] = NativeKernels(cnk_kernel_set_avx512())
    found[.neon] = NativeKernels(cnk_kernel_set_neon())
    return found
  }()

  /// Every set this CPU runs, slowest first (``portable`` always).
  static let available: [KernelSet] = allCases.filter { $0 == .portable || $0.native != nil }

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
  var rowTile: Int { native?.rowTile ?? 4 }

  /// Columns of C one GEMM micro-kernel call computes: the width of a packed B panel.
  var columnTile: Int { native?.columnTile ?? 8 }
}

/// One vector kernel set of the C target: its geometry and its entry points, read once from the
/// set's descriptor (`cnk_kernel_set`), each entry point checked to exist.
struct NativeKernels: @unchecked Sendable {
  // Safety (@unchecked): the descriptor is a constant in the C target that lives as long as the
  // process and is never written; the function pointers are plain C functions.

  /// The descriptor's name: `avx2`, `avx512` or `neon`.
  let name: String
  /// Floats per vector, and channels per block of the blocked layout.
  let lanes: Int
  /// Rows of a GEMM micro-tile (packed A panel height).
  let rowTile: Int
  /// Columns of a GEMM micro-tile (packed B panel width).
  let columnTile: Int
  /// The blocked pointwise tilings for planes of a multiple of 7 positions and for any other.
  let pointwiseTilingSevens: cnk_blocked_tiling
  let pointwiseTilingOther: cnk_blocked_tiling
  let gemmTile: cnk_gemm_tile_fn
  let packPositions: cnk_pack_positions_fn
  let pointwiseTile: cnk_pointwise_tile_fn
  let depthwise: cnk_depthwise_fn
  let rowTimesMatrix: cnk_row_times_matrix_fn
  let im2colPanels: cnk_im2col_panels_fn
  let pointwiseBlocked: cnk_pointwise_blocked_fn
  let depthwiseBlocked: cnk_depthwise_blocked_fn
  let convDirectBlocked: cnk_conv_direct_blocked_fn
  let globalAverageBlocked: cnk_global_average_blocked_fn
  let maxPoolBlocked: cnk_max_pool_blocked_fn
  let winogradInput: cnk_winograd_input_fn
  let winogradOutput: cnk_winograd_output_fn

  /// Reads a descriptor; `nil` for none (a set this CPU lacks) or one missing an entry point.
  init?(_ descriptor: UnsafePointer<cnk_kernel_set>?) {
    guard let table = descriptor?.pointee, let name = table.name,
      let gemmTile = table.gemm_tile, let packPositions = table.pack_positions,
      let pointwiseTile = table.pointwise_tile, let depthwise = table.depthwise,
      let rowTimesMatrix = table.row_times_matrix, let im2colPanels = table.im2col_panels,
      let pointwiseBlocked = table.pointwise_blocked,
      let depthwiseBlocked = table.depthwise_blocked,
      let convDirectBlocked = table.conv_direct_blocked,
      let globalAverageBlocked = table.global_average_blocked,
      let maxPoolBlocked = table.max_pool_blocked, let winogradInput = table.winograd_input,
      let winogradOutput = table.winograd_output,
      table.lanes > 0, table.gemm_row_tile > 0, table.gemm_column_tile > 0
    else { return nil }
    self.name = String(cString: name)
    lanes = Int(table.lanes)
    rowTile = Int(table.gemm_row_tile)
    columnTile = Int(table.gemm_column_tile)
    pointwiseTilingSevens = table.pointwise_tiling_sevens
    pointwiseTilingOther = table.pointwise_tiling_other
    self.gemmTile = gemmTile
    self.packPositions = packPositions
    self.pointwiseTile = pointwiseTile
    self.depthwise = depthwise
    self.rowTimesMatrix = rowTimesMatrix
    self.im2colPanels = im2colPanels
    self.pointwiseBlocked = pointwiseBlocked
    self.depthwiseBlocked = depthwiseBlocked
    self.convDirectBlocked = convDirectBlocked
    self.globalAverageBlocked = globalAverageBlocked
    self.maxPoolBlocked = maxPoolBlocked
    self.winogradInput = winogradInput
    self.winogradOutput = winogradOutput
  }
}
