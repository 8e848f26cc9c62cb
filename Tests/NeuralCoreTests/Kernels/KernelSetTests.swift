import Testing

@testable import NeuralCore

/// Choosing a kernel set: from the CPU, or from `VISION_CATALOG_KERNELS`.
struct KernelSetTests {
  @Test func withoutAnOverrideTheFastestSetIsChosen() throws {
    #expect(try KernelSet.choose(override: nil).get() == KernelSet.fastest)
    #expect(try KernelSet.choose(override: "").get() == KernelSet.fastest)
    #expect(KernelSet.available.first == .portable)
  }

  @Test(arguments: KernelSet.available)
  func everyAvailableSetCanBeForced(kernels: KernelSet) throws {
    #expect(try KernelSet.choose(override: kernels.rawValue).get() == kernels)
    #expect(try KernelSet.choose(override: kernels.rawValue.uppercased()).get() == kernels)
  }

  @Test func aSetThisCPULacksIsAnErrorNamingTheAvailableOnes() {
    let missing = KernelSet.allCases.filter { !KernelSet.available.contains($0) }
    #expect(!missing.isEmpty, "x86-64 lacks NEON and aarch64 lacks AVX2")
    for kernels in missing {
      #expect {
        try KernelSet.choose(override: kernels.rawValue).get()
      } throws: { error in
        guard let error = error as? NeuralCoreError else { return false }
        return error.code == .unsupported && error.message.contains("no \(kernels) kernels")
          && error.message.contains("portable")
      }
    }
  }

  @Test func anUnknownNameIsAnError() {
    #expect {
      try KernelSet.choose(override: "sse9").get()
    } throws: { error in
      (error as? NeuralCoreError)?.code == .unsupported
        && (error as? NeuralCoreError)?.message.contains("names no kernel set") == true
    }
  }

  @Test(arguments: KernelSet.available)
  func setsDescribeTheirGeometry(kernels: KernelSet) {
    let native = kernels.native
    #expect(native.name == kernels.rawValue)
    #expect(native.lanes == [.portable: 4, .avx512: 16][kernels, default: 8])
    #expect(native.columnTile % native.lanes == 0)
    #expect(kernels.rowTile == native.rowTile && kernels.columnTile == native.columnTile)
  }
}
