"""torchvision beside torch's CPU-only wheel, for the fixture generators.

PyPI's torchvision wheels link CUDA, so beside the CPU wheel their C extension (detection ops
only) cannot load, and the import fails registering fake kernels for two of those ops.
Classification models never call them: declaring the two schemas lets the import succeed.
"""

import sys

import torch


def import_torchvision():
    """Imports torchvision, declaring its two detection-op schemas when its extension cannot load."""
    try:
        import torchvision

        return torchvision
    except RuntimeError:
        for name in [name for name in sys.modules if name.split(".")[0] == "torchvision"]:
            del sys.modules[name]
    library = torch.library.Library("torchvision", "DEF")
    library.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    library.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    import_torchvision.library = library
    import torchvision

    return torchvision
