//! The bytes that ranks exchange: values written in a fixed little-endian layout, floats by
//! their bits, so that a number read on another rank is the same number bit for bit.

use std::time::Duration;

/// A value that can be sent to another rank.
pub trait Wire: Sized {
    /// Appends the value's bytes to `out`.
    fn put(&self, out: &mut Vec<u8>);
    /// Reads a value from the front of `input` and advances it; `None` if the bytes are no
    /// such value.
    fn take(input: &mut &[u8]) -> Option<Self>;
}

/// The bytes of `value`.
pub fn encode<T: Wire>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    value.put(&mut out);
    out
}

/// The value of `bytes`, which must hold exactly one.
pub fn decode<T: Wire>(mut bytes: &[u8]) -> Option<T> {
    let value = T::take(&mut bytes)?;
    bytes.is_empty().then_some(value)
}

/// The first `count` bytes of `input`, advancing it.
fn bytes<'a>(input: &mut &'a [u8], count: usize) -> Option<&'a [u8]> {
    if input.len() < count {
        return None;
    }
    let (head, tail) = input.split_at(count);
    *input = tail;
    Some(head)
}

impl Wire for u64 {
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        Some(u64::from_le_bytes(bytes(input, 8)?.try_into().ok()?))
    }
}

impl Wire for usize {
    fn put(&self, out: &mut Vec<u8>) {
        (*self as u64).put(out);
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        usize::try_from(u64::take(input)?).ok()
    }
}

impl Wire for f64 {
    fn put(&self, out: &mut Vec<u8>) {
        self.to_bits().put(out);
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        Some(f64::from_bits(u64::take(input)?))
    }
}

impl Wire for String {
    fn put(&self, out: &mut Vec<u8>) {
        self.len().put(out);
        out.extend_from_slice(self.as_bytes());
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        let length = usize::take(input)?;
        String::from_utf8(bytes(input, length)?.to_vec()).ok()
    }
}

impl Wire for Duration {
    fn put(&self, out: &mut Vec<u8>) {
        self.as_secs().put(out);
        u64::from(self.subsec_nanos()).put(out);
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        let seconds = u64::take(input)?;
        let nanos = u32::try_from(u64::take(input)?).ok()?;
        Some(Duration::new(seconds, nanos))
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn put(&self, out: &mut Vec<u8>) {
        self.len().put(out);
        for item in self {
            item.put(out);
        }
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        let length = usize::take(input)?;
        // Every item takes at least one byte: a corrupt length cannot make a huge allocation.
        if length > input.len() {
            return None;
        }
        (0..length).map(|_| T::take(input)).collect()
    }
}

impl<T: Wire> Wire for Option<T> {
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            Some(value) => {
                out.push(1);
                value.put(out);
            }
            None => out.push(0),
        }
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        match bytes(input, 1)?[0] {
            0 => Some(None),
            1 => Some(Some(T::take(input)?)),
            _ => None,
        }
    }
}

impl<T: Wire> Wire for Result<T, String> {
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            Ok(value) => {
                out.push(1);
                value.put(out);
            }
            Err(message) => {
                out.push(0);
                message.put(out);
            }
        }
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        match bytes(input, 1)?[0] {
            1 => Some(Ok(T::take(input)?)),
            0 => Some(Err(String::take(input)?)),
            _ => None,
        }
    }
}

impl Wire for () {
    fn put(&self, _: &mut Vec<u8>) {}

    fn take(_: &mut &[u8]) -> Option<Self> {
        Some(())
    }
}

impl<A: Wire, B: Wire> Wire for (A, B) {
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out);
        self.1.put(out);
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        Some((A::take(input)?, B::take(input)?))
    }
}

impl<A: Wire, B: Wire, C: Wire> Wire for (A, B, C) {
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out);
        self.1.put(out);
        self.2.put(out);
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        Some((A::take(input)?, B::take(input)?, C::take(input)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_back_bit_for_bit() {
        let row: (usize, Result<Vec<f64>, String>, Duration) = (
            7,
            Ok(vec![0.1 + 0.2, -0.0, f64::NAN, f64::MIN_POSITIVE / 3.0]),
            Duration::new(3, 999_999_999),
        );
        let back: (usize, Result<Vec<f64>, String>, Duration) =
            decode(&encode(&row)).expect("the row reads back");
        assert_eq!(back.0, 7);
        assert_eq!(back.2, row.2);
        let bits = |r: &Result<Vec<f64>, String>| -> Vec<u64> {
            r.as_ref().unwrap().iter().map(|x| x.to_bits()).collect()
        };
        assert_eq!(bits(&back.1), bits(&row.1));
        let failed: Result<Vec<f64>, String> = Err("instance mass2: fmi3DoStep — Error".into());
        assert_eq!(
            decode::<Result<Vec<f64>, String>>(&encode(&failed)),
            Some(failed)
        );
        let nested: Vec<Option<Vec<f64>>> = vec![None, Some(vec![1.5])];
        assert_eq!(decode(&encode(&nested)), Some(nested));
    }

    #[test]
    fn truncated_or_padded_bytes_are_refused() {
        let bytes = encode(&(1.0f64, String::from("ab")));
        for end in 0..bytes.len() {
            assert_eq!(decode::<(f64, String)>(&bytes[..end]), None, "{end} bytes");
        }
        let mut padded = bytes.clone();
        padded.push(0);
        assert_eq!(decode::<(f64, String)>(&padded), None);
        // A length far beyond the bytes that follow.
        assert_eq!(decode::<Vec<f64>>(&encode(&u64::MAX)), None);
        assert_eq!(decode::<Option<f64>>(&[2]), None);
    }
}
