"""cutile-python's test_helper_function.py recursion kernel (its
test_accept_reasonable_recursion launches it 109 deep and expects
100 + 109): a helper that calls itself N times before the kernel's scatter.
cuTile inlines every call, so each op of the innermost call carries a
call-site chain N + 1 locations long in the bytecode's debug info."""
import cuda.tile as ct


def helper_function_recursive_calls(input, N):
    if N > 0:
        x = helper_function_recursive_calls(input, N - 1) + 1
    else:
        x = input
    return x


@ct.kernel
def main_kernel_recursive_calls(x, output, N: ct.Constant[int]):
    tile_x = ct.gather(x, ())
    x1 = helper_function_recursive_calls(tile_x, N)
    ct.scatter(output, (), x1)
