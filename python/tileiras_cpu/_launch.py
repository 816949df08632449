"""cuda.tile.launch on the CPU: numpy arrays and torch CPU tensors become
DeviceViews (_arrays.py) whose memory is registered with the CPU driver for
the launch (so that an access outside every argument is a memcheck fault);
stream None is the default stream; the kernel runs to completion inside the
call; its device printf text goes to sys.stdout after the launch; a fault
is raised as KernelFault, naming the kernel's source file and line, and
leaves every argument as it was."""
import inspect
import sys

from tileiras_cpu._arrays import device_view
from tileiras_cpu._driver import KINDS


class KernelFault(RuntimeError):
    """A kernel faulted on the CPU (or could not be loaded there): kind
    ("out of bounds", "assert", "race", ...), file, line, col (the kernel's
    source place; "" and 0 when unknown), entry (the kernel's symbol),
    block and thread (of the faulting thread), address (memory faults)."""

    def __init__(self, err, entry):
        self.kind = KINDS[err.kind] if 0 <= err.kind < len(KINDS) else "fault"
        self.file = err.file.decode("utf-8", "replace")
        self.line, self.col = err.line, err.col
        self.entry = entry
        self.block, self.thread = tuple(err.block), tuple(err.thread)
        self.address = err.address
        text = err.message.decode("utf-8", "replace")
        if self.file:           # the place first, as a compiler's message: FILE:LINE:COL: ...
            place = "%s:%d:%d" % (self.file, self.line, self.col) if self.col else \
                "%s:%d" % (self.file, self.line)
            text = "%s: %s" % (place, text.replace(", %s)" % place, ")"))
        if err.kind == 1:
            super().__init__("tileiras_cpu: cannot run %s on the CPU: %s" % (entry, text))
        else:
            super().__init__("%s (kernel %s)" % (text, entry))


def _param_names(kernel):
    try:
        return list(inspect.signature(kernel._pyfunc).parameters)
    except (AttributeError, TypeError, ValueError):
        return []


def _convert(x, name, views):
    """x with every array in it (lists too) replaced by its DeviceView."""
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_convert(e, "%s[%d]" % (name, i), views) for i, e in enumerate(x))
    view = device_view(x)
    if view is None:
        return x
    views.append((name, view))
    return view


def _register(driver, views):
    """Registers the arrays' memory, overlapping arrays as one range."""
    spans = sorted((*v.span(), name) for name, v in views)
    merged = []
    for lo, size, name in spans:
        if merged and lo < merged[-1][0] + merged[-1][1]:
            plo, psize, pname = merged[-1]
            merged[-1] = (plo, max(psize, lo + size - plo), pname + "/" + name)
        else:
            merged.append((lo, size, name))
    for lo, size, name in merged:
        driver.register(lo, size, name)


def make_launch(driver, cutile_launch):
    def launch(stream, grid, kernel, kernel_args, /, **kwargs):
        names = _param_names(kernel)
        views = []
        args = tuple(_convert(a, names[i] if i < len(names) else "argument %d" % i, views)
                     for i, a in enumerate(kernel_args))
        sys.stdout.flush()
        driver.take_fault()
        _register(driver, views)
        try:
            cutile_launch(0 if stream is None else stream, grid, kernel, args, **kwargs)
        except Exception:
            fault = driver.take_fault()
            if fault is None:
                raise
            raise KernelFault(*fault) from None
        finally:
            driver.clear()
            for stream, channel in ((sys.stdout, 0), (sys.stderr, 1)):
                out = driver.take_output(channel)
                if out:
                    stream.write(out)
                    stream.flush()
    launch.__doc__ = cutile_launch.__doc__
    return launch


def make_from_kernel_args(cutile_from_kernel_args):
    """KernelSignature.from_kernel_args (a static method) with CPU arrays, taken
    as launch takes them (cuTile's export reads an array's dtype, shape,
    strides and alignment); nothing is launched, so nothing is registered."""
    def from_kernel_args(kernel, kernel_args, *args, **kwargs):
        names = _param_names(kernel)
        views = []
        converted = tuple(_convert(a, names[i] if i < len(names) else "argument %d" % i, views)
                          for i, a in enumerate(kernel_args))
        return cutile_from_kernel_args(kernel, converted, *args, **kwargs)
    from_kernel_args.__doc__ = cutile_from_kernel_args.__doc__
    return staticmethod(from_kernel_args)


KernelFault.__module__ = "tileiras_cpu"
