import CatalogClient
import Foundation

/// Reads one input as a service's `$metadata` document, then finds and checks a catalog schema
/// on it and writes the products query it gives.
///
/// Every outcome must be a value or a ``CatalogError``: no crash, no hang, bounded memory.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let document = Data(UnsafeBufferPointer(start: data, count: size))
  guard let metadata = try? ServiceMetadata.read(document) else {
    return 0
  }
  for set in metadata.entitySets {
    _ = metadata.entityType(of: set)
  }
  if let schema = try? CatalogSchema.detect(in: metadata) {
    _ = try? schema.validated(against: metadata)
    _ = try? schema.productsQuery(inCategory: "Mice' or 1 eq 1").relativeURL(version: .v2)
  }
  if let set = metadata.entitySets.first, let type = metadata.entityType(of: set),
    let property = type.properties.last
  {
    _ = try? CatalogSchema.detect(
      in: metadata, entitySet: set.name, category: ODataPath(property.name))
  }
  return 0
}
