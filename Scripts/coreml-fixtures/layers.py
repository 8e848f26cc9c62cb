"""Hand-built Core ML classifiers for the layers converters do not emit, with NumPy/PyTorch
references written from NeuralNetwork.proto's formulas (not from coremltools).

Each network takes the same 224 x 224 photos as the converted fixtures, applies an image input's
scale and biases, runs a chain of layers and ends in a softmax over ten labels. `build_*` returns
the `NeuralNetworkBuilder` spec and a reference: a function from the preprocessed NCHW input (in
the model's colour order) to the probabilities.

- `layers_rank5`: the classic rank-5 layers: padding (reflection, replication, constant),
  convolution (stride, groups, dilation, same padding), batchnorm, PReLU, scale with bias,
  parametric softplus, max and average pooling (same, explicit padding excluded from the mean),
  unary functions with scale and shift, bias, crop, nearest upsampling, L2 normalize, multiply
  by a constant, average/max/min of blobs, permute, channel-last reshape, LRN, global pooling,
  channel-last flatten, inner product, softmax.
- `layers_nd`: the rank-N layers newer converters emit: activations (ELU, scaled tanh, hard
  sigmoid, softsign, linear, thresholded and leaky ReLU), concatND, the broadcastable
  add/subtract/multiply/divide/max/min/pow, loadConstantND, deconvolution with an output shape,
  bilinear upsampling in its three grid modes, instance normalization, transpose, reduceMean,
  reduceMax, reduceSum, squeeze, expandDims, flattenTo2D, reshapeStatic, softmaxND.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from coremltools.models import datatypes
from coremltools.models.neural_network import NeuralNetworkBuilder

CLASSES = [f"layer class {index}" for index in range(10)]


class Weights:
    """Seeded values of a given spread."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def normal(self, *shape, scale=1.0) -> np.ndarray:
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    def uniform(self, low, high, *shape) -> np.ndarray:
        return self.rng.uniform(low, high, shape).astype(np.float32)


def t(array: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(array))


def conv_weight(w: Weights, kernel: int, channels_in: int, channels_out: int):
    """Builder layout (kh, kw, in, out) and PyTorch layout (out, in, kh, kw) of one weight."""
    builder = w.normal(kernel, kernel, channels_in, channels_out,
                       scale=1.0 / np.sqrt(kernel * kernel * channels_in))
    return builder, t(builder.transpose(3, 2, 0, 1))


def upsample_linear(x: torch.Tensor, factor: int, grid: str) -> torch.Tensor:
    """Core ML's bilinear upsampling, from the proto's grid formulas."""
    def points(size_in: int) -> torch.Tensor:
        size_out = size_in * factor
        index = torch.arange(size_out, dtype=torch.float64)
        if grid == "DEFAULT":
            spacing = (size_in - size_in / size_out) / (size_out - 1)
            position = index * spacing
        elif grid == "ALIGN_CORNERS_TRUE":
            position = index * (size_in - 1) / (size_out - 1)
        else:
            spacing = size_in / size_out
            position = index * spacing + 0.5 * spacing - 0.5
        return position.clamp(0, size_in - 1)

    def along(x: torch.Tensor, axis: int) -> torch.Tensor:
        position = points(x.shape[axis])
        low = position.floor().long()
        high = (low + 1).clamp(max=x.shape[axis] - 1)
        weight = (position - low).to(x.dtype)
        shape = [1] * x.dim()
        shape[axis] = -1
        weight = weight.reshape(shape)
        return x.index_select(axis, low) * (1 - weight) + x.index_select(axis, high) * weight

    return along(along(x, 2), 3)


def build_rank5(layout: str, scale: float, biases: list[float], seed: int):
    w = Weights(seed)
    builder = NeuralNetworkBuilder(
        [("image", datatypes.Array(3, 224, 224))], [("scores", datatypes.Array(len(CLASSES)))],
        mode="classifier")
    add = builder
    add.add_padding("pad", 1, 1, 1, 1, input_name="image", output_name="padded",
                    padding_type="reflection")
    w1, t1 = conv_weight(w, 3, 3, 8)
    b1 = w.normal(8, scale=0.1)
    add.add_convolution("conv1", 3, 8, 3, 3, 2, 2, "valid", 1, w1, b1, True,
                        input_name="padded", output_name="conv1")
    gamma, beta = w.uniform(0.5, 1.5, 8), w.normal(8, scale=0.2)
    mean, variance = w.normal(8, scale=0.3), w.uniform(0.5, 2.0, 8)
    add.add_batchnorm("bn", 8, gamma, beta, mean, variance, input_name="conv1",
                      output_name="bn", epsilon=1e-3)
    slope = w.uniform(0.05, 0.3, 8)
    add.add_activation("prelu", "PRELU", "bn", "prelu", params=slope)
    w2, t2 = conv_weight(w, 3, 4, 8)
    add.add_convolution("conv2", 4, 8, 3, 3, 1, 1, "same", 2, w2, None, False,
                        input_name="prelu", output_name="conv2", dilation_factors=[2, 2])
    factor, shift = w.uniform(0.5, 1.5, 8), w.normal(8, scale=0.2)
    add.add_scale("scale", factor, shift, True, "conv2", "scaled", shape_scale=[8], shape_bias=[8])
    soft_alpha, soft_beta = w.uniform(0.5, 1.5, 8), w.uniform(0.5, 2.0, 8)
    add.add_activation("softplus", "PARAMETRICSOFTPLUS", "scaled", "softplus",
                       params=[soft_alpha, soft_beta])
    add.add_pooling("maxpool", 3, 3, 2, 2, "MAX", "SAME", "softplus", "maxpool")
    add.add_unary("abs", "maxpool", "abs", "abs")
    add.add_unary("power", "abs", "power", "power", alpha=1.5, shift=0.1, scale=0.5)
    plane_bias = w.normal(1, 56, 56, scale=0.1)
    add.add_bias("bias", plane_bias, "power", "biased", shape_bias=[1, 56, 56])
    add.add_crop("crop", 2, 0, 1, 3, [], ["biased"], "cropped")
    add.add_upsample("upsample", 2, 2, "cropped", "upsampled", mode="NN")
    add.add_pooling("avgpool", 3, 3, 2, 2, "AVERAGE", "VALID", "upsampled", "avgpool",
                    exclude_pad_area=True, padding_top=1, padding_bottom=1, padding_left=1,
                    padding_right=1)
    add.add_l2_normalize("l2", "avgpool", "l2", epsilon=1e-6)
    add.add_elementwise("l2_scaled", ["l2"], "l2_scaled", "MULTIPLY", alpha=300.0)
    add.add_unary("rsqrt", "avgpool", "rsqrt", "rsqrt", shift=1.0, epsilon=1e-3)
    add.add_elementwise("average", ["l2_scaled", "rsqrt"], "average", "AVE")
    add.add_elementwise("maximum", ["average", "avgpool"], "maximum", "MAX")
    add.add_elementwise("minimum", ["maximum", "cropped"], "minimum", "MIN")
    add.add_padding("replicate", 0, 2, 1, 0, input_name="minimum", output_name="replicated",
                    padding_type="replication")
    add.add_padding("constant", 1, 1, 0, 1, value=0.25, input_name="replicated",
                    output_name="constant_padded")
    # [8, 54, 58] -> swap height and width -> [8, 58, 54]
    add.add_permute("permute", (0, 1, 3, 2), "constant_padded", "permuted")
    add.add_reshape("reshape", "permuted", "reshaped", (16, 29, 54), 1)
    add.add_lrn("lrn", "reshaped", "lrn", alpha=0.05, beta=0.75, local_size=3, k=2.0)
    add.add_pooling("global", 0, 0, 1, 1, "AVERAGE", "VALID", "lrn", "global", is_global=True)
    add.add_flatten("flatten", 1, "global", "flat")
    dense = w.normal(10, 16, scale=6.0)
    dense_bias = w.normal(10, scale=0.5)
    add.add_inner_product("dense", dense, dense_bias, 16, 10, True, "flat", "logits")
    add.add_softmax("softmax", "logits", "scores")
    finish(builder, layout, scale, biases)

    def reference(x: torch.Tensor) -> torch.Tensor:
        y = F.pad(x, (1, 1, 1, 1), mode="reflect")
        y = F.conv2d(y, t1, t(b1), stride=2)
        y = F.batch_norm(y, t(mean), t(variance), t(gamma), t(beta), eps=1e-3)
        y = torch.where(y >= 0, y, y * t(slope).view(1, -1, 1, 1))
        y = F.conv2d(y, t2, None, padding=2, dilation=2, groups=2)
        y = y * t(factor).view(1, -1, 1, 1) + t(shift).view(1, -1, 1, 1)
        y = t(soft_alpha).view(1, -1, 1, 1) * torch.log1p(torch.exp(t(soft_beta).view(1, -1, 1, 1) * y))
        y = F.max_pool2d(F.pad(y, (0, 1, 0, 1), value=-np.inf), 3, 2)
        y = (0.5 * y.abs() + 0.1) ** 1.5 + t(plane_bias)
        cropped = y[:, :, 1:-3, 2:]
        y = cropped.repeat_interleave(2, dim=2).repeat_interleave(2, dim=3)
        pooled = F.avg_pool2d(y, 3, 2, padding=1, count_include_pad=False)
        l2 = pooled / torch.sqrt((pooled ** 2).sum(dim=(1, 2, 3), keepdim=True) + 1e-6) * 300.0
        rsqrt = 1 / torch.sqrt(pooled + 1.0 + 1e-3)
        y = torch.minimum(torch.maximum((l2 + rsqrt) / 2, pooled), cropped)
        y = F.pad(y, (0, 2, 1, 0), mode="replicate")
        y = F.pad(y, (1, 1, 0, 1), value=0.25)
        y = y.permute(0, 1, 3, 2)
        # channel last: [H, W, C] order, reshaped to [H', W', C'], back to channel first
        y = y.permute(0, 2, 3, 1).reshape(-1, 29, 54, 16).permute(0, 3, 1, 2)
        squares = F.pad((y ** 2).unsqueeze(1), (0, 0, 0, 0, 1, 1)).squeeze(1)
        window = squares[:, :-2] + squares[:, 1:-1] + squares[:, 2:]
        y = y / (2.0 + 0.05 / 3 * window) ** 0.75
        y = y.mean(dim=(2, 3))
        return torch.softmax(y @ t(dense).T + t(dense_bias), dim=1)

    return builder.spec, reference


def build_nd(layout: str, scale: float, biases: list[float], seed: int):
    w = Weights(seed)
    builder = NeuralNetworkBuilder(
        [("image", datatypes.Array(1, 3, 224, 224))],
        [("scores", datatypes.Array(1, len(CLASSES)))],
        mode="classifier", disable_rank5_shape_mapping=True)
    add = builder
    add.add_pooling("down", 4, 4, 4, 4, "AVERAGE", "VALID", "image", "down")
    w1, t1 = conv_weight(w, 3, 3, 6)
    b1 = w.normal(6, scale=0.1)
    add.add_convolution("conv", 3, 6, 3, 3, 1, 1, "same", 1, w1, b1, True,
                        input_name="down", output_name="conv")
    add.add_activation("elu", "ELU", "conv", "elu", params=0.5)
    add.add_activation("scaled_tanh", "SCALED_TANH", "conv", "scaled_tanh", params=[1.2, 0.7])
    add.add_activation("hard", "SIGMOID_HARD", "conv", "hard", params=[0.2, 0.5])
    add.add_activation("softsign", "SOFTSIGN", "conv", "softsign")
    add.add_activation("linear", "LINEAR", "conv", "linear", params=[0.5, 0.1])
    add.add_activation("thresholded", "THRESHOLDEDRELU", "conv", "thresholded", params=0.3)
    add.add_activation("leaky", "LEAKYRELU", "conv", "leaky", params=[0.1])
    add.add_add_broadcastable("sum", ["softsign", "linear"], "sum")
    add.add_subtract_broadcastable("difference", ["thresholded", "leaky"], "difference")
    add.add_multiply_broadcastable("product", ["sum", "difference"], "product")
    divisor = w.uniform(1.5, 3.0, 1, 6, 1, 1)
    add.add_load_constant_nd("divisor", "divisor", divisor, divisor.shape)
    add.add_divide_broadcastable("quotient", ["product", "divisor"], "quotient")
    half = np.full((1, 1, 1, 1), 0.5, np.float32)
    add.add_load_constant_nd("half", "half", half, half.shape)
    add.add_add_broadcastable("hard_plus", ["hard", "half"], "hard_plus")
    add.add_pow_broadcastable("power", ["hard_plus", "divisor"], "power")
    add.add_max_broadcastable("maximum", ["quotient", "elu"], "maximum")
    add.add_min_broadcastable("minimum", ["scaled_tanh", "power"], "minimum")
    add.add_concat_nd("joined", ["maximum", "minimum"], "joined", axis=1)
    # deconvolution: 12 -> 4 channels in 2 groups, 56 -> 112, padded as converters write it
    wd = w.normal(4, 4, 12, 2, scale=0.15)
    bd = w.normal(4, scale=0.1)
    add.add_convolution("deconv", 12, 4, 4, 4, 2, 2, "valid", 2, wd, bd, True, is_deconv=True,
                        output_shape=(112, 112), input_name="joined", output_name="deconv",
                        padding_top=1, padding_bottom=1, padding_left=1, padding_right=1)
    grids = ["DEFAULT", "ALIGN_CORNERS_TRUE", "ALIGN_CORNERS_FALSE"]
    for grid in grids:
        add.add_upsample(f"up_{grid}", 2, 2, "minimum", f"up_{grid}", mode="BILINEAR",
                         linear_upsample_mode=grid)
    add.add_concat_nd("stacked", ["deconv"] + [f"up_{g}" for g in grids], "stacked", axis=-3)
    gamma, beta = w.uniform(0.5, 1.5, 22), w.normal(22, scale=0.3)
    add.add_batchnorm("instance", 22, gamma, beta, input_name="stacked", output_name="instance",
                      compute_mean_var=True, instance_normalization=True, epsilon=1e-4)
    add.add_transpose("transpose", [0, 1, 3, 2], "instance", "transposed")
    add.add_unary("exp", "transposed", "exp", "exp", scale=0.5)
    add.add_unary("log", "exp", "log", "log", shift=1.0)
    add.add_unary("sqrt", "log", "sqrt", "sqrt")
    add.add_unary("inverse", "sqrt", "inverse", "inverse", shift=0.5, epsilon=1e-4)
    add.add_unary("threshold", "inverse", "threshold", "threshold", alpha=0.6)
    add.add_reduce_mean("mean", "threshold", "mean", axes=[2, 3], keepdims=True)
    add.add_reduce_max("row_max", "transposed", "row_max", axes=[-1], keepdims=False)
    add.add_reduce_sum("col_sum", "row_max", "col_sum", axes=[2], keepdims=True)
    add.add_squeeze("squeeze", "mean", "squeezed", axes=[2, 3])
    add.add_expand_dims("expand", "squeezed", "expanded", axes=[2])
    add.add_flatten_to_2d("flatten_mean", "expanded", "flat_mean", axis=1)
    add.add_flatten_to_2d("flatten_sum", "col_sum", "flat_sum", axis=1)
    add.add_concat_nd("features", ["flat_mean", "flat_sum"], "features", axis=1)
    # The column sums run to hundreds: their weights are small, so no logit dominates.
    dense = w.normal(10, 44) * np.repeat(np.float32([0.5, 0.002]), 22)[None, :]
    dense_bias = w.normal(10, scale=0.3)
    add.add_inner_product("dense", dense, dense_bias, 44, 10, True, "features", "logits_flat")
    add.add_reshape_static("reshape", "logits_flat", "logits", (1, 10))
    add.add_softmax_nd("softmax", "logits", "scores", axis=-1)
    finish(builder, layout, scale, biases)

    def reference(x: torch.Tensor) -> torch.Tensor:
        y = F.avg_pool2d(x, 4, 4)
        conv = F.conv2d(y, t1, t(b1), padding=1)
        elu = torch.where(conv >= 0, conv, 0.5 * (torch.exp(conv) - 1))
        scaled_tanh = 1.2 * torch.tanh(0.7 * conv)
        hard = torch.clamp(0.2 * conv + 0.5, 0, 1)
        softsign = conv / (1 + conv.abs())
        linear = 0.5 * conv + 0.1
        thresholded = torch.where(conv > 0.3, conv, torch.zeros_like(conv))
        leaky = torch.where(conv >= 0, conv, 0.1 * conv)
        d = t(divisor)
        quotient = (softsign + linear) * (thresholded - leaky) / d
        power = (hard + 0.5) ** d
        maximum = torch.maximum(quotient, elu)
        minimum = torch.minimum(scaled_tanh, power)
        joined = torch.cat([maximum, minimum], dim=1)
        deconv = F.conv_transpose2d(joined, t(wd.transpose(2, 3, 0, 1)), t(bd), stride=2,
                                    padding=1, groups=2)
        ups = [upsample_linear(minimum, 2, grid) for grid in grids]
        stacked = torch.cat([deconv] + ups, dim=1)
        mu = stacked.mean(dim=(2, 3), keepdim=True)
        var = ((stacked - mu) ** 2).mean(dim=(2, 3), keepdim=True)
        y = (stacked - mu) / torch.sqrt(var + 1e-4) * t(gamma).view(1, -1, 1, 1) + t(beta).view(
            1, -1, 1, 1)
        transposed = y.transpose(2, 3)
        u = torch.exp(0.5 * transposed)
        u = torch.log(u + 1.0)  # the builder stores epsilon 1e-45 for LOG: log(x + epsilon)
        u = torch.sqrt(u)
        u = 1 / (u + 0.5 + 1e-4)
        u = torch.maximum(u, torch.tensor(0.6))
        mean = u.mean(dim=(2, 3))
        col_sum = transposed.amax(dim=-1).sum(dim=2)
        features = torch.cat([mean, col_sum], dim=1)
        return torch.softmax(features @ t(dense).T + t(dense_bias), dim=-1)

    return builder.spec, reference


def finish(builder: NeuralNetworkBuilder, layout: str, scale: float, biases: list[float]) -> None:
    """The image input's preprocessing (biases in the model's colour order) and the labels."""
    red, green, blue = biases if layout == "RGB" else biases[::-1]
    builder.set_pre_processing_parameters(
        image_input_names=["image"], is_bgr=layout == "BGR", red_bias=red, green_bias=green,
        blue_bias=blue, image_scale=scale)
    builder.set_class_labels(CLASSES, prediction_blob="scores")


NETWORKS = {"layers_rank5": build_rank5, "layers_nd": build_nd}
