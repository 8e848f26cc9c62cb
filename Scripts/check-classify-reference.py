"""Runs `vision-catalog classify --exact --json` (release build) on every reference photo and checks
top-1, the top-5 set and confidences (within 1e-3 of softmax of ONNX Runtime's logits).
`--exact` because the references were made from full-size decodes: the default DCT-scaled JPEG
decode is measured separately (Scripts/measure-dct-accuracy.sh).
Usage: python Scripts/check-classify-reference.py [../shared/models]   (needs numpy)
"""
import json, subprocess, numpy as np, sys
root=sys.argv[1] if len(sys.argv) > 1 else '../shared/models'
m=json.load(open(f'{root}/ref/manifest.json'))
worst=0; ok=True
for stem,info in m['photos'].items():
    out=subprocess.run(['.build/release/vision-catalog','classify',f"{root}/{info['file']}",'--exact','--json'],capture_output=True,text=True)
    r=json.loads(out.stdout)
    logits=np.load(f"{root}/ref/efficientnet-lite0/{stem}.logits.npy")[0].astype(np.float64)
    p=np.exp(logits-logits.max()); p/=p.sum()
    ref5=list(np.argsort(-p)[:5])
    got=[c['index'] for c in r['classifications']]
    d=max(abs(c['confidence']-p[c['index']]) for c in r['classifications'])
    worst=max(worst,d)
    good = got[0]==ref5[0] and set(got)==set(ref5) and d<=1e-3
    ok &= good
    print(f"{stem:10s} top1 {got[0]:4d} ref {ref5[0]:4d} top5same {set(got)==set(ref5)} maxconfdiff {d:.2e} {'OK' if good else 'FAIL'}")
print("worst", worst, "ALL OK" if ok else "FAILURES")
sys.exit(0 if ok else 1)
