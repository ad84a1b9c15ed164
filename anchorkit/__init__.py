"""anchorkit: anchoring a concept onto a direction of a small transformer's residual stream."""

from anchorkit.config import ModelConfig, RunConfig, TaskConfig, TrainConfig

__all__ = ["ModelConfig", "RunConfig", "TaskConfig", "TrainConfig"]
__version__ = "0.1.0"
