"""The CPU driver (fakecuda/, built as lib/tileiras_cpu/libcuda.so.1) through
ctypes: loaded RTLD_GLOBAL before cuda.tile so that cuTile's
CDLL("libcuda.so.1") gets it (the dynamic loader matches the soname of a
library already loaded), then pointed at libtilerun."""
import ctypes
import os


class TilerunError(ctypes.Structure):
    """libtilerun/tilerun.h's TilerunError."""
    _fields_ = [
        ("kind", ctypes.c_int),
        ("message", ctypes.c_char * 1024),
        ("address", ctypes.c_uint64),
        ("buffer", ctypes.c_int),
        ("thread", ctypes.c_uint32 * 3),
        ("block", ctypes.c_uint32 * 3),
        ("ptx_line", ctypes.c_uint),
        ("file", ctypes.c_char * 512),
        ("line", ctypes.c_uint),
        ("col", ctypes.c_uint),
    ]


# TILERUN_KIND_* by value
KINDS = ["none", "error", "out of bounds", "misaligned", "race", "assert", "trap",
         "deadlock", "instruction limit", "fault"]
CHECKS = {"none": 0, "memcheck": 1, "racecheck": 2}


class Driver:
    def __init__(self, build):
        lib = ctypes.CDLL(os.path.join(build, "lib", "tileiras_cpu", "libcuda.so.1"),
                          mode=ctypes.RTLD_GLOBAL)
        lib.fakecudaInit.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.fakecudaRegister.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
        lib.fakecudaSetCheck.argtypes = [ctypes.c_int]
        lib.fakecudaTakeFault.argtypes = [ctypes.POINTER(TilerunError), ctypes.c_char_p,
                                          ctypes.c_size_t]
        lib.fakecudaTakeOutput.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)]
        lib.fakecudaTakeOutput.restype = ctypes.c_void_p
        lib.fakecudaFree.argtypes = [ctypes.c_void_p]
        why = ctypes.create_string_buffer(1024)
        path = os.path.join(build, "lib", "libtilerun.so").encode()
        if lib.fakecudaInit(path, why, len(why)) != 0:
            raise ImportError("tileiras_cpu: cannot load libtilerun: " + why.value.decode())
        self.lib = lib

    def set_check(self, name):
        self.lib.fakecudaSetCheck(CHECKS[name])

    def register(self, address, size, name):
        if self.lib.fakecudaRegister(address, size, name.encode()) != 0:
            raise MemoryError("tileiras_cpu: cannot register an array")

    def clear(self):
        self.lib.fakecudaClear()

    def take_output(self, channel=0):
        """The launches' device printf text (channel 0) or failed asserts'
        lines (1, what a GPU's driver prints to stderr) since the last call."""
        n = ctypes.c_size_t()
        p = self.lib.fakecudaTakeOutput(channel, ctypes.byref(n))
        if not p:
            return ""
        text = ctypes.string_at(p, n.value).decode("utf-8", "replace")
        self.lib.fakecudaFree(p)
        return text

    def take_fault(self):
        """(TilerunError, entry) of the last failed load or launch, or None."""
        err = TilerunError()
        entry = ctypes.create_string_buffer(256)
        if not self.lib.fakecudaTakeFault(ctypes.byref(err), entry, len(entry)):
            return None
        return err, entry.value.decode()
