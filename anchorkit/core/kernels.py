"""Which CPU kernels the float32 arithmetic runs on, and the record of the machine.

float32 kernels round differently on different instruction sets, so a run trained with AVX-512
kernels ends with other weights than the same run trained with AVX2 ones. Pinning the kernels'
instruction paths to AVX2 (MKL's conditional numerical reproducibility, oneDNN's ISA limit,
ATen's CPU capability, which torch.compile's generated code follows too) aims at training bitwise
reproducible across x86-64 machines that have AVX2. It held between AMD EPYCs: retrained on an
AVX-512 EPYC with the pin, a published run's weights equal those trained on an AVX2-only one, bit
for bit. It did not hold on an Intel Xeon with AVX-512 (2026-12-01: another model of the same
configuration, so MKL, oneDNN or ATen still take another path there). Each re-run's record is in
``reports/rerun/<cpu>/``, shown on the Reproducibility page.

``pin()`` runs when anchorkit is imported, before torch computes anything: it sets the variables
unless they are already set. ``ANCHORKIT_NATIVE_KERNELS=1`` leaves the machine's own (faster,
machine-dependent) kernels. ``record()`` says what the arithmetic ran on, for every run's
``meta.json`` and every study's provenance.
"""

from __future__ import annotations

import os
import platform
import re
import warnings

PINS = {"MKL_CBWR": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2",
        "ATEN_CPU_CAPABILITY": "avx2"}
NATIVE = "ANCHORKIT_NATIVE_KERNELS"  # set to 1: the machine's own kernels, not the pinned ones


def pinned() -> bool:
    return os.environ.get(NATIVE, "") not in ("1", "true", "yes")


def pin() -> None:
    """Set the instruction-path variables (those not already set), unless ``NATIVE`` is set.
    Only an x86-64 machine with AVX2 is pinned; elsewhere the variables would mean nothing."""
    if pinned() and platform.machine() in ("x86_64", "AMD64") and "avx2" in cpu_flags():
        for k, v in PINS.items():
            os.environ.setdefault(k, v)


def cpuinfo(field: str) -> str | None:
    """The first value of ``field`` in /proc/cpuinfo (``flags``, ``model name``, ``vendor_id``),
    or None where there is no such file or field."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith(field):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_flags() -> set[str]:
    return set((cpuinfo("flags") or "").split())


def cpu_model() -> str:
    return cpuinfo("model name") or platform.processor() or platform.machine()


def cpu_vendor() -> str:
    """``GenuineIntel``, ``AuthenticAMD``, … or ``unknown``."""
    return cpuinfo("vendor_id") or "unknown"


def check() -> None:
    """Warn when the pin was asked for but torch computed before it took effect (torch was used
    before anchorkit was imported): the weights would then depend on this machine's kernels."""
    import torch  # not at the top: this module pins the kernels before torch first loads

    if pinned() and os.environ.get("ATEN_CPU_CAPABILITY") == "avx2" and \
            torch.backends.cpu.get_cpu_capability() not in ("AVX2", "DEFAULT"):
        warnings.warn("torch runs with its machine's own CPU kernels although anchorkit pins "
                      "them to AVX2: import anchorkit before computing with torch, so that "
                      "training is bitwise reproducible across x86-64 machines", stacklevel=2)


def record(threads: int | None = None) -> dict:
    """What the arithmetic ran on: CPU model and its vector extensions, torch's CPU capability,
    the MKL and oneDNN versions, the pins in force, torch's threads."""
    import torch  # not at the top (see check)

    show = torch.__config__.show()
    mkl = re.search(r"Math Kernel Library Version ([^\s]+)", show)
    onednn = re.search(r"MKL-DNN v([^\s]+)", show)
    flags = cpu_flags()
    return {"cpu": cpu_model(), "arch": platform.machine(),
            "vector_extensions": sorted(f for f in flags if f in ("avx2", "avx512f", "fma")),
            "capability": torch.backends.cpu.get_cpu_capability(),
            "mkl": mkl.group(1) if mkl else None, "onednn": onednn.group(1) if onednn else None,
            "pinned": {k: os.environ.get(k) for k in PINS if os.environ.get(k)},
            "threads": threads if threads is not None else torch.get_num_threads()}
