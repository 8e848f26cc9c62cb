// The Swift samples of README.md and the DocC articles, compiled. DocumentationSampleTests checks
// that every sample's code lines appear here in order; the lines after a sample only use its
// values. The functions are compiled, not called: their inputs (a service, a photo, weights)
// are the reader's.
import Foundation
import NeuralLayers
import VisionCatalog

// README.md: its samples in order, in one scope with only `serviceURL` and `photoURL`, as a
// reader who copies them has.
func readmeSamples(serviceURL: URL, photoURL: URL) async throws {
  let model = try NetworkClassifier.efficientNetLite0()  // finds the cached weights
  let finder = ProductFinder(
    model: model,
    mapping: .imageNetToBundledCatalog,
    provider: HTTPCatalogProvider(serviceRoot: serviceURL, version: .v4))
  let result = try await finder.find(contentsOf: photoURL)  // or .data(bytes), .image(raster)
  print(result.category, result.products.map(\.name), result.query)

  let gatewayRoot = serviceURL.appending(path: "GWSAMPLE_BASIC/")  // an SAP Gateway service
  let gateway = HTTPCatalogProvider(serviceRoot: gatewayRoot, version: .v2)
  let schema = try await gateway.catalogSchema()  // ProductSet, key ProductID, category Category
  let notebooks = try await gateway.products(inCategory: "Notebooks", schema: schema)
  let gatewayFinder = ProductFinder(model: model, provider: gateway, schema: schema)
  let shop = HTTPCatalogProvider(serviceRoot: serviceURL, version: .v4)
  let custom = try await shop.catalogSchema(entitySet: "Artikel", categoryProperty: "Warengruppe")
  _ = (notebooks, gatewayFinder, custom)
  try readmeTestingSample()
}

func readmeTestingSample() throws {
  let finder = ProductFinder(
    model: try DummyClassifier(labels: ["Mice", "Notebooks"]),
    provider: try OfflineCatalogProvider.bundled())
  _ = finder
}

// CatalogClient.md
func catalogClientSample(serviceRoot: URL) async throws {
  let provider = HTTPCatalogProvider(serviceRoot: serviceRoot, version: .v2)
  let notebooks = try await provider.products(inCategory: "Notebooks")
  let query = try CatalogSchema.espm.productsQuery(inCategory: "Notebooks")
  print(try provider.describe(query))  // the exact URL it sent
  let offline = try OfflineCatalogProvider.bundled()
  let same = try await offline.products(inCategory: "Notebooks")
  _ = (notebooks, same)
}

// ReadingAnyCatalog.md (CatalogClient)
func readingAnyCatalogSample(gatewayRoot: URL, shop: HTTPCatalogProvider) async throws {
  let gateway = HTTPCatalogProvider(serviceRoot: gatewayRoot, version: .v2)
  let schema = try await gateway.catalogSchema()
  let notebooks = try await gateway.products(inCategory: "Notebooks", schema: schema)
  for product in notebooks {
    print(product.productId, product.name ?? "", product.price ?? 0, product.pictureUrl ?? "")
  }
  let counts = try await gateway.categories(schema: schema)  // [ProductCategory]
  for category in counts {
    print(category.categoryName, category.numberOfProducts ?? 0)
  }
  let found = try await shop.catalogSchema(entitySet: "Artikel", categoryProperty: "Warengruppe")
  let written = CatalogSchema(
    entitySet: "Artikel", key: "Nummer", category: "Warengruppe", name: "Bezeichnung",
    price: "Preis", currency: "Waehrung", picture: CatalogSchema.mediaResource)
  let checked = try await shop.checked(written)  // types filled in from $metadata
  _ = (counts, found, checked)
}

// ReadingAnyCatalog.md (CatalogClient): products by GTIN
func productsByGTINSample(provider: HTTPCatalogProvider) async throws {
  let schema = try await provider.catalogSchema()  // or catalogSchema(gtinProperty: "EAN11")
  if let gtin = GTIN("4006381333931") {
    let products = try await provider.products(withGTIN: gtin, schema: schema)
    print(products.map(\.productId))
    print(try provider.describe(try schema.productsQuery(withGTIN: gtin)))  // the URL sent
  }
}

// Barcodes.md
func barcodesSample(photoURL: URL, provider: HTTPCatalogProvider, schema: CatalogSchema)
  async throws
{
  let barcodes = try BarcodeReader().read(.file(photoURL))
  for barcode in barcodes {
    print(barcode.symbology, barcode.text, barcode.gtin?.digits ?? "no GTIN", barcode.box)
  }
  if let gtin = barcodes.first(where: { $0.gtin != nil })?.gtin {
    let products = try await provider.products(withGTIN: gtin, schema: schema)
    print(products.map(\.productId))
  }
}

// Serving.md (ClassifierKit)
func servingSample(upload: Data) async throws {
  let model = try NetworkClassifier.efficientNetLite0()  // once, at start-up

  var limits = ComputeExecutor.shared.limits
  limits.maximumQueuedCount = 64  // the 65th waiting caller is refused
  ComputeExecutor.shared.limits = limits

  do {
    let report = try await model.classify(.data(upload))
    print(report.classifications)
  } catch {
    guard error.code == .overloaded else { throw error }
    print("answer 503 with Retry-After")  // the client tries again later
  }
}

// ClassifierKit.md
func classifierKitSample() async throws {
  let classifier = try NetworkClassifier.efficientNetLite0()  // the default model
  let report = try await classifier.classify(.file(URL(fileURLWithPath: "cat.jpg")))
  for classification in report.classifications {
    print(classification.label, classification.confidence)  // "tabby, tabby cat" 0.52 ...
  }
  print(report.modelName, report.format.map { "\($0)" } ?? "decoded")
}

// WritingAModel.md
struct BrightnessClassifier: ImageClassificationModel {
  let labels = ["dark", "bright"]
  let inputSpec = ModelInputSpec(size: 64, cropAndScale: .scaleFill)

  func classify(prepared input: ModelInput, options: ClassificationOptions)
    throws(ClassificationError) -> [Classification]
  {
    let values = input.values
    let mean = values.reduce(0, +) / Float(values.count)
    let brightness = (mean - 127.5) / 32
    return Classification.ranked(
      scores: [-brightness, brightness], labels: labels, options: options)
  }
}

func writingAModelSample(photoURL: URL) async throws {
  let model: any ImageClassificationModel = BrightnessClassifier()
  let report = try await model.classify(.file(photoURL))
  print(report.classifications.first?.label ?? "-")
}

func wrappingANetworkSample(myStateDictionary: [String: Tensor], myLabels: [String]) throws {
  let network = try Sequential(
    Conv2D(
      name: "features.0", inputChannels: 3, outputChannels: 32, kernelSize: 3, stride: 2,
      padding: .same, activation: .relu),
    Pool2D.globalAverage(),
    Flatten(),
    Dense(name: "classifier", inputFeatures: 32, outputFeatures: myLabels.count)
  ).loading(myStateDictionary)
  let classifier = NetworkClassifier(
    network: network,
    description: ModelDescription(
      name: "my-lite0", input: .efficientNetLite(size: 224), labels: myLabels))
  _ = classifier
}

func dummySample() throws {
  let model: any ImageClassificationModel = try DummyClassifier(labels: ["Notebooks", "Mice"])
  _ = model
}

// DecodingImages.md
func decodingImagesSample(photoURL: URL) throws {
  let decoder = ImageDecoder()
  let image = try decoder.decode(contentsOf: photoURL)
  print(image.width, image.height, image.format, image.orientation)
}

// ImagePipeline.md
func imagePipelineSample(url: URL) throws {
  let photo = try ImageDecoder().decode(contentsOf: url)  // EXIF orientation recorded
  let input = try ModelInputSpec.efficientNetLite(size: 224).tensor(from: photo)
  _ = input
}

// PreparingModelInput.md
func preparingModelInputSample(image: RasterImage) throws {
  let spec = ModelInputSpec.efficientNetLite(size: 224)
  let input = try spec.tensor(from: image)  // orientation from the file's EXIF
  print(input.shape)  // [1, 3, 224, 224]
}

func largeJPEGSample(model: NetworkClassifier, data: Data) throws {
  let report = try model.classify(.data(data))  // 12 MP: decoded at 1/8, then cropped
  _ = report
}

// VisionCatalog.md
func visionCatalogSample(photoURL: URL) async throws {
  let finder = ProductFinder(
    model: try NetworkClassifier.efficientNetLite0(),
    mapping: .imageNetToBundledCatalog,
    provider: try CatalogSource.bundled.makeProvider())
  let result = try await finder.find(contentsOf: photoURL)
  _ = result
}

// BuildingODataQueries.md
func buildingQueriesSample() throws {
  let query = ODataQuery(entitySet: Product.entitySet)
    .filter(Product.categoryName == "Mice" && Product.price < Decimal(50))
    .select(Product.productId, Product.name, Product.price)
    .orderBy(Product.price.descending, Product.name.ascending)
    .top(10)
    .inlineCount()

  print(try query.relativeURL(version: .v4))
  print(try query.relativeURL(version: .v2))
}

func queryArgumentSample(requested: Int) {
  let query = ODataQuery(entitySet: Product.entitySet).top(requested)  // requested is -1
  do {
    _ = try query.relativeURL(version: .v4)
  } catch {
    print(error)  // CatalogError.invalidArgument: $top must not be negative, got -1 in the query
  }
}

func filterSample() {
  let filter =
    (Product.categoryName == "Mice" || Product.categoryName == "Keyboards") && Product.price < 40
  _ = filter
}

// ImportingModels.md
func importingONNXSample() throws {
  let model = try ONNXModel(contentsOf: URL(fileURLWithPath: "efficientnet-lite0.onnx"))
  let session = try InferenceSession(model: model, options: SessionOptions(threadCount: 2))
  print(session.inputs)  // [TensorDescription(name: "input", shape: [nil, 3, 224, 224])]
}

func importingCoreMLSample(pixels: Tensor) throws {
  let model = try CoreMLModel(contentsOf: URL(fileURLWithPath: "MobileNetV2.mlmodel"))
  let session = try InferenceSession(coreMLModel: model)
  let scores = try session.run([model.inputName: pixels])[model.scoresOutput]
  _ = scores
}

func importingMLProgramSample() throws {
  let model = try CoreMLModel(contentsOf: URL(fileURLWithPath: "MobileNetV2.mlpackage"))
  let session = try InferenceSession(coreMLModel: model)
  _ = session
}

func importingCheckpointSample() throws {
  let url = URL(fileURLWithPath: "efficientnet-lite0-57934424.pth")
  let state = try [String: Tensor](pyTorchCheckpointAt: url)
  print(state.count)  // 296
  let stem = state["_conv_stem.weight"]  // [32, 3, 3, 3]
  _ = stem
}

func importLimitsSample(upload: String) throws {
  let strict = ImportLimits(maximumFileBytes: 64 << 20, maximumElementCount: 1 << 24)
  let model = try ONNXModel(contentsOf: URL(fileURLWithPath: upload), limits: strict)
  _ = model
}

// NeuralCore.md
func neuralCoreSample(image: Tensor) throws {
  let session = try InferenceSession(
    contentsOf: URL(fileURLWithPath: "efficientnet-lite0.onnx"),
    options: SessionOptions(threadCount: 2))
  let logits = try session.run(["input": image])["logits"]
  _ = logits
}

// RunningModels.md
func runningModelsSample(path: String, batch: Tensor) throws {
  let session = try InferenceSession(
    contentsOf: URL(fileURLWithPath: path), options: SessionOptions(threadCount: 2))
  print(session.inputs)  // [TensorDescription(name: "input", shape: [nil, 3, 224, 224])]
  let outputs = try session.run(["input": batch])  // batch: [N, 3, 224, 224]
  _ = outputs
}

func layersSample(parameters: [String: Tensor], image: Tensor, batch: Tensor) throws {
  let stem = try Sequential(
    Conv2D(
      name: "_conv_stem", inputChannels: 3, outputChannels: 32, kernelSize: 3, stride: 2,
      padding: .same, hasBias: false),
    BatchNorm(name: "_bn0", channels: 32, epsilon: 1e-3),
    ActivationLayer(.clip(min: 0, max: 6)))
  let loaded = try stem.loading(parameters)  // parameters: [String: Tensor]
  let features = try loaded.forward(image, threadCount: 2)
  let session = try InferenceSession(
    network: loaded, input: TensorDescription(name: "image", shape: [nil, 3, 224, 224]))
  let batchFeatures = try session.run(["image": batch])
  _ = (features, batchFeatures)
}

// TrainingAClassifier.md
func trainingAClassifierSample() throws {
  let photos = try TrainingPhoto.labeledFolders(at: URL(fileURLWithPath: "Photos"))
  let trainer = try ClassifierTrainer.efficientNetLite0()
  let trained = try trainer.train(photos)
  print(trained.training.accuracy, trained.validation?.accuracy ?? .nan)
  try trained.write(to: URL(fileURLWithPath: "Products.onnx"))  // and Products.json
}

func trainedModelSample(photoURL: URL) async throws {
  let classifier = try NetworkClassifier.onnx(contentsOf: URL(fileURLWithPath: "Products.onnx"))
  let report = try await classifier.classify(.file(photoURL))
  print(report.classifications.first?.label ?? "no label")  // none below the unknown threshold
}

// VisionCatalog.md
func catalogTrainingSample(catalogURL: URL) async throws {
  let source = CatalogSource.file(catalogURL)  // pictures are files next to the catalog file
  let catalog = try await CatalogTrainingPhotos.load(
    from: source, provider: try source.makeProvider())
  let trained = try ClassifierTrainer.efficientNetLite0().train(catalog.photos)
  let finder = ProductFinder(
    model: try trained.classifier(), mapping: .identity, provider: try source.makeProvider())
  _ = finder
}

// VisualSearch.md (VisualSearch)
func visualSearchSample(featurePrint: [Float]) async throws {
  let index = try await ProductIndex.open("catalog.vcindex")
  let matches = try await index.search(featurePrint, top: 5, category: "Notebooks")
  for match in matches {
    print(match.productId, match.score, match.name, match.picture)
  }
}
