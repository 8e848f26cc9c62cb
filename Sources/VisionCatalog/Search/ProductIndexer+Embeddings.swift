public import Foundation
import ModelFormats
import NeuralCore
import VisualSearch

extension ProductIndexer {
  /// Indexes feature prints made elsewhere.
  ///
  /// Row `i` of a `.npy` array (`[N, D]`, any numeric type) is a print of product `ids[i]`. The
  /// rows stream from the file, so an array larger than memory indexes with bounded memory.
  /// The index is rebuilt from these rows alone.
  ///
  /// - Parameters:
  ///   - file: The `.npy` file.
  ///   - ids: One product id per row.
  ///   - location: The index file or `postgresql://` URL.
  /// - Returns: What the update did.
  /// - Throws: ``VisionCatalogError`` with stage `configuration` when the file cannot be read or
  ///   the ids do not match its rows, `search` when a row is not a usable print or the index
  ///   cannot be written.
  public static func index(
    embeddings file: URL, ids: [String], into location: String
  ) async throws(VisionCatalogError) -> Report {
    let rows: NPYRows
    do {
      rows = try NPYRows(contentsOfFile: file.path)
    } catch {
      throw VisionCatalogError(
        .configuration, "cannot read the embeddings \(file.path)", underlying: error)
    }
    guard ids.count == rows.rows else {
      throw VisionCatalogError(
        .configuration, "\(file.path) has \(rows.rows) rows but \(ids.count) ids were given")
    }
    let index = try await open(location)
    let previous = try await pictures(of: index)
    let pictures = ids.enumerated().map { row, id in
      IndexedPicture(productId: id, source: "\(file.lastPathComponent)#\(row)")
    }
    let reader = BlockReader(rows: rows)
    let updated: ProductIndex
    do {
      updated = try await index.updated(
        embedder: "embeddings \(rows.columns)", dimensions: rows.columns,
        removing: Set(previous), adding: pictures, featurePrints: reader.row)
    } catch {
      throw VisionCatalogError(.search, "cannot write the index \(location)", underlying: error)
    }
    return Report(
      index: location, products: Set(ids).count, pictures: updated.count,
      added: pictures.count, removed: previous.count, unchanged: 0, skipped: [])
  }
}

/// Rows of an array read 4,096 at a time, asked for in order.
private final class BlockReader: @unchecked Sendable {
  // Safety of @unchecked Sendable: `block` and `first` are touched under `lock`.
  private let rows: NPYRows
  private let lock = Locked<(first: Int, block: [[Float]])>((0, []))

  init(rows: NPYRows) {
    self.rows = rows
  }

  func row(_ index: Int) throws(SearchError) -> [Float] {
    try lock.withLock {
      (state: inout (first: Int, block: [[Float]])) throws(SearchError) -> [Float] in
      if index < state.first || index >= state.first + state.block.count {
        do {
          state = (index, try rows.read(first: index, count: min(4_096, rows.rows - index)))
        } catch {
          throw SearchError(.invalidArgument, "cannot read row \(index): \(error)")
        }
      }
      return state.block[index - state.first]
    }
  }
}
