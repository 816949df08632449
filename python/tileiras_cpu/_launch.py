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


def _convert_args(kernel, kernel_args, views):
    names = _param_names(kernel)
    return tuple(_convert(a, names[i] if i < len(names) else "argument %d" % i, views)
                 for i, a in enumerate(kernel_args))


def make_launch(driver, cutile_launch, kernel_at=2, args_at=3, many=False):
    """cutile_launch (cuTile's launch, launch_extended, or _cext._benchmark,
    whose positional arguments hold the stream first, the kernel at kernel_at
    and its arguments at args_at -- a tuple of argument tuples when many)
    taking CPU arrays, synchronous, its output and faults as above."""
    def launch(*pos, **kwargs):
        pos = list(pos)
        if len(pos) > max(kernel_at, args_at):
            views = []
            kernel = pos[kernel_at]
            pos[args_at] = (tuple(_convert_args(kernel, t, views) for t in pos[args_at]) if many
                            else _convert_args(kernel, pos[args_at], views))
            if pos[0] is None:
                pos[0] = 0
        else:
            views = []          # cuTile says what is missing
        sys.stdout.flush()
        driver.take_fault()
        _register(driver, views)
        try:
            return cutile_launch(*pos, **kwargs)
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
        return cutile_from_kernel_args(kernel, _convert_args(kernel, kernel_args, []), *args, **kwargs)
    from_kernel_args.__doc__ = cutile_from_kernel_args.__doc__
    return staticmethod(from_kernel_args)


KernelFault.__module__ = "tileiras_cpu"
