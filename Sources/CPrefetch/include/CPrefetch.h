#ifndef ROTATE_CPREFETCH_H
#define ROTATE_CPREFETCH_H

/// Asks the cache for the line holding `address` before it is read (one instruction:
/// `prefetcht0` on x86-64, `prfm pldl1keep` on ARM; it never faults, whatever the address).
/// Swift has no prefetch of its own; inlined into the Swift caller like any static inline
/// function of an imported C module.
static inline __attribute__((always_inline)) void rotate_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
