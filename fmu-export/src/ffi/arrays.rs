//! Checked views of the arrays, strings and out-parameters a host passes: NULL where data is
//! required, or a misaligned pointer, is an Error instead of undefined behaviour.

use std::ffi::{c_char, CStr};

use crate::instance::outcome::{Outcome, Problem};

/// The `len` elements at `ptr` (any pointer, even NULL, when `len` is 0).
///
/// # Safety
/// If `len > 0` and `ptr` is non-NULL, `ptr` must point to `len` initialized elements that
/// stay valid and unchanged for `'a`.
pub unsafe fn input<'a, T>(ptr: *const T, len: usize, name: &str) -> Outcome<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    check_pointer(ptr, name, len)?;
    // SAFETY: non-NULL and aligned (checked); length and validity are the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// The `len` writable elements at `ptr` (any pointer, even NULL, when `len` is 0).
///
/// # Safety
/// If `len > 0` and `ptr` is non-NULL, `ptr` must point to `len` writable elements that no
/// one else accesses for `'a`.
pub unsafe fn output<'a, T>(ptr: *mut T, len: usize, name: &str) -> Outcome<&'a mut [T]> {
    if len == 0 {
        return Ok(&mut []);
    }
    check_pointer(ptr, name, len)?;
    // SAFETY: non-NULL and aligned (checked); length and exclusivity are the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// The single writable value at `ptr`.
///
/// # Safety
/// If non-NULL, `ptr` must point to a writable value that no one else accesses for `'a`.
pub unsafe fn out_param<'a, T>(ptr: *mut T, name: &str) -> Outcome<&'a mut T> {
    check_pointer(ptr, name, 1)?;
    // SAFETY: non-NULL and aligned (checked); validity is the caller's contract.
    Ok(unsafe { &mut *ptr })
}

/// The NUL-terminated UTF-8 string at `ptr`.
///
/// # Safety
/// If non-NULL, `ptr` must point to a NUL-terminated string valid for `'a`.
pub unsafe fn string<'a>(ptr: *const c_char, name: &str) -> Outcome<&'a str> {
    if ptr.is_null() {
        return Err(Problem::error(format!("argument {name} is NULL")));
    }
    // SAFETY: non-NULL; termination and validity are the caller's contract.
    let text = unsafe { CStr::from_ptr(ptr) };
    text.to_str().map_err(|_| Problem::error(format!("argument {name} is not valid UTF-8")))
}

fn check_pointer<T>(ptr: *const T, name: &str, len: usize) -> Outcome {
    if ptr.is_null() {
        Err(Problem::error(format!("argument {name} is NULL but {len} element(s) are expected")))
    } else if !ptr.is_aligned() {
        Err(Problem::error(format!("argument {name} ({ptr:p}) is not aligned for its type")))
    } else {
        Ok(())
    }
}
