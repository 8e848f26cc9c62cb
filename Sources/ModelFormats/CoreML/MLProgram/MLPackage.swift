package import Foundation

/// A Core ML package (`.mlpackage` folder) holding an ML Program, read and checked but not run.
///
/// The folder holds `Manifest.json`, whose root model item names the `Model` protobuf under
/// `Data/` (`Data/com.apple.CoreML/model.mlmodel`); its `mlProgram` field (502) is the MIL
/// program, and the program's large constants live in MIL blob files beside the model
/// (`@model_path/weights/weight.bin`). Every path the package gives is checked to stay inside
/// the package folder, symbolic links included.
///
/// ```swift
/// let package = try MLPackage(contentsOf: URL(fileURLWithPath: "Model.mlpackage"))
/// let weights = try package.blobFile(named: "@model_path/weights/weight.bin")
/// ```
package struct MLPackage: Sendable {
  /// The package folder, symbolic links resolved.
  package let url: URL
  /// The folder of the model file, which `@model_path` in blob file names stands for.
  package let modelDirectory: URL
  /// The `Model` message's specification version.
  package let specificationVersion: Int64
  /// The program.
  package let program: MILProgram
  private let limits: ImportLimits

  /// The prefix of blob file names, standing for the model file's folder.
  static let modelPathPrefix = "@model_path/"

  /// Reads a package's manifest and its ML Program (not the weight files: see
  /// ``blobFile(named:)``).
  ///
  /// - Parameters:
  ///   - url: The `.mlpackage` folder.
  ///   - limits: Bounds on file sizes, nesting, ranks and element counts.
  /// - Throws: ``ModelFormatsError``: `malformedFile` for a folder without a manifest, a manifest
  ///   path that leaves the folder or damaged protobuf, `unsupported` for a model that is not
  ///   an ML Program, `io` when a file cannot be read, `limitExceeded` past a limit.
  package init(contentsOf url: URL, limits: ImportLimits = .default) throws(ModelFormatsError) {
    let (root, modelPath) = try Self.rootModel(ofPackage: url, limits: limits)
    let decoded = try Self.program(
      serializedModel: FileBytes.read(path: modelPath.path, maximumBytes: limits.maximumFileBytes),
      limits: limits)
    self.url = root
    self.modelDirectory = modelPath.deletingLastPathComponent()
    self.specificationVersion = decoded.specificationVersion
    self.program = decoded.program
    self.limits = limits
  }

  /// The package folder (symbolic links resolved) and its root model file, from the manifest.
  ///
  /// - Throws: `io` for a path that is not a folder, `malformedFile` for a folder without a
  ///   manifest or a manifest path that leaves the folder.
  package static func rootModel(ofPackage url: URL, limits: ImportLimits)
    throws(ModelFormatsError) -> (root: URL, model: URL)
  {
    let root = url.resolvingSymlinksInPath()
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw ModelFormatsError(.io, "ML package '\(url.path)' is not a folder")
    }
    guard FileManager.default.fileExists(atPath: root.appendingPathComponent("Manifest.json").path)
    else {
      throw ModelFormatsError(
        .malformedFile, "ML package '\(url.path)' has no Manifest.json: it is not an ML package")
    }
    let manifestPath = try Self.contained("Manifest.json", in: root, root: root, what: "manifest")
    let manifest = try MLPackageManifest.decode(
      FileBytes.read(
        path: manifestPath.path,
        maximumBytes: min(limits.maximumFileBytes, MLPackageManifest.maximumBytes)))
    let modelPath = try Self.contained(
      manifest.rootModel().path, in: root.appendingPathComponent("Data"), root: root,
      what: "the root model")
    return (root, modelPath)
  }

  /// Decodes the ML Program of a serialized `Model` message.
  ///
  /// - Parameters:
  ///   - bytes: The `model.mlmodel` file's bytes.
  ///   - limits: Bounds on size, nesting, ranks and element counts.
  /// - Returns: The model's specification version and its program.
  /// - Throws: `malformedFile` for damaged protobuf or an inconsistent program, `unsupported`
  ///   for a model that is not an ML Program, `limitExceeded` past a limit.
  package static func program(serializedModel bytes: [UInt8], limits: ImportLimits = .default)
    throws(ModelFormatsError) -> (specificationVersion: Int64, program: MILProgram)
  {
    try limits.checkFileSize(bytes.count, of: "model")
    let model = try CoreMLMessage(ProtobufReader(bytes, maximumDepth: limits.maximumNestingDepth))
    guard let program = try model.message(502) else {
      throw ModelFormatsError(
        .unsupported, "this Core ML model is not an ML Program (it has no mlProgram field)")
    }
    return (model.integer(1), try MILProgramDecoder(limits: limits).program(program))
  }

  /// Reads one MIL blob file the program names.
  ///
  /// - Parameter fileName: The name a `blobFileValue` gives, `@model_path/…`.
  /// - Returns: The checked blob file.
  /// - Throws: `malformedFile` for a name that does not start with `@model_path/` or leaves the
  ///   package, or a damaged header; `io` when it cannot be read; `limitExceeded` past a limit.
  package func blobFile(named fileName: String) throws(ModelFormatsError) -> MILBlobFile {
    try Self.blobFile(named: fileName, modelDirectory: modelDirectory, root: url, limits: limits)
  }

  /// Reads a blob file that a `blobFileValue` names, relative to the model file's folder,
  /// under the same containment checks as the package's other paths.
  package static func blobFile(
    named fileName: String, modelDirectory: URL, root: URL, limits: ImportLimits
  ) throws(ModelFormatsError) -> MILBlobFile {
    guard fileName.hasPrefix(Self.modelPathPrefix) else {
      throw ModelFormatsError(
        .malformedFile, "ML package: blob file '\(fileName)' does not start with @model_path/")
    }
    let path = try Self.contained(
      String(fileName.dropFirst(Self.modelPathPrefix.count)), in: modelDirectory, root: root,
      what: "blob file")
    return try MILBlobFile(
      bytes: FileBytes.read(path: path.path, maximumBytes: limits.maximumFileBytes),
      limits: limits)
  }

  static func contained(_ relative: String, in base: URL, root: URL, what: String)
    throws(ModelFormatsError) -> URL
  {
    guard !relative.isEmpty, !relative.hasPrefix("/"), !relative.contains("\0") else {
      throw ModelFormatsError(
        .malformedFile, "ML package: \(what) path '\(relative)' is empty or absolute")
    }
    let components = relative.split(separator: "/", omittingEmptySubsequences: true)
    guard !components.contains("..") else {
      throw ModelFormatsError(
        .malformedFile, "ML package: \(what) path '\(relative)' escapes the package with '..'")
    }
    let file = components.reduce(base) { $0.appendingPathComponent(String($1)) }
      .resolvingSymlinksInPath()
    guard file.path.hasPrefix(root.path + "/") else {
      throw ModelFormatsError(
        .malformedFile,
        "ML package: \(what) path '\(relative)' leads outside the package through a symbolic link")
    }
    // A folder, device or pipe would fail or block when read.
    let type: FileAttributeType?
    do {
      type =
        try FileManager.default.attributesOfItem(atPath: file.path)[.type] as? FileAttributeType
    } catch {
      throw ModelFormatsError(.io, "ML package: cannot open \(what) '\(relative)': \(error)")
    }
    guard type == .typeRegular else {
      throw ModelFormatsError(
        .malformedFile, "ML package: \(what) path '\(relative)' is not a regular file")
    }
    return file
  }
}
