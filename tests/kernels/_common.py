"""Signature helpers shared by the corpus kernels (not a kernel family).

Each kernel module exports CORPUS: a list of
(corpus_name, kernel, description, signatures),
where signatures is a list of one or two parameter lists. scripts/gen-corpus
turns each parameter list into a cuda.tile.compilation.KernelSignature using
calling convention cutile_python_v1.
"""
import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint, ScalarConstraint


def arr(dtype, ndim=1, *, contiguous=False, index_dtype=ct.int32):
    """A non-aliasing array parameter with non-negative strides.

    contiguous=True additionally tells cuTile the innermost stride is 1
    (C layout): the view uses the constant 1, but the stride parameter is
    still part of the kernel ABI (passed, just unused).
    """
    stride_constant = None
    if contiguous:
        stride_constant = (None,) * (ndim - 1) + (1,)
    return ArrayConstraint(dtype, ndim,
                           index_dtype=index_dtype,
                           stride_lower_bound_incl=0,
                           alias_groups=(),
                           may_alias_internally=False,
                           stride_constant=stride_constant)


def scalar(dtype):
    return ScalarConstraint(dtype)
