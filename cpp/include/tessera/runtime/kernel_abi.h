/* The C calling convention between the runtime and compiled kernels. Generated C code
 * declares the same types, so a kernel compiled by any backend runs under any executor of
 * this build or a later one (fields are only appended; a saved program's format version
 * keeps earlier builds, whose executors pass fewer, from loading kernels that read more). */
#ifndef TESSERA_RUNTIME_KERNEL_ABI_H_
#define TESSERA_RUNTIME_KERNEL_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The body of a parallel loop: runs iterations [begin, end) with its captured state. */
typedef void (*TsParallelBody)(void* closure, int64_t begin, int64_t end);

/** What the runtime hands a kernel: its thread pool, reached through `parallel_for`,
 *  which splits [0, n) into chunks, runs `body` on them (the calling thread takes one)
 *  and returns when all are done. A null `parallel_for` means: run serially.
 *  `reverse` (set on every other run of an executor's state) asks the kernel to run the
 *  iterations of each chunk of its parallel loops last to first: they are independent, so
 *  the results are the same, and what one run read last, still in cache, the next reads
 *  first (weights somewhat larger than L2 are then read from L2 in good part). */
typedef struct TsKernelEnv {
  void* pool;
  void (*parallel_for)(void* pool, int64_t n, TsParallelBody body, void* closure);
  int32_t reverse;
} TsKernelEnv;

/** A compiled kernel. `buffers` are the PrimFunc's parameters in order (inputs, then
 *  outputs), each dense row-major with the static shape the kernel was built for.
 *  Returns 0 on success. */
typedef int32_t (*TsKernelFn)(void* const* buffers, const TsKernelEnv* env);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_RUNTIME_KERNEL_ABI_H_ */
