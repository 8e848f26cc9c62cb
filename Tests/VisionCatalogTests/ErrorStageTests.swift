import Testing
import VisionCatalog

/// `VisionCatalogError.Stage` compares and prints by name, as the enum it replaced did.
struct ErrorStageTests {
  @Test func stageDescriptionsAreTheirNames() {
    let stages: [(VisionCatalogError.Stage, String)] = [
      (.image, "image"), (.classification, "classification"), (.noCategory, "noCategory"),
      (.catalog, "catalog"), (.configuration, "configuration"),
    ]
    for (stage, name) in stages {
      #expect("\(stage)" == name)
    }
    #expect(Set(stages.map(\.0)).count == stages.count)
    #expect(VisionCatalogError(.catalog, "offline").stage == .catalog)
  }
}
