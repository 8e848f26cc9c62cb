"""PyTorch networks for the ML Program fixtures beside torchvision's classifiers (see generate.py).

`vit` is torchvision's VisionTransformer at a toy size. `layers_a` and `layers_b` are hand-built
so that their conversion emits many MIL operations: `layers_a` the spatial ones (convolutions,
normalizations, activations, pooling, resampling, padding), `layers_b` tensor algebra (arithmetic,
comparisons and select, reductions, reshaping, slicing, gather, tile, matmul, einsum, cast). Both
shrink the 224 x 224 input early, so a forward pass in a debug build is cheap. Weights are seeded
and drawn larger than PyTorch's defaults, so the 1000 logits are spread out.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


def randomize(model: nn.Module, seed: int) -> nn.Module:
    """Seeded weights with a spread that keeps activations and logits away from zero."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, tensor in model.named_parameters():
            if name.endswith("bias") or tensor.dim() == 1:
                tensor.copy_(torch.randn(tensor.shape, generator=generator) * 0.2
                             + (1.0 if _is_scale(name) else 0.0))
            else:
                fan_in = tensor[0].numel() if tensor.dim() > 1 else 1
                tensor.copy_(torch.randn(tensor.shape, generator=generator) * (1.5 / fan_in) ** 0.5)
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                count = module.num_features
                module.running_mean.copy_(torch.randn(count, generator=generator) * 0.3)
                module.running_var.copy_(torch.rand(count, generator=generator) * 1.5 + 0.5)
    return model.eval()


def _is_scale(name: str) -> bool:
    """A normalization's gamma: drawn around 1."""
    return name.endswith("weight") and any(part in name for part in ("ln", "norm", "bn"))


def vit(seed: int) -> nn.Module:
    """A two-layer VisionTransformer (hidden 64, 4 heads, patch 16) with spread-out weights.

    torchvision zeroes the head and the class token; here every parameter is random, and the
    positional embedding has a standard deviation of 0.5 so that the tokens differ.
    """
    from torchvision.models.vision_transformer import VisionTransformer

    torch.manual_seed(seed)
    model = VisionTransformer(image_size=224, patch_size=16, num_layers=2, num_heads=4,
                              hidden_dim=64, mlp_dim=128, num_classes=1000)
    randomize(model, seed + 1)
    generator = torch.Generator().manual_seed(seed + 2)
    with torch.no_grad():
        model.encoder.pos_embedding.copy_(
            torch.randn(model.encoder.pos_embedding.shape, generator=generator) * 0.5)
        model.class_token.copy_(torch.randn(model.class_token.shape, generator=generator))
        head = model.heads.head.weight
        head.copy_(torch.randn(head.shape, generator=generator) * 0.5)
    return model.eval()


class LayersA(nn.Module):
    """Convolutions, normalizations, activations, pooling, resampling and padding."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 4, stride=4, padding="valid")
        self.dilated = nn.Conv2d(8, 8, 3, padding="same", dilation=2, groups=2)
        # After a leaky ReLU, so the converter cannot fold it into a convolution.
        self.bn = nn.BatchNorm2d(8)
        self.down = nn.Conv2d(8, 16, 3, stride=2, padding=(1, 2))
        self.prelu = nn.PReLU(16)
        self.instance_norm = nn.InstanceNorm2d(16, affine=True)
        self.ln = nn.LayerNorm(16)
        self.up = nn.ConvTranspose2d(16, 16, 2, stride=2)
        self.up_padded = nn.ConvTranspose2d(16, 16, 3, stride=2, padding=1, output_padding=1)
        self.head_conv = nn.Conv2d(16, 8, 5, stride=5)
        self.fc = nn.Linear(8 * 6 * 6, 1000)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu6(self.stem(x)) + torch.clamp(self.stem(x), -1.0, 2.0)  # [1, 8, 56, 56]
        y = self.bn(F.leaky_relu(self.dilated(x), 0.2))
        y = self.prelu(self.down(y))                                    # [1, 16, 28, 29]
        y = F.max_pool2d(y, 3, 2, ceil_mode=True)                       # [1, 16, 14, 14]
        pooled = F.avg_pool2d(y, 3, 2, padding=1, ceil_mode=True, count_include_pad=False)  # 8 x 8
        a = self.instance_norm(y)
        b = self.ln(y.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        parts = torch.split(a + b, 2, dim=1)
        c = torch.cat([
            torch.sigmoid(parts[0]), F.hardsigmoid(parts[1]), F.silu(parts[2]),
            F.gelu(parts[3]), F.gelu(parts[4], approximate="tanh"), torch.tanh(parts[5]),
            torch.erf(parts[6]), torch.softmax(parts[7], dim=1),
        ], dim=1)                                                       # [1, 16, 14, 14]
        # An integer scale: coremltools turns 8 -> 14 into a scale of 1.7500125, whose nearest
        # source rows (floor(row / scale)) are not PyTorch's.
        c = F.relu(c + F.interpolate(pooled, scale_factor=2.0, mode="nearest")[:, :, 1:15, 1:15])
        r = (F.interpolate(c, scale_factor=2.0, mode="bilinear", align_corners=False)
             + F.interpolate(c, size=(28, 28), mode="bilinear", align_corners=True)
             + F.interpolate(c, scale_factor=2.0, mode="nearest")
             + self.up(c) - self.up_padded(c))                          # [1, 16, 28, 28]
        r = (F.pad(r, (1, 1, 1, 1), mode="reflect")
             + F.pad(r, (2, 0, 0, 2), mode="replicate")
             + F.pad(r, (0, 2, 1, 1), mode="constant", value=0.25))      # [1, 16, 30, 30]
        features = F.relu(self.head_conv(r))                           # [1, 8, 6, 6]
        return self.fc(torch.flatten(features, 1))


class LayersB(nn.Module):
    """Arithmetic, comparisons, reductions, reshaping, slicing, gather, tile, matmul, einsum.

    Both branches of each select agree where its comparison flips, so a float32 runtime that
    decides a near-tie the other way still lands next to the reference. The one discontinuity is
    an argmax over the channel means: after a forward pass outside tracing, `margins` holds the
    gap between the two best, so the generator can refuse a seed where it is a near-tie.
    """

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 8, stride=8)
        self.token = nn.Linear(8, 16)
        self.mix = nn.Parameter(torch.zeros(16, 16))
        self.register_buffer("order", torch.tensor([3, 0, 7, 12, 5, 9, 1, 14]))
        self.register_buffer("channels", torch.arange(16))
        self.fc = nn.Linear(40 * 14 + 16 * 5 + 14 + 8 * 12, 1000)
        self.margins: dict[str, float] = {}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.avg_pool2d(F.relu(self.stem(x)), 2)                       # [1, 8, 14, 14]
        tokens = x.flatten(2).transpose(1, 2)                           # [1, 196, 8]
        h = self.token(tokens)                                          # [1, 196, 16]
        attention = torch.softmax(torch.matmul(h, h.transpose(1, 2)) * 0.25, dim=-1)
        context = torch.matmul(attention, h) + torch.matmul(h, self.mix)
        g = torch.tanh(context).transpose(1, 2).reshape(1, 16, 14, 14)
        e = torch.einsum("nchw,nwhu->nchu", g, g.permute(0, 3, 2, 1)) / 14  # [1, 16, 14, 16]
        e = e[:, :, :, 1:15] / (torch.sigmoid(g) + 0.5)                 # [1, 16, 14, 14]

        p, q = torch.chunk(e, 2, dim=1)                                 # [1, 8, 14, 14] each
        arithmetic = (torch.maximum(p, q) - torch.minimum(p * 0.5, q)
                      + torch.pow(torch.sigmoid(p) + 0.5, 1.5))
        chosen = torch.where(p > q, p, q)
        chosen = torch.where(q < -0.5, chosen - (q + 0.5), chosen)
        merged = torch.cat([arithmetic, chosen], dim=1)                # [1, 16, 14, 14]

        means = merged.mean(dim=(2, 3))                                 # [1, 16]
        best = torch.argmax(means, dim=1, keepdim=True)                 # [1, 1]
        gate = (self.channels == best).to(merged.dtype) + 1             # 2 at the best channel
        position = best.to(merged.dtype) / 16
        stats = torch.cat([
            merged.amax(dim=(2, 3)).unsqueeze(-1), merged.amin(dim=(2, 3)).unsqueeze(-1),
            torch.sigmoid(merged[:, :, :3, 0]).sum(dim=2).unsqueeze(-1),
            (torch.norm(merged, p=2, dim=(2, 3)) * 0.1).unsqueeze(-1),
            torch.logsumexp(merged.flatten(2), dim=2).unsqueeze(-1),
        ], dim=2) * (1 + position)                                      # [1, 16, 5]
        picked = torch.index_select(merged, 1, self.order)             # [1, 8, 14, 14]
        tiled = picked[:, :, ::2, :].repeat(1, 1, 2, 1)                 # [1, 8, 14, 14]
        rows = torch.cat([
            merged.mean(dim=2) * gate.unsqueeze(-1), merged.sum(dim=3) * 0.1,
            (tiled * picked).mean(dim=3),
        ], dim=1)                                                       # [1, 40, 14]
        first = merged[:, :1].squeeze(1)                                # [1, 14, 14]
        folded = F.fold(picked.reshape(1, 32, 49), (12, 12), 2, stride=2, padding=1)
        if not torch.jit.is_tracing():
            top2 = torch.topk(means, 2, dim=1).values
            self.margins = {"argmax": float((top2[:, 0] - top2[:, 1]).min())}
        return self.fc(torch.cat([rows.flatten(1), stats.flatten(1), first.mean(dim=2),
                                  folded.mean(dim=3).flatten(1)], dim=1))


def layers_a(seed: int) -> nn.Module:
    torch.manual_seed(seed)
    return randomize(LayersA(), seed + 1)


def layers_b(seed: int) -> nn.Module:
    torch.manual_seed(seed)
    return randomize(LayersB(), seed + 1)


NETWORKS = {"vit": vit, "layers_a": layers_a, "layers_b": layers_b}
