//! A global allocator that counts heap allocations, for the tests that a host loop allocates
//! nothing per step. A test program includes this file and installs [`Counting`] with
//! `#[global_allocator]`. The count is per thread, so that tests running at the same time on
//! other threads of the test program do not add to it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting allocations.
pub struct Counting;

thread_local! {
    // Const-initialized and without a destructor: usable from inside the allocator.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// The allocations (and reallocations) made so far by the calling thread.
pub fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

fn count() {
    // Not counted while the thread's storage is being torn down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: forwards to the system allocator; the counter is the calling thread's own.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's layout promise is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: as for `alloc` and `dealloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
