"""The reference server for `Benchmarks/compare --filter http`: FastAPI + ONNX Runtime + Pillow,
as a Python team would write `POST /v1/classify` (run with uvicorn, one worker per core).

The photo is the raw body; the recipe is reference_bench.py's fastest Pillow one (`draft()` to
the DCT reduction, EXIF orientation, BILINEAR resize of the Lite center crop, `(x - 127) / 128`),
then EfficientNet-Lite0 in ONNX Runtime (one intra-op thread per worker, spinning off, the
project's rule on shared 2-core machines) and the top 5 with softmax confidences, as JSON.
Environment: VC_MODEL (the Lite0 ONNX file), VC_LABELS (one ImageNet label per line).
"""

import io
import os

import numpy as np
import onnxruntime as ort
from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from PIL import Image, ImageOps

SIZE = 224

options = ort.SessionOptions()
options.intra_op_num_threads = 1
options.inter_op_num_threads = 1
options.add_session_config_entry("session.intra_op.allow_spinning", "0")
options.add_session_config_entry("session.inter_op.allow_spinning", "0")
session = ort.InferenceSession(os.environ["VC_MODEL"], options, providers=["CPUExecutionProvider"])
input_name = session.get_inputs()[0].name
with open(os.environ["VC_LABELS"], encoding="utf-8") as handle:
    labels = [line.rstrip("\n") for line in handle]

app = FastAPI()


def tensor(data):
    with Image.open(io.BytesIO(data)) as image:
        image.draft("RGB", (SIZE + 32, SIZE + 32))
        image = ImageOps.exif_transpose(image.convert("RGB") if image.mode != "RGB" else image)
        width, height = image.size
        side = int(SIZE / (SIZE + 32) * min(width, height))
        top = ((height - side) + 1) // 2
        left = ((width - side) + 1) // 2
        resized = image.resize((SIZE, SIZE), Image.BILINEAR, box=(left, top, left + side, top + side))
    array = (np.asarray(resized, dtype=np.float32) - 127.0) / 128.0
    return np.ascontiguousarray(array.transpose(2, 0, 1)[None])


def classify(data):
    logits = session.run(None, {input_name: tensor(data)})[0][0]
    exp = np.exp(logits - logits.max())
    probabilities = exp / exp.sum()
    best = np.argsort(-probabilities)[:5]
    return [{"label": labels[i], "index": int(i), "confidence": float(probabilities[i])} for i in best]


@app.post("/v1/classify")
async def classify_route(request: Request):
    body = await request.body()
    try:
        classifications = await run_in_threadpool(classify, body)
    except Exception as error:  # a photo Pillow cannot read is the client's mistake
        return JSONResponse({"error": {"code": "bad_image", "message": str(error)}}, status_code=400)
    return {"classifications": classifications}


@app.get("/readyz")
async def ready():
    return {"status": "ready"}
