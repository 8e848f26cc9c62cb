import CNative
import Foundation

/// Which micro-kernels a convolution or matrix product runs.
///
/// A plain Swift package cannot be built for a specific CPU, so NeuralCore's portable kernels
/// use `SIMD8` on baseline x86-64 (SSE, no FMA). The AVX-512 kernels live in the C target,
/// compiled with per-function target attributes, and are chosen when the CPU has AVX-512F.
/// Setting the environment variable `VISION_CATALOG_KERNELS=portable` forces the portable set.
enum KernelSet: Sendable, Equatable {
  /// Swift `SIMD8` kernels that run on any CPU.
  case portable
  /// AVX-512F kernels from the C target.
  case avx512

  /// The fastest set this CPU runs, decided once per process.
  static let active: KernelSet = {
    if let forced = getenv("VISION_CATALOG_KERNELS"), String(cString: forced) == "portable" {
      return .portable
    }
    return cnk_has_avx512() == 1 ? .avx512 : .portable
  }()

  /// Every set this CPU can run, for tests that compare them.
  static var available: [KernelSet] {
    cnk_has_avx512() == 1 ? [.portable, .avx512] : [.portable]
  }

  /// Rows of C one GEMM micro-kernel call computes: the height of a packed A panel.
  var rowTile: Int {
    switch self {
    case .portable: 4
    case .avx512: Int(CNK_GEMM_ROW_TILE)
    }
  }

  /// Columns of C one GEMM micro-kernel call computes: the width of a packed B panel.
  var columnTile: Int {
    switch self {
    case .portable: 8
    case .avx512: Int(CNK_GEMM_COLUMN_TILE)
    }
  }
}
