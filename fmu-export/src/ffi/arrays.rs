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
    text.to_str()
        .map_err(|_| Problem::error(format!("argument {name} is not valid UTF-8")))
}

/// A host array by name, address and size, for [`check_disjoint`].
#[derive(Clone, Copy, Debug)]
pub struct Span {
    name: &'static str,
    start: usize,
    bytes: usize,
}

impl Span {
    /// The `len` elements at `ptr`, called `name` in messages.
    pub fn of<T>(name: &'static str, ptr: *const T, len: usize) -> Span {
        Span {
            name,
            start: ptr as usize,
            bytes: len.saturating_mul(std::mem::size_of::<T>()),
        }
    }

    /// Whether both arrays are non-empty, non-NULL (NULL is reported where the array is
    /// read) and share a byte.
    fn overlaps(&self, other: &Span) -> bool {
        self.bytes > 0
            && other.bytes > 0
            && self.start != 0
            && other.start != 0
            && self.start < other.start.saturating_add(other.bytes)
            && other.start < self.start.saturating_add(self.bytes)
    }
}

/// An Error if an array the function writes (`outputs`) shares memory with any other of its
/// arrays: a written array must not alias another (inputs may share memory with each other).
pub fn check_disjoint(outputs: &[Span], inputs: &[Span]) -> Outcome {
    for (i, out) in outputs.iter().enumerate() {
        if let Some(other) = outputs[i + 1..]
            .iter()
            .chain(inputs)
            .find(|o| out.overlaps(o))
        {
            return Err(Problem::error(format!(
                "argument {} overlaps argument {}: output arrays must not share memory with other arrays",
                out.name, other.name
            )));
        }
    }
    Ok(())
}

fn check_pointer<T>(ptr: *const T, name: &str, len: usize) -> Outcome {
    if ptr.is_null() {
        Err(Problem::error(format!(
            "argument {name} is NULL but {len} element(s) are expected"
        )))
    } else if !ptr.is_aligned() {
        Err(Problem::error(format!(
            "argument {name} ({ptr:p}) is not aligned for its type"
        )))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_output_arrays_are_rejected() {
        let buffer = [0.0f64; 8];
        let at = |i: usize, len: usize, name| Span::of(name, buffer[i..].as_ptr(), len);
        assert!(check_disjoint(&[at(0, 2, "a"), at(2, 2, "b")], &[at(4, 4, "c")]).is_ok());
        assert!(check_disjoint(&[at(0, 2, "a")], &[at(0, 8, "c"), at(1, 2, "d")]).is_err());
        let error = check_disjoint(&[at(0, 3, "a"), at(2, 2, "b")], &[]).unwrap_err();
        assert!(
            error.message.contains("argument a overlaps argument b"),
            "{error}"
        );
        // Empty arrays overlap nothing, wherever they point.
        assert!(check_disjoint(&[at(0, 0, "a")], &[at(0, 8, "c")]).is_ok());
        let null = Span::of("a", std::ptr::null::<f64>(), 2);
        assert!(
            check_disjoint(&[null], &[null]).is_ok(),
            "NULL is reported where it is read"
        );
        // Inputs may share memory with each other.
        assert!(check_disjoint(&[], &[at(0, 8, "c"), at(0, 8, "d")]).is_ok());
    }
}
