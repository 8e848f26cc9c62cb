import Foundation
import VisionCatalog

/// `vision-catalog barcodes PHOTO... | DIR... [--json]`.
struct BarcodesCommand: Subcommand {
  let name = "barcodes"
  let summary = "Read the barcodes in a photo: EAN, UPC, ITF-14, GS1-128, DataBar, QR, Data Matrix."
  let synopsis = "PHOTO... | DIR..."
  let discussion = """
    Reads the barcodes in PHOTO, upright (its EXIF orientation applied), and prints each one's
    symbology, text, GTIN (when it carries one with a valid check digit: an EAN or UPC, an
    ITF-14, GS1 data's (01), or a GS1 Digital Link URL) and box [x, y, width, height] in the
    upright photo. A photo without a barcode prints none and succeeds.

    With several photos or a folder, prints JSON Lines: one object per photo, the --json shape
    plus "file"; a photo that fails is a line with "file" and "error", and the batch goes on
    (exit code 1 at the end if any failed).
    """
  let options = [JSONOutput.option]

  func run(_ parsed: CommandLineArguments) async throws(CLIError) {
    guard let path = parsed.positionals.first else { throw CLIError.usage("missing PHOTO") }
    let reader = BarcodeReader()
    if parsed.positionals.count > 1 || PhotoBatch.isFolder(path) {
      try await readBatch(try PhotoBatch(arguments: parsed.positionals).paths, reader)
      return
    }
    let photo = try ImageFiles.load(path)
    let barcodes: [Barcode]
    do {
      barcodes = try reader.read(photo)
    } catch {
      throw CLIError.failure("\(path): \(error.underlying.map { "\($0)" } ?? error.message)")
    }
    if parsed.has(JSONOutput.option) {
      try JSONOutput.print(JSONShapes.BarcodeList(barcodes))
    } else if barcodes.isEmpty {
      print("no barcode")
    } else {
      for barcode in barcodes {
        print(
          "\(barcode.symbology.rawValue)  \(barcode.gtin.map { "GTIN \($0)  " } ?? "")"
            + "\(barcode.text.debugDescription)  at \(barcode.box)")
      }
    }
  }

  /// Reads `paths` one per core at a time, printing a JSON line per photo in the order given.
  private func readBatch(_ paths: [String], _ reader: BarcodeReader) async throws(CLIError) {
    try await OrderedPipeline.printLines(
      paths, command: "barcodes", window: ProcessInfo.processInfo.activeProcessorCount,
      failure: "read"
    ) { Self.read($0, reader) }
  }

  /// One photo's JSON line: its barcodes, or the reason it has none.
  private static func read(_ path: String, _ reader: BarcodeReader)
    -> JSONShapes.BatchLine<JSONShapes.BarcodeList>
  {
    var line = JSONShapes.BatchLine<JSONShapes.BarcodeList>(file: path)
    do {
      let barcodes = try reader.read(.file(URL(fileURLWithPath: path)))
      line.result = JSONShapes.BarcodeList(barcodes)
    } catch {
      line.error = error.underlying.map { "\($0)" } ?? error.message
    }
    return line
  }
}
