import Foundation
import ModelFormats
import NeuralCore
import TestSupport
import Testing

/// The small ML Programs coremltools converts (`write_small_ml_programs` in
/// `Scripts/coreml-fixtures/generate.py`): a seeded convolution, BatchNorm, ReLU, pooling and
/// dense network on a 3 x 32 x 32 input, with FP32 and FP16 weights.
enum SmallMLProgram {
  /// A package, `fp32` or `fp16`.
  static func package(_ precision: String) -> URL {
    CoreMLFixtures.root.appendingPathComponent("small_cnn-mlprogram-\(precision).mlpackage")
  }

  /// PyTorch's float32 values of one parameter (`conv2.weight`, `fc.bias`, ...).
  static func weights(_ name: String) throws -> [Float] {
    let url = CoreMLFixtures.root.appendingPathComponent("small_cnn-mlprogram.\(name).npy")
    return try NPYFile.read(contentsOfFile: url.path).scalars
  }

  /// Whether both packages were generated.
  static var isAvailable: Bool {
    ["fp32", "fp16"].allSatisfy {
      FileManager.default.fileExists(
        atPath: package($0).appendingPathComponent("Manifest.json").path)
    }
  }

  /// Why the fixture tests are skipped.
  static var skipReason: String {
    "no small ML Program fixtures in \(CoreMLFixtures.root.path) (run "
      + "Scripts/coreml-fixtures/generate.sh): skipped"
  }

  /// The operations other than `const`, in program order, that both packages hold.
  static let computeOperations = [
    "conv", "relu", "max_pool", "conv", "relu", "reduce_mean", "reshape", "linear",
  ]
}

/// Reading `.mlpackage` folders: real packages read into the program and weights coremltools
/// wrote, and damaged or hostile packages, blob files and programs end in a `ModelFormatsError`
/// that names the problem.
struct MLProgramReaderTests {
  // MARK: Real packages

  @Test(
    .enabled(if: SmallMLProgram.isAvailable, Comment(rawValue: SmallMLProgram.skipReason)),
    arguments: ["fp32", "fp16"])
  func readsTheConvertedProgram(_ precision: String) throws {
    let package = try MLPackage(contentsOf: SmallMLProgram.package(precision))
    #expect(package.program.version == 1)
    #expect(package.specificationVersion >= 7, "\(package.specificationVersion)")
    let function = try #require(package.program.functions["main"])
    let block = try #require(function.block)
    #expect(function.inputs.map(\.name) == ["input"])
    if case .tensor(let input)? = function.inputs.first?.type {
      #expect(input.shape == [1, 3, 32, 32])
    } else {
      Issue.record("the input is not a tensor: \(String(describing: function.inputs.first))")
    }
    #expect(block.outputs == ["logits"])
    let types = block.operations.map(\.type).filter { $0 != "const" }
    #expect(types == SmallMLProgram.computeOperations)
    let conv = try #require(block.operations.first { $0.type == "conv" })
    #expect(
      Set(conv.inputs.keys)
        == ["x", "weight", "bias", "strides", "pad_type", "pad", "dilations", "groups"])
    func constant(_ name: String) -> MILValue.Storage? {
      block.operations.first { $0.type == "const" && $0.outputs.first?.name == name }?
        .attributes["val"]?.storage
    }
    #expect(constant("input_1_pad_0") == .immediate(.tensor(.ints([1, 1, 1, 1]))))
    #expect(constant("input_1_pad_type_0") == .immediate(.tensor(.strings(["custom"]))))
    #expect(constant("input_3_ceil_mode_0") == .immediate(.tensor(.bools([false]))))
    if case .name(let name)? = conv.inputs["x"]?.bindings.first {
      #expect(name == "input" || name.hasPrefix("input"))
    } else {
      Issue.record("conv's x is not a name: \(String(describing: conv.inputs["x"]))")
    }
  }

  @Test(.enabled(if: SmallMLProgram.isAvailable, Comment(rawValue: SmallMLProgram.skipReason)))
  func fp32BlobsArePyTorchsWeightsExactly() throws {
    let package = try MLPackage(contentsOf: SmallMLProgram.package("fp32"))
    for (constant, parameter) in [
      ("conv2_weight", "conv2.weight"), ("conv2_bias", "conv2.bias"),
      ("fc_weight", "fc.weight"), ("fc_bias", "fc.bias"),
    ] {
      let stored = try Self.blob(named: constant, in: package)
      #expect(stored == (try SmallMLProgram.weights(parameter)), "\(constant)")
    }
  }

  @Test(.enabled(if: SmallMLProgram.isAvailable, Comment(rawValue: SmallMLProgram.skipReason)))
  func fp16BlobsArePyTorchsWeightsRoundedToHalf() throws {
    let package = try MLPackage(contentsOf: SmallMLProgram.package("fp16"))
    for (constant, parameter) in [
      ("conv2_weight_to_fp16", "conv2.weight"), ("conv2_bias_to_fp16", "conv2.bias"),
      ("fc_weight_to_fp16", "fc.weight"), ("fc_bias_to_fp16", "fc.bias"),
    ] {
      let stored = try Self.blob(named: constant, in: package)
      let reference = try SmallMLProgram.weights(parameter)
      #expect(stored.count == reference.count, "\(constant)")
      // Rounding to half precision moves a value by at most half a unit in its last place:
      // 2^-11 relative for normal values, 2^-25 absolute among the subnormals.
      let worst =
        zip(stored, reference).map { stored, value in
          abs(stored - value) / max(abs(value) * 0x1p-11, 0x1p-25)
        }.max() ?? .infinity
      #expect(worst <= 1, "\(constant): \(worst) half-ulps from PyTorch's weights")
      #expect(stored != reference, "\(constant): the FP16 file holds FP32 values")
    }
  }

  @Test(
    .enabled(if: SmallMLProgram.isAvailable, Comment(rawValue: SmallMLProgram.skipReason)),
    arguments: ["fp32", "fp16"])
  func everyBlobReadsWithTheCountItsTypeGives(_ precision: String) throws {
    let package = try MLPackage(contentsOf: SmallMLProgram.package(precision))
    let block = try #require(package.program.functions["main"]?.block)
    var files: [String: MILBlobFile] = [:]
    var count = 0
    for operation in block.operations where operation.type == "const" {
      let value = try #require(operation.attributes["val"], "\(operation.outputs)")
      guard case .blobFile(let name, let offset) = value.storage else { continue }
      guard case .tensor(let type)? = value.type, let shape = type.shape else {
        Issue.record("\(operation.outputs): a blob without a tensor type")
        continue
      }
      let file = try files[name] ?? package.blobFile(named: name)
      files[name] = file
      let values = try file.floats(at: offset, count: shape.reduce(1, *))
      #expect(values.allSatisfy { $0.isFinite })
      count += 1
    }
    #expect(count >= 4)
    let names = block.operations.filter { $0.type != "const" }.map { operation in
      "\(operation.type)(\(operation.inputs.keys.sorted().joined(separator: ", ")))"
    }
    print("ML Program \(precision): \(count) blobs; \(names.joined(separator: "; "))")
  }

  @Test(
    .enabled(
      if: FileManager.default.fileExists(
        atPath: CoreMLFixtures.root.appendingPathComponent(
          "mobilenet_v2-mlprogram.mlpackage/Manifest.json"
        ).path),
      Comment(rawValue: CoreMLFixtures.skipReason)))
  func readsAConvertedClassifierPackage() throws {
    let package = try MLPackage(
      contentsOf: CoreMLFixtures.root.appendingPathComponent("mobilenet_v2-mlprogram.mlpackage"))
    let block = try #require(package.program.functions["main"]?.block)
    var counts: [String: Int] = [:]
    var weights = 0
    let file = try package.blobFile(named: "@model_path/weights/weight.bin")
    for operation in block.operations {
      counts[operation.type, default: 0] += 1
      guard let value = operation.attributes["val"],
        case .blobFile(let name, let offset) = value.storage
      else { continue }
      #expect(name == "@model_path/weights/weight.bin")
      guard case .tensor(let type)? = value.type, let shape = type.shape else {
        Issue.record("\(operation.outputs): a blob without a tensor type")
        continue
      }
      weights += try file.floats(at: offset, count: shape.reduce(1, *)).count
    }
    #expect(counts["conv"] == 52, "\(counts)")
    // MobileNet v2's 3.5 million parameters, BatchNorm folded into the convolutions.
    #expect((3_400_000...3_600_000).contains(weights), "\(weights)")
    print("mobilenet_v2 ML Program: \(weights) weights; \(counts.sorted { $0.key < $1.key })")
  }

  /// The float values of the `const` whose output is `name`, read from its blob file.
  static func blob(named name: String, in package: MLPackage) throws -> [Float] {
    let block = try #require(package.program.functions["main"]?.block)
    let constant = try #require(
      block.operations.first { $0.type == "const" && $0.outputs.first?.name == name }, "\(name)")
    let value = try #require(constant.attributes["val"])
    guard case .blobFile(let file, let offset) = value.storage,
      case .tensor(let type)? = value.type, let shape = type.shape
    else {
      Issue.record("\(name) is not a blob: \(value)")
      return []
    }
    return try package.blobFile(named: file).floats(at: offset, count: shape.reduce(1, *))
  }

  // MARK: Blob files

  /// A blob file with one blob: a header, one metadata record at 64 and its data at 128.
  static func blobFile(
    dataType: UInt32 = 2, payload: [UInt8], sentinel: UInt32 = 0xDEAD_BEEF,
    size: UInt64? = nil, dataOffset: UInt64 = 128, count: UInt32 = 1, version: UInt32 = 2
  ) -> [UInt8] {
    func little<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
      (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    var bytes = little(count) + little(version)
    bytes += [UInt8](repeating: 0, count: 64 - bytes.count)
    bytes +=
      little(sentinel) + little(dataType) + little(size ?? UInt64(payload.count))
      + little(dataOffset)
    bytes += [UInt8](repeating: 0, count: 128 - bytes.count)
    return bytes + payload
  }

  static func floatBytes(_ values: [Float]) -> [UInt8] {
    values.flatMap { value in
      (0..<4).map { UInt8(truncatingIfNeeded: value.bitPattern >> (8 * $0)) }
    }
  }

  @Test func readsFloatAndHalfBlobsExactly() throws {
    let floats: [Float] = [1.5, -0.0, .infinity, 0x1p-149]
    let file = try MILBlobFile(bytes: Self.blobFile(payload: Self.floatBytes(floats)))
    #expect(file.blobCount == 1)
    #expect(try file.floats(at: 64) == floats)
    #expect(try file.floats(at: 64, count: 4) == floats)
    // 1, -infinity, a NaN, the smallest subnormal 2^-24, the largest half 65504.
    let half: [UInt16] = [0x3C00, 0xFC00, 0x7E00, 0x0001, 0x7BFF]
    let bytes = half.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    let values = try MILBlobFile(bytes: Self.blobFile(dataType: 1, payload: bytes)).floats(at: 64)
    #expect(values.count == 5)
    #expect(values[0] == 1 && values[1] == -.infinity && values[2].isNaN)
    #expect(values[3] == 0x1p-24 && values[4] == 65504)
  }

  @Test func unpacksIntegerAndSubByteBlobs() throws {
    func integers(_ type: UInt32, _ payload: [UInt8], count: Int? = nil) throws -> [Int] {
      try MILBlobFile(bytes: Self.blobFile(dataType: type, payload: payload))
        .integers(at: 64, count: count)
    }
    #expect(try integers(4, [0x80, 0x7F, 0xFF]) == [-128, 127, -1])
    #expect(try integers(3, [0x80, 0x7F, 0xFF]) == [128, 127, 255])
    #expect(try integers(6, [0x00, 0x80, 0xFF, 0x7F]) == [-32768, 32767])
    #expect(try integers(14, [0xFF, 0xFF, 0xFF, 0xFF]) == [-1])
    #expect(try integers(15, [0xFF, 0xFF, 0xFF, 0xFF]) == [4_294_967_295])
    // Sub-byte elements fill each byte from its least significant bit.
    #expect(try integers(11, [0x21, 0x43]) == [1, 2, 3, 4])
    #expect(try integers(8, [0xF8, 0x07]) == [-8, -1, 7, 0])
    #expect(try integers(9, [0b1010_0101], count: 8) == [1, 0, 1, 0, 0, 1, 0, 1])
    #expect(try integers(10, [0b1110_0100]) == [0, 1, 2, 3])
    // Three-bit elements cross byte boundaries: 0...7 packed into 3 bytes.
    #expect(try integers(12, [0x88, 0xC6, 0xFA], count: 8) == Array(0...7))
    #expect(try integers(13, [0xFF, 0x0F, 0x00], count: 3) == [63, 63, 0])
  }

  @Test func refusesDamagedBlobFiles() throws {
    let valid = Self.blobFile(payload: Self.floatBytes([1, 2, 3, 4]))
    Self.refuses(.malformedFile, "64-byte header") {
      _ = try MILBlobFile(bytes: Array(valid[..<40]))
    }
    Self.refuses(.malformedFile, "past the end") {
      _ = try MILBlobFile(bytes: Array(valid[..<140])).floats(at: 64)
    }
    Self.refuses(.malformedFile, "counts 1 blobs, but 100 bytes hold at most 0") {
      _ = try MILBlobFile(bytes: Array(valid[..<100]))
    }
    Self.refuses(.malformedFile, "sentinel 0xdeadbeaf") {
      _ = try MILBlobFile(bytes: Self.blobFile(payload: [0, 0, 0, 0], sentinel: 0xDEAD_BEAF))
        .floats(at: 64)
    }
    Self.refuses(.malformedFile, "outside") {
      _ = try MILBlobFile(bytes: valid).floats(at: 1 << 40)
    }
    Self.refuses(.malformedFile, "outside") { _ = try MILBlobFile(bytes: valid).floats(at: .max) }
    Self.refuses(.malformedFile, "outside") { _ = try MILBlobFile(bytes: valid).floats(at: 0) }
    Self.refuses(.malformedFile, "aligned") { _ = try MILBlobFile(bytes: valid).floats(at: 65) }
    Self.refuses(.malformedFile, "past the end") {
      _ = try MILBlobFile(bytes: Self.blobFile(payload: [0, 0, 0, 0], size: .max)).floats(at: 64)
    }
    Self.refuses(.malformedFile, "past the end") {
      _ = try MILBlobFile(bytes: Self.blobFile(payload: [0, 0, 0, 0], dataOffset: .max - 2))
        .floats(at: 64)
    }
    Self.refuses(.malformedFile, "inside or before its metadata") {
      _ = try MILBlobFile(bytes: Self.blobFile(payload: [0, 0, 0, 0], dataOffset: 64))
        .floats(at: 64)
    }
    Self.refuses(.malformedFile, "counts 4294967295 blobs") {
      _ = try MILBlobFile(bytes: Self.blobFile(payload: [], count: .max))
    }
    Self.refuses(.unsupported, "version 1") {
      _ = try MILBlobFile(bytes: Self.blobFile(payload: [], version: 1))
    }
    Self.refuses(.unsupported, "unknown data type 99") {
      _ = try MILBlobFile(bytes: Self.blobFile(dataType: 99, payload: [0, 0, 0, 0])).floats(at: 64)
    }
    Self.refuses(.malformedFile, "not the 20") {
      _ = try MILBlobFile(bytes: valid).floats(at: 64, count: 5)
    }
    Self.refuses(.limitExceeded, "above the limit") {
      _ = try MILBlobFile(bytes: valid).floats(at: 64, count: Int.max)
    }
    Self.refuses(.malformedFile, "not integers") {
      _ = try MILBlobFile(bytes: valid).integers(at: 64)
    }
    Self.refuses(.malformedFile, "not floats") {
      _ = try MILBlobFile(bytes: Self.blobFile(dataType: 3, payload: [1])).floats(at: 64)
    }
    Self.refuses(.limitExceeded, "above the limit") {
      _ = try MILBlobFile(bytes: valid, limits: ImportLimits(maximumFileBytes: 100))
    }
  }

  // MARK: Programs

  /// A `Model` holding an ML Program: `main(x) { w = const(blob at 64); y = relu(x) }`, with
  /// `build` adding fields to the block.
  static func model(
    opset: String = "CoreML5", blobName: String = "@model_path/weights/weight.bin",
    block build: (inout ProtobufWriter) -> Void = { _ in }
  ) -> [UInt8] {
    func tensorType(_ writer: inout ProtobufWriter, shape: [Int64]) {
      writer.message(1) { tensor in
        tensor.int(1, 11)
        tensor.int(2, Int64(shape.count))
        for size in shape {
          tensor.message(3) { dimension in dimension.message(1) { $0.int(1, size) } }
        }
      }
    }
    var model = ProtobufWriter()
    model.int(1, 7)
    model.message(502) { program in
      program.int(1, 1)
      program.message(2) { entry in
        entry.string(1, "main")
        entry.message(2) { function in
          function.message(1) { input in
            input.string(1, "x")
            input.message(2) { tensorType(&$0, shape: [1, 4]) }
          }
          function.string(2, opset)
          function.message(3) { specialization in
            specialization.string(1, "CoreML5")
            specialization.message(2) { block in
              block.string(2, "y")
              block.message(3) { operation in
                operation.string(1, "const")
                operation.message(3) { output in
                  output.string(1, "w")
                  output.message(2) { tensorType(&$0, shape: [4]) }
                }
                operation.message(5) { attribute in
                  attribute.string(1, "val")
                  attribute.message(2) { value in
                    value.message(2) { tensorType(&$0, shape: [4]) }
                    value.message(5) { blob in
                      blob.string(1, blobName)
                      blob.int(2, 64)
                    }
                  }
                }
              }
              block.message(3) { operation in
                operation.string(1, "relu")
                operation.message(2) { input in
                  input.string(1, "x")
                  input.message(2) { argument in argument.message(1) { $0.string(1, "x") } }
                }
                operation.message(3) { $0.string(1, "y") }
              }
              build(&block)
            }
          }
        }
      }
    }
    return model.bytes
  }

  static func refuses(
    _ code: ModelFormatsError.Code, _ phrase: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
  ) {
    let error = #expect(throws: ModelFormatsError.self, sourceLocation: sourceLocation) {
      try body()
    }
    #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(
      error?.message.contains(phrase) == true, "\(String(describing: error))",
      sourceLocation: sourceLocation)
  }

  @Test func decodesAHandWrittenProgram() throws {
    let (version, program) = try MLPackage.program(serializedModel: Self.model())
    #expect(version == 7)
    let block = try #require(program.functions["main"]?.block)
    #expect(block.operations.map(\.type) == ["const", "relu"])
    #expect(block.outputs == ["y"])
    let value = try #require(block.operations[0].attributes["val"])
    #expect(value.storage == .blobFile(fileName: "@model_path/weights/weight.bin", offset: 64))
    #expect(
      value.type == .tensor(MILTensorType(dataType: .float32, rank: 1, dimensions: [.constant(4)])))
    #expect(block.operations[1].inputs["x"] == MILArgument([.name("x")]))
  }

  @Test func refusesHostilePrograms() throws {
    Self.refuses(.unsupported, "not an ML Program") {
      _ = try MLPackage.program(serializedModel: [0x08, 0x07])
    }
    Self.refuses(.malformedFile, "no block for its opset 'CoreML9'") {
      _ = try MLPackage.program(serializedModel: Self.model(opset: "CoreML9"))
    }
    // An operation whose nested block holds an operation whose nested block ... 200 deep.
    let deep = Self.model { block in
      func nest(_ writer: inout ProtobufWriter, _ depth: Int) {
        writer.message(3) { operation in
          operation.string(1, "cond")
          if depth > 0 { operation.message(4) { nest(&$0, depth - 1) } }
        }
      }
      nest(&block, 200)
    }
    Self.refuses(.limitExceeded, "nested deeper than 64") {
      _ = try MLPackage.program(serializedModel: deep)
    }
    // A length prefix of 2^40 bytes for the block's next operation.
    let huge = Self.model { block in
      block.key(3, 2)
      block.varint(1 << 40)
    }
    Self.refuses(.malformedFile, "runs past the end") {
      _ = try MLPackage.program(serializedModel: huge)
    }
    let manyDimensions = Self.model { block in
      block.message(1) { input in
        input.string(1, "z")
        input.message(2) { type in
          type.message(1) { tensor in
            tensor.int(1, 11)
            tensor.int(2, 1000)
            for _ in 0..<1000 { tensor.message(3) { $0.message(1) { $0.int(1, 1) } } }
          }
        }
      }
    }
    Self.refuses(.limitExceeded, "1000 dimensions") {
      _ = try MLPackage.program(serializedModel: manyDimensions)
    }
    let hugeDimension = Self.model { block in
      block.message(1) { input in
        input.string(1, "z")
        input.message(2) { type in
          type.message(1) { tensor in
            tensor.int(1, 11)
            tensor.int(2, 1)
            tensor.message(3) { $0.message(1) { $0.int(1, -1) } }
          }
        }
      }
    }
    Self.refuses(.limitExceeded, "dimension 18446744073709551615") {
      _ = try MLPackage.program(serializedModel: hugeDimension)
    }
    let wrongRank = Self.model { block in
      block.message(1) { input in
        input.string(1, "z")
        input.message(2) { type in
          type.message(1) {
            $0.int(1, 11)
            $0.int(2, 3)
          }
        }
      }
    }
    Self.refuses(.malformedFile, "rank 3 lists 0 dimensions") {
      _ = try MLPackage.program(serializedModel: wrongRank)
    }
  }

  // MARK: Packages

  /// A package folder in a fresh temporary folder: manifest, the hand-written model and a blob
  /// file with four floats; returns the package URL.
  static func makePackage(
    manifest: String? = nil, model: [UInt8] = model(), in folder: URL
  ) throws -> URL {
    let package = folder.appendingPathComponent("Test.mlpackage")
    let data = package.appendingPathComponent("Data/com.apple.CoreML")
    try FileManager.default.createDirectory(
      at: data.appendingPathComponent("weights"), withIntermediateDirectories: true)
    let text =
      manifest
        ?? """
        {"fileFormatVersion": "1.0.0", "itemInfoEntries": {
          "A": {"author": "com.apple.CoreML", "name": "model.mlmodel",
                "path": "com.apple.CoreML/model.mlmodel"},
          "B": {"author": "com.apple.CoreML", "name": "weights", "path": "com.apple.CoreML/weights"}},
         "rootModelIdentifier": "A"}
        """
    try Data(text.utf8).write(to: package.appendingPathComponent("Manifest.json"))
    try Data(model).write(to: data.appendingPathComponent("model.mlmodel"))
    try Data(blobFile(payload: floatBytes([1, 2, 3, 4]))).write(
      to: data.appendingPathComponent("weights/weight.bin"))
    return package
  }

  static func withTemporaryFolder(_ body: (URL) throws -> Void) throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("mlprogram-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try body(folder)
  }

  static func manifest(path: String, root: String = "A") -> String {
    """
    {"fileFormatVersion": "1.0.0", "itemInfoEntries": {"A": {"path": "\(path)"}},
     "rootModelIdentifier": "\(root)"}
    """
  }

  @Test func readsAHandWrittenPackageAndItsWeights() throws {
    try Self.withTemporaryFolder { folder in
      let package = try MLPackage(contentsOf: Self.makePackage(in: folder))
      let block = try #require(package.program.functions["main"]?.block)
      guard
        case .blobFile(let name, let offset)? = block.operations.first?.attributes["val"]?.storage
      else {
        Issue.record("no blob value")
        return
      }
      #expect(try package.blobFile(named: name).floats(at: offset, count: 4) == [1, 2, 3, 4])
    }
  }

  @Test func refusesHostilePackages() throws {
    try Self.withTemporaryFolder { folder in
      let package = try Self.makePackage(in: folder)
      try FileManager.default.removeItem(at: package.appendingPathComponent("Manifest.json"))
      Self.refuses(.malformedFile, "no Manifest.json") { _ = try MLPackage(contentsOf: package) }
    }
    for (path, phrase) in [
      ("../../../../../../etc/passwd", "escapes the package"),
      ("com.apple.CoreML/../../Manifest.json", "escapes the package"),
      ("/etc/passwd", "absolute"),
      ("", "empty"),
      ("com.apple.CoreML", "not a regular file"),
      ("com.apple.CoreML/weights", "not a regular file"),
    ] {
      try Self.withTemporaryFolder { folder in
        let package = try Self.makePackage(manifest: Self.manifest(path: path), in: folder)
        Self.refuses(.malformedFile, phrase) { _ = try MLPackage(contentsOf: package) }
      }
    }
    try Self.withTemporaryFolder { folder in
      let package = try Self.makePackage(
        manifest: Self.manifest(path: "com.apple.CoreML/model.mlmodel", root: "Z"), in: folder)
      Self.refuses(.malformedFile, "not one of its items") {
        _ = try MLPackage(contentsOf: package)
      }
    }
    for text in [
      "not json", "[1, 2]", "{\"itemInfoEntries\": {}}", String(repeating: "[", count: 100_000),
    ] {
      try Self.withTemporaryFolder { folder in
        let package = try Self.makePackage(manifest: text, in: folder)
        Self.refuses(.malformedFile, "not a manifest") { _ = try MLPackage(contentsOf: package) }
      }
    }
    // A model file that is a symbolic link to a file outside the package.
    try Self.withTemporaryFolder { folder in
      let package = try Self.makePackage(in: folder)
      let outside = folder.appendingPathComponent("outside.mlmodel")
      try Data(Self.model()).write(to: outside)
      let model = package.appendingPathComponent("Data/com.apple.CoreML/model.mlmodel")
      try FileManager.default.removeItem(at: model)
      try FileManager.default.createSymbolicLink(at: model, withDestinationURL: outside)
      Self.refuses(.malformedFile, "symbolic link") { _ = try MLPackage(contentsOf: package) }
    }
    // Blob file names that leave the package or do not start with @model_path.
    for (name, phrase) in [
      ("@model_path/../../../../outside.bin", "escapes the package"),
      ("/etc/passwd", "@model_path"),
      ("@model_path//etc/passwd", "absolute"),
    ] {
      try Self.withTemporaryFolder { folder in
        let package = try MLPackage(
          contentsOf: Self.makePackage(model: Self.model(blobName: name), in: folder))
        Self.refuses(.malformedFile, phrase) { _ = try package.blobFile(named: name) }
      }
    }
    // A weights folder that is a symbolic link out of the package.
    try Self.withTemporaryFolder { folder in
      let package = try Self.makePackage(in: folder)
      let weights = package.appendingPathComponent("Data/com.apple.CoreML/weights")
      try FileManager.default.moveItem(at: weights, to: folder.appendingPathComponent("elsewhere"))
      try FileManager.default.createSymbolicLink(
        at: weights, withDestinationURL: folder.appendingPathComponent("elsewhere"))
      let opened = try MLPackage(contentsOf: package)
      Self.refuses(.malformedFile, "symbolic link") {
        _ = try opened.blobFile(named: "@model_path/weights/weight.bin")
      }
    }
  }
}
