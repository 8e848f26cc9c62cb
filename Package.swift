// swift-tools-version:6.2
import PackageDescription

let package = Package(
  name: "vision-catalog",
  products: [
    .library(name: "VisionCatalog", targets: ["VisionCatalog"]),
    .library(name: "ImagePipeline", targets: ["ImagePipeline"]),
    .library(name: "NeuralCore", targets: ["NeuralCore"]),
    .library(name: "NeuralLayers", targets: ["NeuralLayers"]),
    .library(name: "ModelFormats", targets: ["ModelFormats"]),
    .library(name: "ClassifierKit", targets: ["ClassifierKit"]),
    .library(name: "CatalogClient", targets: ["CatalogClient"]),
    .library(name: "Barcodes", targets: ["Barcodes"]),
    .library(name: "VisualSearch", targets: ["VisualSearch"]),
    .executable(name: "vision-catalog", targets: ["VisionCatalogCLI"]),
  ],
  targets: [
    // System libraries and the one C target: codec entry points (every setjmp/longjmp) and
    // CPU-dispatched SIMD kernels.
    .systemLibrary(
      name: "CLibPNG",
      pkgConfig: "libpng",
      providers: [.apt(["libpng-dev"])]
    ),
    .systemLibrary(
      name: "CLibJPEG",
      pkgConfig: "libjpeg",
      providers: [.apt(["libjpeg62-turbo-dev"])]
    ),
    .systemLibrary(
      name: "CLibDeflate",
      pkgConfig: "libdeflate",
      providers: [.apt(["libdeflate-dev"])]
    ),
    .systemLibrary(
      name: "CLibWebP",
      pkgConfig: "libwebpdemux",
      providers: [.apt(["libwebp-dev"])]
    ),
    .systemLibrary(
      name: "CLibHeif",
      pkgConfig: "libheif",
      providers: [.apt(["libheif-dev"])]
    ),
    .systemLibrary(
      name: "CLibDe265",
      pkgConfig: "libde265",
      providers: [.apt(["libde265-dev"])]
    ),
    .target(
      name: "CNative",
      dependencies: ["CLibPNG", "CLibJPEG", "CLibDeflate", "CLibWebP", "CLibHeif", "CLibDe265"]
    ),
    // The barcode reader's C interface over zxing-cpp (libzxing-dev): the package's only C++.
    .target(
      name: "CBarcodes",
      linkerSettings: [.linkedLibrary("ZXing"), .linkedLibrary("dmtx"), .linkedLibrary("zbar")]
    ),
    // The HTTP server's C interface over libmicrohttpd (libmicrohttpd-dev).
    .target(
      name: "CHTTPServer",
      linkerSettings: [.linkedLibrary("microhttpd")]
    ),
    // PostgreSQL's client library (libpq-dev) with a deadline on every wait, for pgvector stores.
    .target(
      name: "CPostgres",
      linkerSettings: [.linkedLibrary("pq")]
    ),

    // Swift modules, lowest first.
    .target(
      name: "ImagePipeline",
      dependencies: ["CNative"]
    ),
    .target(
      name: "NeuralCore",
      dependencies: ["CNative"]
    ),
    .target(
      name: "NeuralLayers",
      dependencies: ["NeuralCore"]
    ),
    .target(
      name: "ModelFormats",
      dependencies: ["CNative", "NeuralCore", "NeuralLayers"]
    ),
    .target(
      name: "ClassifierKit",
      dependencies: ["ImagePipeline", "NeuralCore", "NeuralLayers", "ModelFormats"],
      exclude: ["Resources"]
    ),
    .target(
      name: "CatalogClient",
      exclude: ["Resources"]
    ),
    .target(
      name: "VisionCatalog",
      dependencies: [
        "ImagePipeline", "NeuralCore", "NeuralLayers", "ModelFormats", "ClassifierKit",
        "CatalogClient", "Barcodes", "WebService", "VisualSearch",
      ],
      exclude: ["Resources"]
    ),
    .target(
      name: "Barcodes",
      dependencies: ["CBarcodes", "ImagePipeline", "CatalogClient"]
    ),
    .target(
      name: "WebService",
      dependencies: ["CHTTPServer"]
    ),
    .target(
      name: "VisualSearch",
      dependencies: ["CNative", "CPostgres", "NeuralCore"]
    ),
    .executableTarget(
      name: "VisionCatalogCLI",
      dependencies: ["VisionCatalog"]
    ),
    .executableTarget(
      name: "Benchmarks",
      dependencies: [
        "ImagePipeline", "NeuralCore", "NeuralLayers", "ModelFormats", "ClassifierKit",
        "CatalogClient", "Barcodes",
      ],
      path: "Benchmarks/Sources"
    ),

    // Tests.
    .target(
      name: "TestSupport",
      path: "Tests/TestSupport"
    ),
    .testTarget(
      name: "ImagePipelineTests",
      dependencies: ["ImagePipeline", "NeuralCore", "ModelFormats", "CNative", "TestSupport"]
    ),
    .testTarget(
      name: "NeuralCoreTests",
      dependencies: ["NeuralCore", "NeuralLayers", "ModelFormats", "TestSupport"]
    ),
    .testTarget(
      name: "ModelFormatsTests",
      dependencies: ["ModelFormats", "NeuralCore", "NeuralLayers", "TestSupport"]
    ),
    .testTarget(
      name: "ClassifierKitTests",
      dependencies: [
        "ClassifierKit", "ImagePipeline", "NeuralCore", "NeuralLayers", "ModelFormats",
        "TestSupport",
      ]
    ),
    .testTarget(
      name: "VisionCatalogTests",
      dependencies: ["VisionCatalog", "NeuralCore", "NeuralLayers", "ModelFormats", "TestSupport"]
    ),
    .testTarget(
      name: "CatalogClientTests",
      dependencies: ["CatalogClient", "TestSupport"]
    ),
    .testTarget(
      name: "VisualSearchTests",
      dependencies: ["VisualSearch", "NeuralCore", "TestSupport"]
    ),
    .testTarget(
      name: "BarcodesTests",
      dependencies: ["Barcodes", "ImagePipeline", "CatalogClient", "TestSupport"],
      exclude: ["Photos"]
    ),
    .testTarget(
      name: "ReliabilityTests",
      dependencies: ["CatalogClient", "TestSupport"]
    ),
    .testTarget(
      name: "WebServiceTests",
      dependencies: ["WebService", "TestSupport"]
    ),
  ],
  swiftLanguageModes: [.v6]
)

let cTargets: Set<String> = [
  "CLibPNG", "CLibJPEG", "CLibDeflate", "CLibWebP", "CLibHeif", "CLibDe265", "CNative",
  "CBarcodes", "CHTTPServer", "CPostgres",
]
for target in package.targets where !cTargets.contains(target.name) {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("InternalImportsByDefault"),
      .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
