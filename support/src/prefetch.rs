//! A cache hint for kernels whose reads are known ahead but scattered.

/// Asks the processor to start loading the cache line holding `x`, so that
/// a read a little later does not wait for memory. Only a hint: results are
/// the same without it (and on other architectures it does nothing).
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    line((x as *const T).cast());
}

/// [`prefetch`] for every cache line `values` spans: for data read in an
/// order the hardware prefetcher cannot guess, such as training positions
/// in a random permutation.
#[inline(always)]
pub fn prefetch_slice<T>(values: &[T]) {
    each_line(values, line);
}

/// `hint` for an address in every cache line `values` spans.
#[inline(always)]
fn each_line<T>(values: &[T], hint: impl Fn(*const u8)) {
    let bytes = std::mem::size_of_val(values);
    let start = values.as_ptr().cast::<u8>();
    let mut offset = 0;
    while offset < bytes {
        hint(start.wrapping_add(offset));
        offset += 64;
    }
    if bytes > 0 {
        // The last line, when `values` does not start on a line.
        hint(start.wrapping_add(bytes - 1));
    }
}

/// [`prefetch_slice`] for data about to be written: asks the processor to
/// fetch every cache line `values` spans and to take them over from any
/// other core that holds a copy (x86's `prefetchw`, where the CPU has it;
/// elsewhere nothing). A write to a line that another core has read since
/// this core last wrote it otherwise waits for that core to give the line
/// up, one line after another; parameters stepped by one thread and read
/// by every thread between the steps meet that on every step. Only a hint:
/// results are the same without it.
#[inline(always)]
pub fn prefetch_write_slice<T>(values: &[T]) {
    if has_prefetchw() {
        each_line(values, line_for_write);
    }
}

/// Whether this CPU has `prefetchw` (CPUID leaf 0x8000_0001, ECX bit 8),
/// asked once.
#[inline(always)]
fn has_prefetchw() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static HAS: OnceLock<bool> = OnceLock::new();
        *HAS.get_or_init(|| {
            use std::arch::x86_64::__cpuid;
            // Leaf 0x8000_0000 gives the highest extended leaf.
            __cpuid(0x8000_0000).eax >= 0x8000_0001 && __cpuid(0x8000_0001).ecx & (1 << 8) != 0
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The write hint for the cache line holding `address` (only called where
/// [`has_prefetchw`]).
#[inline(always)]
#[allow(unsafe_code)] // the one instruction below; see its SAFETY note
fn line_for_write(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetchw` never faults and changes no memory or register
    // state visible to the program, whatever the address; the caller
    // checked that this CPU has it (`has_prefetchw`). It reads nothing
    // through the pointer and leaves the flags and the stack alone.
    unsafe {
        std::arch::asm!(
            "prefetchw [{}]",
            in(reg) address,
            options(nostack, preserves_flags, readonly)
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// The hint for the cache line holding `address`.
#[inline(always)]
#[allow(unsafe_code)] // the one intrinsic below; see its SAFETY note
fn line(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` never faults and changes no memory or register
    // state visible to the program, whatever the address (the callers'
    // addresses lie moreover inside a live reference). SSE, which it
    // needs, is part of the x86_64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
