"""anchorkit: anchoring a concept onto a direction of a small transformer's residual stream."""

from anchorkit.core import kernels

kernels.pin()  # before torch computes anything (where the pin holds: the Reproducibility page)

from anchorkit.core.config import ModelConfig, RunConfig, TaskConfig, TrainConfig  # noqa: E402

__all__ = ["ModelConfig", "RunConfig", "TaskConfig", "TrainConfig"]
__version__ = "0.1.0"
