"""cuTile's autotuner on the CPU: cuda.tile.tune.exhaustive_search times each
tile size through _cext._benchmark, which builds a CUDA graph (an L2-flush
allocation and memset, event records around the kernel node) and launches
it; the CPU driver runs graphs node by node (fakecuda/graph.c). Each
candidate runs on its own copy, the chosen one on the array itself."""
import math
from _check import ct, np, check
from cuda.tile.tune import exhaustive_search


@ct.kernel
def plus_one(x, tile: ct.Constant[int]):
    bid = ct.bid(0)
    ct.store(x, index=(bid,), tile=ct.load(x, index=(bid,), shape=(tile,)) + 1)


x = np.ones(1024, np.float32)
seen = []
result = exhaustive_search([64, 128, 256], None, grid_fn=lambda cfg: (math.ceil(1024 / cfg), 1, 1),
                           kernel=plus_one, args_fn=lambda cfg: (seen.append(cfg) or x.copy(), cfg))
check("every candidate timed", sorted(set(seen)), [64, 128, 256])
check("a best config", result.best.config in (64, 128, 256), True)
check("three timed, none failed", (len(result.successes), len(result.failures)), (3, 0))
check("timings measured", all(m.mean_us > 0 for m in result.successes), True)
check("the tuned arrays were copies", x, np.ones(1024, np.float32))
ct.launch(None, (math.ceil(1024 / result.best.config),), plus_one, (x, result.best.config))
check("launch with the best config", x, np.full(1024, 2, np.float32))
