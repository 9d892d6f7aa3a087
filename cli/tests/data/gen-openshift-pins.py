#!/usr/bin/env python3
"""Writes node/crio.conf.d/50-pinned-images, an OpenShift-style drop-in
(no extension) as the machine-config daemon writes it: one
[crio.image] pinned_images list of release-payload digests. Deterministic:
digest i is sha256("ocp-release-component-i"). Run from cli/tests/data."""
import hashlib

COUNT = 300
lines = ["[crio.image]", "pinned_images = ["]
for i in range(COUNT):
    digest = hashlib.sha256(f"ocp-release-component-{i}".encode()).hexdigest()
    lines.append(f'  "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:{digest}",')
lines.append("]")
with open("node/crio.conf.d/50-pinned-images", "w") as f:
    f.write("\n".join(lines) + "\n")
