"""The CPU driver's entry points called directly (ctypes), as cuTile calls
them: the libcuda.so.1 cuTile's CDLL gets is tileiras_cpu's; a symbol it
lacks is CUDA_ERROR_NOT_FOUND; the device is sm_100; text that is not PTX
tile-run can run, and a cubin (a stale cache entry), are load errors the
harness can read back; memory and pointer attributes are host memory's."""
import ctypes

from _check import check, tileiras_cpu

cuda = ctypes.CDLL("libcuda.so.1")
check("libcuda.so.1 is tileiras_cpu's", hasattr(cuda, "fakecudaRegister"), True)
get = cuda.cuGetProcAddress_v2
get.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_uint64,
                ctypes.POINTER(ctypes.c_int)]


def entry(name, *argtypes):
    fn, status = ctypes.c_void_p(), ctypes.c_int(-1)
    rc = get(name.encode(), ctypes.byref(fn), 13000, 0, ctypes.byref(status))
    if rc != 0:
        return rc, status.value
    return ctypes.CFUNCTYPE(ctypes.c_int, *argtypes)(fn.value)


check("unknown symbol", entry("cuNoSuchCall"), (500, 1))
check("cuInit", entry("cuInit", ctypes.c_uint)(0), 0)
major, minor = ctypes.c_int(), ctypes.c_int()
attr = entry("cuDeviceGetAttribute", ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int)
attr(ctypes.byref(major), 75, 0)
attr(ctypes.byref(minor), 76, 0)
check("compute capability", (major.value, minor.value), (10, 0))
check("device 1 does not exist", attr(ctypes.byref(major), 75, 1), 101)

load = entry("cuLibraryLoadData", ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_void_p,
             ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint)
lib = ctypes.c_void_p()
check("load of text that is not PTX", load(ctypes.byref(lib), b"this is not PTX\n", None, None, 0, None, None, 0), 218)
err, _ = tileiras_cpu._driver.take_fault()
check("its error has a message", err.kind == 1 and len(err.message) > 0, True)
check("load of a cubin", load(ctypes.byref(lib), b"\x7fELF\x02\x01\x01", None, None, 0, None, None, 0), 200)
err, _ = tileiras_cpu._driver.take_fault()
check("its message names the cache", b"stale cuTile cache" in err.message, True)

alloc = entry("cuMemAlloc", ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t)
free = entry("cuMemFree", ctypes.c_uint64)
rng = entry("cuMemGetAddressRange", ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_size_t),
            ctypes.c_uint64)
p, base, size = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_size_t()
check("cuMemAlloc", alloc(ctypes.byref(p), 1000), 0)
ctypes.memset(p.value, 7, 1000)                  # a device pointer is a host address
check("address range", (rng(ctypes.byref(base), ctypes.byref(size), p.value + 999), base.value, size.value),
      (0, p.value, 1000))
check("cuMemFree", free(p.value), 0)
check("freed twice", free(p.value), 1)
