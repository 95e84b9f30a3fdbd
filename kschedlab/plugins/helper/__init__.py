"""Shared plugin helpers (``framework/plugins/helper``)."""

from kschedlab.plugins.helper.normalize_score import default_normalize_score
from kschedlab.plugins.helper.shape_score import FunctionShapePoint, build_broken_linear_function

__all__ = ["default_normalize_score", "FunctionShapePoint", "build_broken_linear_function"]
