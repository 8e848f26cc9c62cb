import CNative

/// The int8 entry points of a kernel set on this CPU (`cnk_int8_kernels`): the matrix product,
/// depthwise convolution, addition, per-channel scaling, table lookup, quantization and channel
/// sums over quantized channels-last images.
///
/// Every variant (AVX-512 VNNI, AVX-VNNI, AVX2, NEON with and without dot product, portable)
/// computes bit-identical results: exact int32 sums and the same float requantization.
struct Int8Kernels: @unchecked Sendable {
  // Safety (@unchecked): the table is a constant of the C target, never written; its function
  // pointers are plain C functions.

  /// The variant's name, such as `avx512-vnni`.
  let name: String
  let qgemmPackedBytes: cnk_qgemm_packed_bytes_fn
  let qgemmPack: cnk_qgemm_pack_fn
  let qgemm: cnk_qgemm_fn
  let qdepthwisePackedBytes: cnk_qdepthwise_packed_bytes_fn
  let qdepthwisePack: cnk_qdepthwise_pack_fn
  let qdepthwise: cnk_qdepthwise_fn
  let qadd: cnk_qadd_fn
  let quantize: cnk_quantize_fn
  let lookup: cnk_lookup_fn
  let qscaleChannels: cnk_qscale_channels_fn
  let quantizeBlocked: cnk_quantize_blocked_fn
  let channelSums: cnk_channel_sums_fn

  /// The most taps a depthwise call takes.
  static let maximumDepthwiseTaps = Int(CNK_QDEPTHWISE_MAX_TAPS)

  /// Reads a table; `nil` for none or one missing an entry point.
  init?(_ table: UnsafePointer<cnk_int8_kernels>?) {
    guard let table = table?.pointee, let name = table.name,
      let qgemmPackedBytes = table.qgemm_packed_bytes, let qgemmPack = table.qgemm_pack,
      let qgemm = table.qgemm, let qdepthwisePackedBytes = table.qdepthwise_packed_bytes,
      let qdepthwisePack = table.qdepthwise_pack, let qdepthwise = table.qdepthwise,
      let qadd = table.qadd, let quantize = table.quantize, let lookup = table.lookup,
      let qscaleChannels = table.qscale_channels, let quantizeBlocked = table.quantize_blocked,
      let channelSums = table.channel_sums
    else { return nil }
    self.name = String(cString: name)
    self.qgemmPackedBytes = qgemmPackedBytes
    self.qgemmPack = qgemmPack
    self.qgemm = qgemm
    self.qdepthwisePackedBytes = qdepthwisePackedBytes
    self.qdepthwisePack = qdepthwisePack
    self.qdepthwise = qdepthwise
    self.qadd = qadd
    self.quantize = quantize
    self.lookup = lookup
    self.qscaleChannels = qscaleChannels
    self.quantizeBlocked = quantizeBlocked
    self.channelSums = channelSums
  }
}
