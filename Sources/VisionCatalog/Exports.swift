@_exported public import Barcodes
@_exported public import CatalogClient
@_exported public import ClassifierKit
@_exported public import ImagePipeline
@_exported public import ModelFormats
@_exported public import NeuralCore
@_exported public import NeuralLayers
@_exported public import VisualSearch
