"""CPU arrays as cuTile arguments. cuTile's launch takes arrays by DLPack or
__cuda_array_interface__ and wants them on a CUDA device; a numpy array (any
dtype, ml_dtypes' bfloat16 and float8 included) or a torch CPU tensor is
handed to it as a DeviceView, whose DLPack capsule describes the same host
memory as device memory of device 0 (on the CPU driver a device pointer is a
host address). The view keeps its array alive; the capsule's DLManagedTensor
lives until cuTile calls its deleter."""
import ctypes
import sys

KDL_CUDA = 2

# DLPack dtype codes (dlpack.h DLDataTypeCode) by dtype name.
_DTYPES = {
    "bool": (6, 8),
    "int8": (0, 8), "int16": (0, 16), "int32": (0, 32), "int64": (0, 64),
    "uint8": (1, 8), "uint16": (1, 16), "uint32": (1, 32), "uint64": (1, 64),
    "float16": (2, 16), "float32": (2, 32), "float64": (2, 64),
    "bfloat16": (4, 16),
    "float8_e4m3fn": (10, 8), "float8_e5m2": (12, 8), "float8_e8m0fnu": (14, 8),
}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _DELETER)]

_live = {}      # address of a DLManagedTensor -> what it points into, until deleted


@_DELETER
def _delete(p):
    _live.pop(ctypes.addressof(p.contents), None)


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class DeviceView:
    """A host array as device memory: address, dtype name, itemsize, shape and
    strides (in elements), the object that owns the memory."""

    def __init__(self, owner, address, dtype, itemsize, shape, strides):
        if dtype not in _DTYPES:
            raise TypeError("tileiras_cpu: arrays of %s are not supported" % dtype)
        self.owner, self.address, self.dtype, self.itemsize = owner, address, dtype, itemsize
        self.shape, self.strides = tuple(shape), tuple(strides)

    def span(self):
        """(lowest address, bytes) the array's elements cover."""
        if 0 in self.shape:
            return self.address, 0
        lo = hi = 0
        for n, s in zip(self.shape, self.strides):
            if s > 0:
                hi += (n - 1) * s
            else:
                lo += (n - 1) * s
        return self.address + lo * self.itemsize, (hi - lo + 1) * self.itemsize

    def __dlpack_device__(self):
        return (KDL_CUDA, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        nd = len(self.shape)
        m = _DLManagedTensor()
        shape = (ctypes.c_int64 * max(nd, 1))(*self.shape)
        strides = (ctypes.c_int64 * max(nd, 1))(*self.strides)
        code, bits = _DTYPES[self.dtype]
        m.dl_tensor = _DLTensor(self.address, _DLDevice(KDL_CUDA, 0), nd, _DLDataType(code, bits, 1),
                                shape, strides, 0)
        m.deleter = _delete
        _live[ctypes.addressof(m)] = (m, shape, strides, self.owner)
        return _capsule_new(ctypes.addressof(m), b"dltensor", None)


_VIEW_TYPES = {}


def _view_of(owner, *args):
    """A DeviceView whose type bears the name of owner's (cuTile's messages
    name the type of what the user passed: 'Tensor', 'ndarray')."""
    name = type(owner).__name__
    cls = _VIEW_TYPES.get(name)
    if cls is None:
        cls = _VIEW_TYPES[name] = type(name, (DeviceView,), {"__module__": __name__})
    return cls(owner, *args)


def _numpy_view(a):
    if a.dtype.kind == "V" or a.dtype.itemsize == 0:
        name = str(a.dtype)                     # ml_dtypes: bfloat16, float8_e4m3fn, ...
    else:
        name = a.dtype.name
    if any(s % a.itemsize for s in a.strides):
        raise TypeError("tileiras_cpu: an array whose strides are not whole elements")
    return _view_of(a, a.__array_interface__["data"][0], name, a.itemsize, a.shape,
                    [s // a.itemsize for s in a.strides])


def _torch_view(t):
    if t.device.type != "cpu":
        raise TypeError("tileiras_cpu: a torch tensor on %s (only CPU tensors run on the CPU)"
                        % t.device)
    return _view_of(t, t.data_ptr(), str(t.dtype).replace("torch.", ""), t.element_size(),
                    t.shape, t.stride())


def device_view(x):
    """A DeviceView of a numpy array or torch CPU tensor; None for anything else."""
    np, torch = sys.modules.get("numpy"), sys.modules.get("torch")
    if np is not None and isinstance(x, np.ndarray):
        return _numpy_view(x)
    if torch is not None and isinstance(x, torch.Tensor):
        return _torch_view(x)
    return None
