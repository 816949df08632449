/* graph.c: CUDA graphs as cuTile's _benchmark builds them (the autotuner's
 * timing loop: a memset and an allocation for the L2 flush, event records
 * around the kernel, the kernel node): a graph is its nodes in the order
 * they were added (each node's dependencies were added before it, so that
 * order is a topological one), an executable graph a copy of them, and a
 * launch runs them one after another, synchronously, as every launch here.
 * A kernel node keeps its own copy of the parameter bytes (as the driver
 * does at cuGraphAddKernelNode); an allocation node's memory is allocated
 * when the node is added and freed with the graph. */
#include <stdlib.h>
#include <string.h>
#include "fakecuda.h"

enum { NODE_KERNEL, NODE_MEMSET, NODE_EVENT, NODE_NOOP };

typedef struct Node {
	int kind;
	CUfunction f;
	uint32_t grid[3], block[3];
	unsigned shared;
	void *params;           /* the parameter block, its bytes copied */
	size_t param_size;
	CUdeviceptr dst;        /* memset */
	size_t pitch, width, height;
	unsigned value, esize;
	CUevent event;
} Node;

struct FakeGraph {
	Node *nodes;
	int n, cap;
	CUdeviceptr *allocs;    /* what its allocation nodes allocated */
	int nallocs;
};

struct FakeGraphExec {
	Node *nodes;            /* the graph's, shared: a graph outlives its launches here */
	int n;
};

/* cuGraphAddKernelNode_v2's parameters (cuda.h CUDA_KERNEL_NODE_PARAMS_v2) */
typedef struct {
	CUfunction func;
	unsigned grid[3], block[3], shared;
	void **params, **extra;
	CUkernel kern;
	CUcontext ctx;
} KernelNodeParams;

typedef struct {
	CUdeviceptr dst;
	size_t pitch;
	unsigned value, element_size;
	size_t width, height;
} MemsetNodeParams;

/* cuda.h CUDA_MEM_ALLOC_NODE_PARAMS: the pool properties (88 bytes), the
 * access descriptors, the size in, the address out */
typedef struct {
	unsigned char pool_props[88];
	const void *access;
	size_t naccess, bytesize;
	CUdeviceptr dptr;
} MemAllocNodeParams;

static CUresult cuGraphCreate(CUgraph *g, unsigned flags)
{
	(void)flags;
	if (!g)
		return CUDA_ERROR_INVALID_VALUE;
	return (*g = calloc(1, sizeof **g)) ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult cuGraphDestroy(CUgraph g)
{
	if (!g)
		return CUDA_ERROR_INVALID_HANDLE;
	for (int i = 0; i < g->n; i++)
		free(g->nodes[i].params);
	for (int i = 0; i < g->nallocs; i++)
		fakecuda_mem_free(g->allocs[i]);
	free(g->allocs);
	free(g->nodes);
	free(g);
	return CUDA_SUCCESS;
}

/* a new node at the end of g (NULL: no memory), its handle in *out */
static Node *add(CUgraph g, CUgraphNode *out)
{
	if (g->n == g->cap) {
		int cap = g->cap ? 2 * g->cap : 8;
		Node *grown = realloc(g->nodes, (size_t)cap * sizeof *grown);
		if (!grown)
			return NULL;
		g->nodes = grown;
		g->cap = cap;
	}
	Node *nd = &g->nodes[g->n];
	memset(nd, 0, sizeof *nd);
	if (out)
		*out = (CUgraphNode)(uintptr_t)(g->n + 1);
	g->n++;
	return nd;
}

static CUresult cuGraphAddKernelNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
				     const KernelNodeParams *p)
{
	(void)deps; (void)ndeps;
	if (!g || !p)
		return CUDA_ERROR_INVALID_VALUE;
	if (p->extra)
		return CUDA_ERROR_NOT_SUPPORTED;
	CUfunction f = p->func ? p->func : p->kern;
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	size_t size;
	void *block = fakecuda_param_block(f, p->params, &size);
	if (!block)
		return CUDA_ERROR_INVALID_VALUE;
	Node *nd = add(g, out);
	if (!nd) {
		free(block);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	nd->kind = NODE_KERNEL;
	nd->f = f;
	memcpy(nd->grid, p->grid, sizeof nd->grid);
	memcpy(nd->block, p->block, sizeof nd->block);
	nd->shared = p->shared;
	nd->params = block;
	nd->param_size = size;
	return CUDA_SUCCESS;
}

static CUresult cuGraphAddMemsetNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
				     const MemsetNodeParams *p, CUcontext ctx)
{
	(void)deps; (void)ndeps; (void)ctx;
	if (!g || !p || (p->element_size != 1 && p->element_size != 2 && p->element_size != 4))
		return CUDA_ERROR_INVALID_VALUE;
	Node *nd = add(g, out);
	if (!nd)
		return CUDA_ERROR_OUT_OF_MEMORY;
	nd->kind = NODE_MEMSET;
	nd->dst = p->dst;
	nd->pitch = p->pitch;
	nd->value = p->value;
	nd->esize = p->element_size;
	nd->width = p->width;
	nd->height = p->height;
	return CUDA_SUCCESS;
}

static CUresult cuGraphAddEventRecordNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
					  CUevent e)
{
	(void)deps; (void)ndeps;
	if (!g || !e)
		return CUDA_ERROR_INVALID_VALUE;
	Node *nd = add(g, out);
	if (!nd)
		return CUDA_ERROR_OUT_OF_MEMORY;
	nd->kind = NODE_EVENT;
	nd->event = e;
	return CUDA_SUCCESS;
}

static CUresult cuGraphAddMemAllocNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
				       MemAllocNodeParams *p)
{
	(void)deps; (void)ndeps;
	if (!g || !p)
		return CUDA_ERROR_INVALID_VALUE;
	CUdeviceptr *grown = realloc(g->allocs, (size_t)(g->nallocs + 1) * sizeof *grown);
	if (!grown)
		return CUDA_ERROR_OUT_OF_MEMORY;
	g->allocs = grown;
	CUresult rc = fakecuda_mem_alloc(&p->dptr, p->bytesize);
	if (rc != CUDA_SUCCESS)
		return rc;
	g->allocs[g->nallocs++] = p->dptr;
	Node *nd = add(g, out);
	if (!nd)
		return CUDA_ERROR_OUT_OF_MEMORY;
	nd->kind = NODE_NOOP;
	return CUDA_SUCCESS;
}

static CUresult cuGraphAddMemFreeNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
				      CUdeviceptr p)
{
	(void)deps; (void)ndeps; (void)p;       /* freed with the graph */
	if (!g)
		return CUDA_ERROR_INVALID_VALUE;
	Node *nd = add(g, out);
	if (!nd)
		return CUDA_ERROR_OUT_OF_MEMORY;
	nd->kind = NODE_NOOP;
	return CUDA_SUCCESS;
}

static CUresult cuGraphInstantiateWithFlags(CUgraphExec *x, CUgraph g, unsigned long long flags)
{
	(void)flags;
	if (!x || !g)
		return CUDA_ERROR_INVALID_VALUE;
	if (!(*x = calloc(1, sizeof **x)))
		return CUDA_ERROR_OUT_OF_MEMORY;
	(*x)->nodes = g->nodes;
	(*x)->n = g->n;
	return CUDA_SUCCESS;
}

static CUresult cuGraphExecDestroy(CUgraphExec x)
{
	free(x);
	return CUDA_SUCCESS;
}

static void memset_node(const Node *nd)
{
	for (size_t r = 0; r < (nd->height ? nd->height : 1); r++) {
		unsigned char *row = (unsigned char *)(uintptr_t)(nd->dst + r * nd->pitch);
		for (size_t i = 0; i < nd->width; i++)
			memcpy(row + i * nd->esize, &nd->value, nd->esize);     /* little-endian: the low bytes */
	}
}

static CUresult cuGraphLaunch(CUgraphExec x, CUstream s)
{
	(void)s;
	if (!x)
		return CUDA_ERROR_INVALID_HANDLE;
	for (int i = 0; i < x->n; i++) {
		const Node *nd = &x->nodes[i];
		CUresult rc = CUDA_SUCCESS;
		static const uint32_t no_cluster[3] = { 0, 0, 0 };
		switch (nd->kind) {
		case NODE_KERNEL:
			rc = fakecuda_launch_block(nd->f, nd->grid, nd->block, no_cluster, nd->shared, nd->params,
						   nd->param_size);
			break;
		case NODE_MEMSET:
			memset_node(nd);
			break;
		case NODE_EVENT:
			rc = fakecuda_event_record(nd->event);
			break;
		default:
			break;
		}
		if (rc != CUDA_SUCCESS)
			return rc;
	}
	return CUDA_SUCCESS;
}

void *fakecuda_graph_entry(const char *symbol)
{
	static const FakeEntry entries[] = {
		FAKE_ENTRY(cuGraphCreate), FAKE_ENTRY(cuGraphDestroy), FAKE_ENTRY(cuGraphAddKernelNode),
		FAKE_ENTRY(cuGraphAddMemsetNode), FAKE_ENTRY(cuGraphAddEventRecordNode),
		FAKE_ENTRY(cuGraphAddMemAllocNode), FAKE_ENTRY(cuGraphAddMemFreeNode),
		FAKE_ENTRY(cuGraphInstantiateWithFlags), FAKE_ENTRY(cuGraphExecDestroy), FAKE_ENTRY(cuGraphLaunch),
	};
	return fakecuda_find(entries, sizeof entries / sizeof entries[0], symbol);
}
