//! mimalloc as the global allocator, entered through its plain `malloc`-style functions
//! whenever the layout's alignment is one that every mimalloc block already has.
//!
//! The `mimalloc` crate sends every request through `mi_malloc_aligned`. For a block over
//! 1 KiB whose size is not a power of two, that takes mimalloc's over-allocating path even at
//! an alignment of 8; a server call makes dozens of such allocations (request and response
//! buffers). Like the standard library's system allocator, this one asks for alignment only
//! when the layout needs more than the allocator gives anyway.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_collect, mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
    mi_zalloc_aligned,
};

/// The alignment of every mimalloc block of at least this many bytes (`MI_MAX_ALIGN_SIZE`:
/// on 64-bit targets small size classes are multiples of two words, larger ones of more).
const MIN_ALIGN: usize = if cfg!(target_pointer_width = "64") {
    16
} else {
    8
};

/// Freeing a block of at least this many bytes gives the memory the thread's heap no longer
/// uses back to the system at once. mimalloc otherwise purges freed pages only after a delay,
/// and only when the thread that freed them allocates again: a task's 1 MB answer, freed on a
/// worker thread that then idles, would stay resident. Blocks this large are rare on the call
/// path (an answer of that size costs far more to make than the collection does).
const GIVE_BACK: usize = 1 << 20;

/// Whether a plain mimalloc block of `size` bytes is already aligned to `align`: the
/// alignment is at most the guaranteed one and no larger than the size (a block smaller than
/// the guaranteed alignment may sit at any multiple of its own size class).
fn plain(size: usize, align: usize) -> bool {
    align <= MIN_ALIGN && align <= size
}

/// mimalloc, through `mi_malloc`/`mi_zalloc`/`mi_realloc` where [`plain`] allows and the
/// aligned functions otherwise.
pub(crate) struct MiMalloc;

// SAFETY: every pointer handed out comes from mimalloc with at least the layout's size and
// alignment (checked by `plain`, or asked of the aligned functions), and every pointer taken
// back is one of those, freed or resized by mimalloc, which accepts any block it allocated.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: plain C allocation calls; a null return is passed on as failure.
        unsafe {
            if plain(layout.size(), layout.align()) {
                mi_malloc(layout.size()).cast()
            } else {
                mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe {
            if plain(layout.size(), layout.align()) {
                mi_zalloc(layout.size()).cast()
            } else {
                mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator, so by mimalloc.
        unsafe { mi_free(ptr.cast::<c_void>()) }
        if layout.size() >= GIVE_BACK {
            // SAFETY: a plain C call on the calling thread's own heap; it allocates nothing
            // through this allocator.
            unsafe { mi_collect(true) }
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by this allocator with `layout`.
        unsafe {
            if plain(new_size, layout.align()) {
                mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size from 0 to 5 KiB and on to 1 MiB in steps, at alignments 1 to 4096: each
    /// block is aligned, writable over its whole size, keeps its bytes through a realloc to
    /// either side of the plain/aligned boundary, and is freed.
    #[test]
    fn blocks_are_aligned_and_keep_their_bytes() {
        let sizes = (0..=5 * 1024).chain((5 * 1024..=1 << 20).step_by(4093));
        for size in sizes {
            for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: the layouts are valid, zero-size ones are skipped for allocation
                // (GlobalAlloc requires a non-zero size), and each block is used within its
                // size and freed once with the layout it has.
                unsafe {
                    if size == 0 {
                        continue;
                    }
                    let zeroed = size % 3 == 0;
                    let p = if zeroed {
                        MiMalloc.alloc_zeroed(layout)
                    } else {
                        MiMalloc.alloc(layout)
                    };
                    assert!(!p.is_null(), "size {size} align {align}");
                    assert_eq!(p as usize % align, 0, "size {size} align {align}");
                    if zeroed {
                        assert!(std::slice::from_raw_parts(p, size).iter().all(|&b| b == 0));
                    }
                    std::ptr::write_bytes(p, 0xA5, size);
                    let grown = size * 2 + 7;
                    let q = MiMalloc.realloc(p, layout, grown);
                    assert!(!q.is_null());
                    assert_eq!(q as usize % align, 0, "realloc size {grown} align {align}");
                    assert!(
                        std::slice::from_raw_parts(q, size)
                            .iter()
                            .all(|&b| b == 0xA5)
                    );
                    let shrunk = (size / 3).max(1);
                    let r =
                        MiMalloc.realloc(q, Layout::from_size_align(grown, align).unwrap(), shrunk);
                    assert_eq!(r as usize % align, 0, "shrink to {shrunk} align {align}");
                    assert!(
                        std::slice::from_raw_parts(r, shrunk)
                            .iter()
                            .all(|&b| b == 0xA5)
                    );
                    MiMalloc.dealloc(r, Layout::from_size_align(shrunk, align).unwrap());
                }
            }
        }
    }
}
