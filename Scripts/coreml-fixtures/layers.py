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
- `layers_reduce`: the rank-4 reduce in its ten modes over its five axis sets, the rank-N
  reductions (L1, L2, min, product, log-sum, sum of squares, log-sum-exp), argMax and argMin,
  reorganizeData (space to depth, depth to space, pixel shuffle), slice, sliceStatic (negative
  strides, masks, a squeezed axis), split, splitND, interleaved concatND, constantPad,
  resizeBilinear on its four grids, batchedMatmul (with weights and bias, and of two blobs
  transposed), GELU in its three forms, erf, clamped ReLU, mean-variance normalization, copy and
  loadConstant.
  Indices are taken of the image's own values, whose ties are exact, so no rounding moves them.
- `layers_se`: squeeze-excitation blocks as coremltools' NeuralNetworkBuilder writes them
  (global pooling, inner product, ReLU, inner product, sigmoid, multiply), one straight on the
  pooled `[C, 1, 1]` blob and one through a flatten, which keeps the rank in Core ML: an inner
  product of a `[C, 1, 1]` blob is `[C_out, 1, 1]`, and it broadcasts over the image.
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


def interpolate(x: torch.Tensor, axis: int, position: torch.Tensor) -> torch.Tensor:
    """Linear interpolation of `x` along `axis` at the positions (each within the axis)."""
    low = position.floor().long()
    high = (low + 1).clamp(max=x.shape[axis] - 1)
    weight = (position - low).to(x.dtype)
    shape = [1] * x.dim()
    shape[axis] = -1
    weight = weight.reshape(shape)
    return x.index_select(axis, low) * (1 - weight) + x.index_select(axis, high) * weight


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

    return interpolate(interpolate(x, 2, points(x.shape[2])), 3, points(x.shape[3]))


def resize_bilinear(x: torch.Tensor, height: int, width: int, mode: str) -> torch.Tensor:
    """Core ML's resizeBilinear, from SamplingMode's grid formulas (X in, N out)."""
    def points(size_in: int, size_out: int) -> torch.Tensor:
        X, N = float(size_in), size_out
        if mode == "STRICT_ALIGN_ENDPOINTS_MODE" or (mode == "ALIGN_ENDPOINTS_MODE" and N > 1):
            start, end = 0.0, X - 1
        elif mode == "ALIGN_ENDPOINTS_MODE":
            start = end = (X - 1) / 2
        elif mode == "UPSAMPLE_MODE":
            start, end = 0.0, X - X / N
        else:
            spacing = max(1.0, X - 1) / N
            start = 0.5 * spacing
            end = start + (N - 1) * spacing
        return torch.linspace(start, end, N, dtype=torch.float64).clamp(max=X - 1)

    y = interpolate(x, 2, points(x.shape[2], height))
    return interpolate(y, 3, points(x.shape[3], width))


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


def nd_builder() -> NeuralNetworkBuilder:
    """A classifier over a 224 x 224 RGB image with rank-N (not rank-5) blobs."""
    return NeuralNetworkBuilder(
        [("image", datatypes.Array(1, 3, 224, 224))],
        [("scores", datatypes.Array(1, len(CLASSES)))],
        mode="classifier", disable_rank5_shape_mapping=True)


def build_nd(layout: str, scale: float, biases: list[float], seed: int):
    w = Weights(seed)
    builder = nd_builder()
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


def build_reduce(layout: str, scale: float, biases: list[float], seed: int):
    w = Weights(seed)
    builder = nd_builder()
    add = builder
    features: list[str] = []
    # Each feature blob's columns of the dense layer are scaled so that no blob dominates.
    spreads: list[tuple[int, float]] = []

    def feature(blob: str, count: int, spread: float) -> None:
        add.add_flatten_to_2d(f"{blob}_flat", blob, f"{blob}_flat", axis=1)
        features.append(f"{blob}_flat")
        spreads.append((count, spread))

    masks = {}

    def probe(blob: str, channels: int, height: int, width: int, spread: float) -> None:
        """A seeded weighted sum over height and width per channel: one feature per channel."""
        mask = w.normal(1, 1, height, width, scale=1.0 / np.sqrt(height * width))
        masks[blob] = mask
        add.add_load_constant_nd(f"{blob}_mask", f"{blob}_mask", mask, mask.shape)
        add.add_multiply_broadcastable(f"{blob}_masked", [blob, f"{blob}_mask"],
                                       f"{blob}_masked")
        add.add_reduce_sum(f"{blob}_probe", f"{blob}_masked", f"{blob}_probe", axes=[2, 3],
                           keepdims=False)
        features.append(f"{blob}_probe")
        spreads.append((channels, spread))

    # The image's own values, every 16th row and column: ties are exact, so indices are stable.
    add.add_slice("rows", "image", "rows", "height", start_index=3, end_index=-2, stride=16)
    add.add_slice("pixels", "rows", "pixels", "width", start_index=5, end_index=-1, stride=16)
    add.add_pooling("down", 8, 8, 8, 8, "AVERAGE", "VALID", "image", "down")
    w1, t1 = conv_weight(w, 3, 3, 8)
    b1 = w.normal(8, scale=0.3)
    add.add_convolution("conv", 3, 8, 3, 3, 1, 1, "same", 1, w1, b1, True,
                        input_name="down", output_name="conv")
    add.add_pooling("small", 4, 4, 4, 4, "AVERAGE", "VALID", "conv", "small")
    add.add_activation("tanh", "TANH", "small", "tanh")
    # 1 + tanh / 100: products of up to 392 of them stay within e^+-4.
    add.add_activation("near_one", "LINEAR", "tanh", "near_one", params=[0.01, 1.0])

    # The rank-4 reduce: [C, H, W] = [8, 7, 7] reduces to 1, 8, 49, 56 and 56 values.
    axes = {"CHW": (1, 392), "HW": (8, 49), "C": (49, 8), "H": (56, 7), "W": (56, 7)}
    modes = ["sum", "avg", "prod", "logsum", "sumsquare", "L1", "L2", "max", "min"]
    for mode in modes:
        source = "near_one" if mode in ("prod", "logsum") else "small"
        for axis, (count, reduced) in axes.items():
            blob = f"reduce_{mode}_{axis}"
            add.add_reduce(blob, source, blob, axis, mode, epsilon=1e-6)
            spread = {"sum": reduced, "L1": reduced, "sumsquare": reduced,
                      "L2": np.sqrt(reduced), "logsum": 0.01 * reduced,
                      "prod": np.exp(0.01 * reduced)}.get(mode, 1.0)
            feature(blob, count, spread)
    for axis, count, extent in [("C", 196, 3), ("H", 42, 14), ("W", 42, 14)]:
        add.add_reduce(f"reduce_argmax_{axis}", "pixels", f"reduce_argmax_{axis}", axis, "argmax")
        feature(f"reduce_argmax_{axis}", count, extent)

    # The rank-N reductions, argMax and argMin.
    add.add_reduce_l1("nd_l1", "small", "nd_l1", axes=[2, 3], keepdims=False)
    add.add_reduce_l2("nd_l2", "small", "nd_l2", axes=[-1], keepdims=True)
    add.add_reduce_min("nd_min", "small", "nd_min", axes=[1], keepdims=False)
    add.add_reduce_prod("nd_prod", "near_one", "nd_prod", axes=[1, 2], keepdims=True)
    add.add_reduce_logsum("nd_logsum", "near_one", "nd_logsum", keepdims=True, reduce_all=True)
    add.add_reduce_sumsquare("nd_sumsquare", "small", "nd_sumsquare", axes=[1, 3],
                             keepdims=False)
    add.add_reduce_logsumexp("nd_logsumexp", "small", "nd_logsumexp", axes=[-2], keepdims=True)
    add.add_argmax("nd_argmax", "pixels", "nd_argmax", axis=1, keepdims=False)
    add.add_argmin("nd_argmin", "pixels", "nd_argmin", axis=-1, keepdims=True)
    for blob, count, spread in [
            ("nd_l1", 8, 49), ("nd_l2", 56, np.sqrt(7)), ("nd_min", 49, 1),
            ("nd_prod", 7, 1), ("nd_logsum", 1, 6), ("nd_sumsquare", 7, 56),
            ("nd_logsumexp", 56, 2), ("nd_argmax", 196, 3), ("nd_argmin", 42, 14)]:
        feature(blob, count, spread)

    # reorganizeData: space to depth, scaled per channel, back by both depth-to-space orders.
    add.add_reorganize_data("to_depth", "conv", "to_depth", "SPACE_TO_DEPTH", 2)
    depth_scale = w.uniform(0.5, 2.0, 32)
    add.add_scale("depth_scaled", depth_scale, None, False, "to_depth", "depth_scaled",
                  shape_scale=[32])
    add.add_reorganize_data("to_space", "depth_scaled", "to_space", "DEPTH_TO_SPACE", 2)
    add.add_reorganize_data("shuffled", "depth_scaled", "shuffled", "PIXEL_SHUFFLE", 2)
    probe("depth_scaled", 32, 14, 14, 1)
    probe("to_space", 8, 28, 28, 1)
    probe("shuffled", 8, 28, 28, 1)

    # Slices: every other channel from 1 to the third last, a static slice with negative
    # strides and masks, and one channel squeezed out.
    add.add_copy("small_copy", "small", "small_copy")
    offsets = w.normal(8, 1, 1, scale=0.5)
    add.add_load_constant("offsets", "offsets", offsets, [8, 1, 1])
    add.add_add_broadcastable("shifted", ["small_copy", "offsets"], "shifted")
    probe("shifted", 8, 7, 7, 1)
    add.add_slice("odd_channels", "small_copy", "odd_channels", "channel", start_index=1,
                  end_index=-2, stride=2)
    add.add_slice_static("strided", "small", "strided", begin_ids=[0, 6, 1, 0],
                         end_ids=[1, 0, -1, 0], strides=[1, -2, 2, -3],
                         begin_masks=[False, False, False, True],
                         end_masks=[False, True, False, True])
    add.add_slice_static("last_channel", "small", "last_channel", begin_ids=[0, -1, 0, 0],
                         end_ids=[1, 0, 0, 0], strides=[1, 1, 1, 1],
                         begin_masks=[False, False, True, True],
                         end_masks=[False, False, True, True],
                         squeeze_masks=[False, True, False, False])
    feature("odd_channels", 147, 1)
    feature("strided", 36, 1)
    feature("last_channel", 49, 1)

    # Splits: channel halves (rank-4 split and splitND), and widths of 2 and 5.
    add.add_split("halves", "small", ["half_a", "half_b"])
    add.add_subtract_broadcastable("half_difference", ["half_a", "half_b"], "half_difference")
    add.add_split_nd("nd_halves", "small", ["nd_half_a", "nd_half_b"], axis=1, num_splits=2)
    add.add_multiply_broadcastable("nd_half_product", ["nd_half_a", "nd_half_b"],
                                   "nd_half_product")
    add.add_split_nd("widths", "small", ["narrow", "wide"], axis=-1, split_sizes=[2, 5])
    probe("half_difference", 4, 7, 7, 1)
    probe("nd_half_product", 4, 7, 7, 1)
    probe("narrow", 8, 7, 2, 1)
    probe("wide", 8, 7, 5, 1)

    # Interleaved concatND: ShuffleNet's channel shuffle, and the same along the last axis.
    add.add_concat_nd("channel_shuffle", ["small", "tanh"], "channel_shuffle", axis=1,
                      interleave=True)
    add.add_concat_nd("column_shuffle", ["small", "near_one"], "column_shuffle", axis=-1,
                      interleave=True)
    probe("channel_shuffle", 16, 7, 7, 1)
    probe("column_shuffle", 8, 7, 14, 1)

    # constantPad: channels 1 before and 2 after, width 1 after, with 0.5.
    add.add_constant_pad("padded", ["small"], "padded", value=0.5,
                         pad_amounts=[0, 0, 1, 2, 0, 0, 0, 1])
    probe("padded", 11, 7, 8, 1)

    # resizeBilinear on its four grids (the aligned endpoints to one row: its centre).
    grids = {"STRICT_ALIGN_ENDPOINTS_MODE": (5, 11), "ALIGN_ENDPOINTS_MODE": (1, 11),
             "UPSAMPLE_MODE": (5, 11), "ROI_ALIGN_MODE": (5, 11)}
    for grid, (height, width) in grids.items():
        add.add_resize_bilinear(f"resize_{grid}", "small", f"resize_{grid}", height, width, grid)
        probe(f"resize_{grid}", 8, height, width, 1)

    # batchedMatmul: channels last times a weight matrix plus a bias (a linear layer on a rank-4
    # blob, as converters write it), and a blob times another with either transposed.
    add.add_transpose("channels_last", [0, 2, 3, 1], "small", "channels_last")
    matrix, matrix_bias = w.normal(8, 6, scale=0.4), w.normal(6, scale=0.2)
    add.add_batched_mat_mul("linear", ["channels_last"], "linear", weight_matrix_rows=8,
                            weight_matrix_columns=6, W=matrix, bias=matrix_bias)
    add.add_batched_mat_mul("times_transposed", ["small", "tanh"], "times_transposed",
                            transpose_b=True)
    add.add_batched_mat_mul("transposed_times", ["small", "tanh"], "transposed_times",
                            transpose_a=True)
    probe("linear", 7, 7, 6, 1)
    probe("times_transposed", 8, 7, 7, 1)
    probe("transposed_times", 8, 7, 7, 1)

    # Activations and normalizations.
    for mode in ["EXACT", "TANH_APPROXIMATION", "SIGMOID_APPROXIMATION"]:
        add.add_gelu(f"gelu_{mode}", "small", f"gelu_{mode}", mode)
        probe(f"gelu_{mode}", 8, 7, 7, 1)
    add.add_erf("erf", "small", "erf")
    add.add_clamped_relu("clamped", "small", "clamped", alpha=0.2, beta=0.8)
    add.add_mvn("mvn_all", "small", "mvn_all", across_channels=True, normalize_variance=True,
                epsilon=1e-3)
    add.add_mvn("mvn_planes", "small", "mvn_planes", across_channels=False,
                normalize_variance=True, epsilon=1e-3)
    add.add_mvn("mvn_mean", "small", "mvn_mean", across_channels=False, normalize_variance=False)
    for blob in ["erf", "clamped", "mvn_all", "mvn_planes", "mvn_mean"]:
        probe(blob, 8, 7, 7, 1)

    add.add_concat_nd("features", features, "features", axis=1)
    total = sum(count for count, _ in spreads)
    columns = np.concatenate(
        [np.full(count, 1 / (spread * np.sqrt(count)), np.float32) for count, spread in spreads])
    dense = w.normal(10, total, scale=3.0 / np.sqrt(len(spreads))) * columns[None, :]
    dense_bias = w.normal(10, scale=0.3)
    add.add_inner_product("dense", dense, dense_bias, total, 10, True, "features", "logits_flat")
    add.add_reshape_static("reshape", "logits_flat", "logits", (1, 10))
    add.add_softmax_nd("softmax", "logits", "scores", axis=-1)
    finish(builder, layout, scale, biases)

    def reduce(x: torch.Tensor, mode: str, axis: str) -> torch.Tensor:
        """ReduceLayerParams' functions over its axis sets, reduced axes kept."""
        dims = {"CHW": (1, 2, 3), "HW": (2, 3), "C": (1,), "H": (2,), "W": (3,)}[axis]
        x = x.double()
        if mode == "argmax":
            return x.argmax(dim=dims[0], keepdim=True).float()
        y = {
            "sum": lambda: x.sum(dims, keepdim=True),
            "avg": lambda: x.mean(dims, keepdim=True),
            "prod": lambda: x.flatten(dims[0], dims[-1]).prod(dims[0], keepdim=True),
            "logsum": lambda: torch.log(x + 1e-6).sum(dims, keepdim=True),
            "sumsquare": lambda: (x ** 2).sum(dims, keepdim=True),
            "L1": lambda: x.abs().sum(dims, keepdim=True),
            "L2": lambda: torch.sqrt((x ** 2).sum(dims, keepdim=True)),
            "max": lambda: x.amax(dims, keepdim=True),
            "min": lambda: x.amin(dims, keepdim=True),
        }[mode]()
        return y.reshape([x.shape[0]] + [1 if d in dims else x.shape[d] for d in (1, 2, 3)]).float()

    def reorganize(x: torch.Tensor, mode: str) -> torch.Tensor:
        """The proto's example orders: DEPTH_TO_SPACE takes channel (i * b + j) * C + c to
        position (i, j) of block c; PIXEL_SHUFFLE takes channel c * b * b + i * b + j."""
        n, c, h, w_ = x.shape
        if mode == "SPACE_TO_DEPTH":
            return x.reshape(n, c, h // 2, 2, w_ // 2, 2).permute(0, 3, 5, 1, 2, 4).reshape(
                n, 4 * c, h // 2, w_ // 2)
        if mode == "DEPTH_TO_SPACE":
            return x.reshape(n, 2, 2, c // 4, h, w_).permute(0, 3, 4, 1, 5, 2).reshape(
                n, c // 4, 2 * h, 2 * w_)
        return x.reshape(n, c // 4, 2, 2, h, w_).permute(0, 1, 4, 2, 5, 3).reshape(
            n, c // 4, 2 * h, 2 * w_)

    def reference(x: torch.Tensor) -> torch.Tensor:
        out = []

        def probed(y: torch.Tensor, blob: str) -> None:
            out.append((y * t(masks[blob])).sum(dim=(2, 3)))

        pixels = x[:, :, 3:-2:16, 5:-1:16]
        conv = F.conv2d(F.avg_pool2d(x, 8, 8), t1, t(b1), padding=1)
        small = F.avg_pool2d(conv, 4, 4)
        near_one = 0.01 * torch.tanh(small) + 1.0
        for mode in modes:
            source = near_one if mode in ("prod", "logsum") else small
            for axis in axes:
                out.append(reduce(source, mode, axis).flatten(1))
        for axis in ["C", "H", "W"]:
            out.append(reduce(pixels, "argmax", axis).flatten(1))
        d = small.double()
        near = near_one.double()
        out += [t_.float().flatten(1) for t_ in [
            d.abs().sum(dim=(2, 3)),
            torch.sqrt((d ** 2).sum(dim=-1, keepdim=True)),
            d.amin(dim=1),
            near.prod(dim=2, keepdim=True).prod(dim=1, keepdim=True),
            torch.log(near.sum(dim=(1, 2, 3), keepdim=True)),  # all axes: the batch is one photo
            (d ** 2).sum(dim=(1, 3)),
            torch.logsumexp(d, dim=-2, keepdim=True),
            pixels.argmax(dim=1).double(),
            pixels.argmin(dim=-1, keepdim=True).double(),
        ]]
        depth_scaled = reorganize(conv, "SPACE_TO_DEPTH") * t(depth_scale).view(1, -1, 1, 1)
        probed(depth_scaled, "depth_scaled")
        probed(reorganize(depth_scaled, "DEPTH_TO_SPACE"), "to_space")
        probed(reorganize(depth_scaled, "PIXEL_SHUFFLE"), "shuffled")
        probed(small + t(offsets).view(1, 8, 1, 1), "shifted")
        out.append(small[:, 1:-2:2].flatten(1))
        strided = small[:, [6, 4, 2, 0]][:, :, 1:-1:2][:, :, :, [6, 3, 0]]
        out.append(strided.flatten(1))
        out.append(small[:, -1].flatten(1))
        probed(small[:, :4] - small[:, 4:], "half_difference")
        probed(small[:, :4] * small[:, 4:], "nd_half_product")
        probed(small[..., :2], "narrow")
        probed(small[..., 2:], "wide")
        probed(torch.stack([small, torch.tanh(small)], dim=2).flatten(1, 2), "channel_shuffle")
        probed(torch.stack([small, near_one], dim=-1).flatten(-2), "column_shuffle")
        probed(F.pad(small, (0, 1, 0, 0, 1, 2), value=0.5), "padded")
        for grid, (height, width) in grids.items():
            probed(resize_bilinear(small, height, width, grid), f"resize_{grid}")
        tanh = torch.tanh(small)
        probed(small.permute(0, 2, 3, 1) @ t(matrix) + t(matrix_bias), "linear")
        probed(small @ tanh.transpose(2, 3), "times_transposed")
        probed(small.transpose(2, 3) @ tanh, "transposed_times")
        probed(0.5 * small * (1 + torch.erf(small / np.sqrt(2))), "gelu_EXACT")
        inner = np.sqrt(2 / np.pi) * (small + 0.044715 * small ** 3)
        probed(0.5 * small * (1 + torch.tanh(inner)), "gelu_TANH_APPROXIMATION")
        probed(small * torch.sigmoid(1.702 * small), "gelu_SIGMOID_APPROXIMATION")
        probed(torch.erf(small), "erf")
        probed(torch.minimum(torch.where(small >= 0, small, 0.2 * small), torch.tensor(0.8)),
               "clamped")
        for blob, dims, normalized in [("mvn_all", (1, 2, 3), True),
                                       ("mvn_planes", (2, 3), True),
                                       ("mvn_mean", (2, 3), False)]:
            centred = small - small.mean(dim=dims, keepdim=True)
            if normalized:
                variance = (centred ** 2).mean(dim=dims, keepdim=True)
                centred = centred / torch.sqrt(variance + 1e-3)
            probed(centred, blob)
        features = torch.cat(out, dim=1)
        return torch.softmax(features @ t(dense).T + t(dense_bias), dim=-1)

    return builder.spec, reference


def build_se(layout: str, scale: float, biases: list[float], seed: int):
    w = Weights(seed)
    builder = NeuralNetworkBuilder(
        [("image", datatypes.Array(3, 224, 224))], [("scores", datatypes.Array(len(CLASSES)))],
        mode="classifier")
    add = builder
    w1, t1 = conv_weight(w, 3, 3, 16)
    b1 = w.normal(16, scale=0.1)
    add.add_convolution("conv", 3, 16, 3, 3, 4, 4, "valid", 1, w1, b1, True,
                        input_name="image", output_name="conv")
    add.add_activation("relu", "RELU", "conv", "relu")

    def squeeze_excite(prefix: str, source: str, flatten: bool):
        add.add_pooling(prefix + "_pool", 0, 0, 1, 1, "AVERAGE", "VALID", source, prefix + "_pool",
                        is_global=True)
        pooled = prefix + "_pool"
        if flatten:
            add.add_flatten(prefix + "_flat", 0, pooled, prefix + "_flat")
            pooled = prefix + "_flat"
        down, down_bias = w.normal(4, 16, scale=0.5), w.normal(4, scale=0.1)
        up, up_bias = w.normal(16, 4, scale=0.5), w.normal(16, scale=0.1)
        add.add_inner_product(prefix + "_down", down, down_bias, 16, 4, True, pooled,
                              prefix + "_down")
        add.add_activation(prefix + "_down_relu", "RELU", prefix + "_down", prefix + "_down_relu")
        add.add_inner_product(prefix + "_up", up, up_bias, 4, 16, True, prefix + "_down_relu",
                              prefix + "_up")
        add.add_activation(prefix + "_gate", "SIGMOID", prefix + "_up", prefix + "_gate")
        add.add_elementwise(prefix + "_scaled", [source, prefix + "_gate"], prefix + "_scaled",
                            "MULTIPLY")

        def reference(x: torch.Tensor) -> torch.Tensor:
            pooled = x.mean(dim=(2, 3))
            hidden = torch.relu(pooled @ t(down).T + t(down_bias))
            gate = torch.sigmoid(hidden @ t(up).T + t(up_bias))
            return x * gate[:, :, None, None]

        return prefix + "_scaled", reference

    first, se1 = squeeze_excite("se1", "relu", flatten=False)
    second, se2 = squeeze_excite("se2", first, flatten=True)
    add.add_pooling("global", 0, 0, 1, 1, "AVERAGE", "VALID", second, "global", is_global=True)
    add.add_flatten("flatten", 0, "global", "flat")
    dense = w.normal(10, 16, scale=1.5)
    dense_bias = w.normal(10, scale=0.5)
    add.add_inner_product("dense", dense, dense_bias, 16, 10, True, "flat", "logits")
    add.add_softmax("softmax", "logits", "scores")
    finish(builder, layout, scale, biases)

    def reference(x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(F.conv2d(x, t1, t(b1), stride=4))
        y = se2(se1(y))
        return torch.softmax(y.mean(dim=(2, 3)) @ t(dense).T + t(dense_bias), dim=1)

    return builder.spec, reference


def finish(builder: NeuralNetworkBuilder, layout: str, scale: float, biases: list[float]) -> None:
    """The image input's preprocessing (biases in the model's colour order) and the labels."""
    red, green, blue = biases if layout == "RGB" else biases[::-1]
    builder.set_pre_processing_parameters(
        image_input_names=["image"], is_bgr=layout == "BGR", red_bias=red, green_bias=green,
        blue_bias=blue, image_scale=scale)
    builder.set_class_labels(CLASSES, prediction_blob="scores")


NETWORKS = {"layers_rank5": build_rank5, "layers_nd": build_nd, "layers_reduce": build_reduce,
            "layers_se": build_se}
