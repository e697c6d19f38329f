#!/usr/bin/python3
"""same_results.py A.h5 B.h5: exits 1 unless the two tsmech outputs hold bitwise the same
/fields and /monitor datasets (the simulated results; wall-clock data are not compared)."""
import sys

import h5py
import numpy as np

a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
bad = []
for group in ("fields", "monitor"):
    names = sorted(set(a[group]) | set(b[group]))
    for n in names:
        if n not in a[group] or n not in b[group]:
            bad.append(f"/{group}/{n} is in one file only")
            continue
        x, y = a[group][n][()], b[group][n][()]
        if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
            diff = np.max(np.abs(x.astype(float) - y.astype(float))) if x.shape == y.shape else "shape"
            bad.append(f"/{group}/{n} differs (max difference {diff})")
for line in bad:
    print(f"{sys.argv[2]}: {line}")
sys.exit(1 if bad else 0)
