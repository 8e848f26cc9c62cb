import CNative

/// One kernel set of the C target: its geometry and its entry points, read once from the
/// set's descriptor (`cnk_kernel_set`), each entry point checked to exist.
struct NativeKernels: @unchecked Sendable {
  // Safety (@unchecked): the descriptor is a constant in the C target that lives as long as the
  // process and is never written; the function pointers are plain C functions.

  /// The descriptor's name: `portable`, `avx2`, `avx512` or `neon`.
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
  let groupedBlocked: cnk_grouped_blocked_fn
  let globalAverageBlocked: cnk_global_average_blocked_fn
  let maxPoolBlocked: cnk_max_pool_blocked_fn
  let winogradInput: cnk_winograd_input_fn
  let winogradOutput: cnk_winograd_output_fn
  let activate: cnk_activate_fn
  let activateBlocked: cnk_activate_blocked_fn
  let softmax: cnk_softmax_fn
  let scaleBlocked: cnk_scale_blocked_fn
  let layerNorm: cnk_layer_norm_fn
  let packRows: cnk_pack_rows_fn
  let quantizeLinear: cnk_quantize_linear_fn
  let requantizeLinear: cnk_quantize_linear_fn
  let dequantizeLinear: cnk_dequantize_linear_fn
  let binary: cnk_binary_fn
  let planeMeans: cnk_plane_means_fn
  let dotHalf: cnk_dot_half_fn
  let dotInt8: cnk_dot_int8_fn
  let toHalf: cnk_to_half_fn
  let toInt8: cnk_to_int8_fn
  /// The set's best int8 variant on this CPU.
  let int8: Int8Kernels

  /// Reads a descriptor; `nil` for none (a set this CPU lacks) or one missing an entry point.
  init?(_ descriptor: UnsafePointer<cnk_kernel_set>?) {
    guard let table = descriptor?.pointee, let name = table.name,
      let gemmTile = table.gemm_tile, let packPositions = table.pack_positions,
      let pointwiseTile = table.pointwise_tile, let depthwise = table.depthwise,
      let rowTimesMatrix = table.row_times_matrix, let im2colPanels = table.im2col_panels,
      let pointwiseBlocked = table.pointwise_blocked,
      let depthwiseBlocked = table.depthwise_blocked,
      let convDirectBlocked = table.conv_direct_blocked,
      let groupedBlocked = table.grouped_blocked,
      let globalAverageBlocked = table.global_average_blocked,
      let maxPoolBlocked = table.max_pool_blocked, let winogradInput = table.winograd_input,
      let winogradOutput = table.winograd_output, let activate = table.activate,
      let activateBlocked = table.activate_blocked, let softmax = table.softmax,
      let scaleBlocked = table.scale_blocked, let layerNorm = table.layer_norm,
      let packRows = table.pack_rows, let quantizeLinear = table.quantize_linear,
      let requantizeLinear = table.requantize_linear,
      let dequantizeLinear = table.dequantize_linear, let binary = table.binary,
      let planeMeans = table.plane_means, let dotHalf = table.dot_half,
      let dotInt8 = table.dot_int8, let toHalf = table.to_half, let toInt8 = table.to_int8,
      let int8 = Int8Kernels(table.int8?()),
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
    self.groupedBlocked = groupedBlocked
    self.globalAverageBlocked = globalAverageBlocked
    self.maxPoolBlocked = maxPoolBlocked
    self.winogradInput = winogradInput
    self.winogradOutput = winogradOutput
    self.activate = activate
    self.activateBlocked = activateBlocked
    self.softmax = softmax
    self.scaleBlocked = scaleBlocked
    self.layerNorm = layerNorm
    self.packRows = packRows
    self.quantizeLinear = quantizeLinear
    self.requantizeLinear = requantizeLinear
    self.dequantizeLinear = dequantizeLinear
    self.binary = binary
    self.planeMeans = planeMeans
    self.dotHalf = dotHalf
    self.dotInt8 = dotInt8
    self.toHalf = toHalf
    self.toInt8 = toInt8
    self.int8 = int8
  }

  /// Applies `activation` in place to `count` values with this set's C kernel.
  func apply(_ activation: Activation, to values: UnsafeMutablePointer<Float>, count: Int) {
    guard activation != .identity, count > 0 else { return }
    var function = activation.native
    activate(&function, values, values, Int64(count))
  }

  /// Applies `function` to `count` values from `input` into `output` (which may be `input`) on
  /// up to `threads` threads.
  func activate(
    _ function: cnk_activation, _ input: UnsafePointer<Float>,
    _ output: UnsafeMutablePointer<Float>, count: Int, threads: Int
  ) {
    Parallel.forEachRows(count, length: 1, threads: threads) { start, values in
      var function = function
      activate(&function, input + start, output + start, Int64(values))
    }
  }
}
